//! Halo mailboxes in host memory that the ranks of one node share: each
//! rank's inbox is POSIX shared memory it makes and its neighbours map, and
//! every rank's GPU imports its own inbox and its neighbours' (see
//! `gpu::host_import`). A rank's GPU writes the planes it sends straight
//! into its neighbours' inboxes and fetches what they sent from its own, so
//! the host only passes a one-byte "written" between the ranks: no CPU
//! copies the planes, and MPI carries none of them.
//!
//! An inbox has [`SLOTS`] slots, used in turn by successive swaps: a rank
//! writes slot `k % 2` of swap `k` only after its neighbour said it had
//! written swap `k - 1`, which that neighbour's GPU did after fetching
//! swap `k - 2` (one queue runs in order), so a slot is never written while
//! it is read.
//!
//! Where any rank cannot take part (another node, a device without the
//! import, no shared memory), every rank falls back to MPI, decided
//! together so that no rank waits for a mailbox the other never writes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::Comm;
use crate::error::Result;
use crate::gpu::{Gpu, HostPages};

/// How a run's halos travel between ranks (`--halos`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Halos {
    /// The app's own choice: what measured faster for it on two H200s
    /// (lbm: MPI, which its interior hides; milc: shared memory).
    #[default]
    Auto,
    /// Through the node's shared memory, which the GPUs write and read
    /// themselves, where every rank can (else through MPI).
    Shared,
    /// Read back to the host and swapped by MPI.
    Mpi,
}

impl Halos {
    /// Every route, as the command line names them.
    pub const NAMES: [&'static str; 3] = ["auto", "shared", "mpi"];

    /// Its name on the command line and in records.
    pub fn name(self) -> &'static str {
        Halos::NAMES[self as usize]
    }

    /// A name of [`Halos::NAMES`]; anything else is an error naming them.
    pub fn parse(s: &str) -> std::result::Result<Halos, String> {
        match s {
            "auto" => Ok(Halos::Auto),
            "shared" => Ok(Halos::Shared),
            "mpi" => Ok(Halos::Mpi),
            _ => Err(format!("`{s}` is not a halo route (auto, shared, mpi)")),
        }
    }

    /// This route, or `app`'s where it is [`Halos::Auto`].
    pub fn or(self, app: Halos) -> Halos {
        match self {
            Halos::Auto => app,
            asked => asked,
        }
    }
}

/// Slots of an inbox, used in turn (see the module's doc).
pub const SLOTS: u64 = 2;

/// What an inbox's bytes are rounded up to: a multiple of every device's
/// import alignment (4 KiB on NVIDIA and Mesa).
const ALIGN: u64 = 1 << 16;

/// Mailboxes opened so far in this process: every rank opens them in the
/// same order, so the count names them alike on each.
static OPENED: AtomicU64 = AtomicU64::new(0);

/// A rank's mailboxes across one split axis, as buffers of its GPU.
pub struct Mailboxes {
    /// This rank's inbox ([`SLOTS`] slots of the bytes asked for).
    pub inbox: wgpu::Buffer,
    /// The inbox of the rank below (this rank's own where it is its own
    /// neighbour).
    pub lo: wgpu::Buffer,
    /// The inbox of the rank above.
    pub hi: wgpu::Buffer,
}

/// Opens every rank's mailboxes of [`SLOTS`] slots of `slot` bytes across
/// split axis `axis` where `route` is [`Halos::Shared`], or `None` on every
/// rank where any cannot (each says why in the log). Collective: every
/// rank calls it at the same point, with the same `route`.
pub fn open(
    gpu: &Gpu,
    comm: &dyn Comm,
    route: Halos,
    (axis, slot): (usize, u64),
) -> Result<Option<Mailboxes>> {
    if route != Halos::Shared {
        return Ok(None);
    }
    let able = cfg!(target_os = "linux") && gpu.imports_host();
    let node = node_id();
    let token = match (comm.rank(), able) {
        (0, true) => fresh_token(),
        _ => 0.0,
    };
    let v = comm.max(&[node, -node, token, f64::from(u8::from(!able))])?;
    // Every rank sees the same maximum, so every rank decides alike.
    if v[0] != -v[1] || v[3] != 0.0 {
        log::info!(
            "halos through MPI: the ranks are not all on one node with host-importing devices"
        );
        return Ok(None);
    }
    let seq = OPENED.fetch_add(1, Ordering::Relaxed);
    let name = |rank: usize| format!("/skylight-{:x}-{seq}-{rank}", v[2] as u64);
    let bytes = (SLOTS * slot).next_multiple_of(ALIGN) as usize;
    let me = comm.rank();
    let mine = pages::Shared::create(&name(me), bytes).map(Arc::new);
    if !agree(comm, &mine)? {
        return Ok(None);
    }
    let mine = mine?;
    let (lo, hi) = neighbours(comm, axis)?;
    let open = |r: usize| match r == me {
        true => Ok(mine.clone()),
        false => pages::Shared::open(&name(r), bytes).map(Arc::new),
    };
    let (lo_pages, hi_pages) = (open(lo), open(hi));
    let both = lo_pages.and_then(|l| hi_pages.map(|h| (l, h)));
    // Every rank has mapped what it needs (or failed): the names can go,
    // and the pages stay as long as a mapping does.
    let opened = agree(comm, &both)?;
    mine.unlink();
    if !opened {
        return Ok(None);
    }
    let (lo_pages, hi_pages) = both?;
    let import = |p: &Arc<pages::Shared>, what: &str| -> Result<wgpu::Buffer> {
        let pages: Arc<dyn HostPages> = p.clone();
        gpu.import_host(pages, what)?
            .ok_or_else(|| crate::error::Error::Device("the device imports no host memory".into()))
    };
    let boxes = import(&mine, "halo-inbox").and_then(|inbox| {
        let lo_box = match lo == me {
            true => inbox.clone(),
            false => import(&lo_pages, "halo-inbox-below")?,
        };
        let hi_box = match (hi == me, hi == lo) {
            (true, _) => inbox.clone(),
            (false, true) => lo_box.clone(),
            (false, false) => import(&hi_pages, "halo-inbox-above")?,
        };
        Ok(Mailboxes {
            inbox,
            lo: lo_box,
            hi: hi_box,
        })
    });
    let boxes = agree(comm, &boxes)?.then(|| boxes.ok()).flatten();
    if boxes.is_some() {
        log::info!(
            "halos across split axis {axis} through the node's shared memory ({bytes} bytes an inbox)"
        );
    }
    Ok(boxes)
}

/// Whether `r` is `Ok` on every rank; logs this rank's error. Collective.
fn agree<T>(comm: &dyn Comm, r: &Result<T>) -> Result<bool> {
    if let Err(e) = r {
        log::warn!("halos through MPI: rank {}: {e}", comm.rank());
    }
    Ok(comm.max(&[f64::from(u8::from(r.is_err()))])?[0] == 0.0)
}

/// The ranks below and above this one across split axis `axis`.
fn neighbours(comm: &dyn Comm, axis: usize) -> Result<(usize, usize)> {
    let me = (comm.rank() as u64).to_le_bytes();
    let (mut lo, mut hi) = ([0u8; 8], [0u8; 8]);
    comm.exchange(axis, &me, &me, &mut lo, &mut hi)?;
    Ok((
        u64::from_le_bytes(lo) as usize,
        u64::from_le_bytes(hi) as usize,
    ))
}

/// 52 bits (exact in an f64) of what names this node: its boot (two
/// containers of one kernel share it) and host name.
fn node_id() -> f64 {
    use std::hash::{Hash, Hasher};
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    read("/proc/sys/kernel/random/boot_id").hash(&mut h);
    read("/proc/sys/kernel/hostname").hash(&mut h);
    (h.finish() & ((1 << 52) - 1)) as f64
}

/// 52 bits that name this job's mailboxes apart from any other job's.
fn fresh_token() -> f64 {
    let nanos = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    ((nanos ^ (u64::from(std::process::id()) << 32)) & ((1 << 52) - 1)) as f64
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod pages {
    //! POSIX shared memory, mapped.

    use std::ffi::CString;

    use crate::error::{Error, Result};
    use crate::gpu::HostPages;

    /// A mapping of a named shared-memory object.
    pub struct Shared {
        ptr: *mut u8,
        len: usize,
        /// The name, while this process made it and has not unlinked it.
        owned: std::sync::Mutex<Option<CString>>,
    }

    // SAFETY: the mapping is plain memory, valid until drop; what writes it
    // (the GPUs) is ordered by the halo swap, not by these handles.
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}

    impl Shared {
        /// Makes the object `name` of `len` bytes (it must not exist yet).
        pub fn create(name: &str, len: usize) -> Result<Shared> {
            Shared::map(name, len, true)
        }

        /// Maps the existing object `name`, `len` bytes.
        pub fn open(name: &str, len: usize) -> Result<Shared> {
            Shared::map(name, len, false)
        }

        fn map(name: &str, len: usize, create: bool) -> Result<Shared> {
            let cname = CString::new(name).map_err(|e| Error::Device(e.to_string()))?;
            let fail = |what: &str| {
                Error::Device(format!(
                    "{what} {name}: {}",
                    std::io::Error::last_os_error()
                ))
            };
            let flags = match create {
                true => libc::O_CREAT | libc::O_EXCL | libc::O_RDWR,
                false => libc::O_RDWR,
            };
            // SAFETY: plain libc calls on a descriptor this function owns
            // and closes; the mapping is checked before use.
            unsafe {
                let fd = libc::shm_open(cname.as_ptr(), flags, 0o600);
                if fd < 0 {
                    return Err(fail("shm_open"));
                }
                let owned = create.then(|| cname.clone());
                if create && libc::ftruncate(fd, len as libc::off_t) != 0 {
                    let e = fail("ftruncate");
                    libc::close(fd);
                    libc::shm_unlink(cname.as_ptr());
                    return Err(e);
                }
                let prot = libc::PROT_READ | libc::PROT_WRITE;
                let ptr = libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0);
                libc::close(fd);
                if ptr == libc::MAP_FAILED {
                    let e = fail("mmap");
                    if create {
                        libc::shm_unlink(cname.as_ptr());
                    }
                    return Err(e);
                }
                Ok(Shared {
                    ptr: ptr.cast(),
                    len,
                    owned: std::sync::Mutex::new(owned),
                })
            }
        }

        /// Removes the name this process made (the pages live on while
        /// mapped); nothing for a mapping of another's.
        pub fn unlink(&self) {
            let name = self.owned.lock().ok().and_then(|mut n| n.take());
            if let Some(name) = name {
                // SAFETY: a name this process made and has not removed.
                unsafe { libc::shm_unlink(name.as_ptr()) };
            }
        }
    }

    impl HostPages for Shared {
        fn ptr(&self) -> *mut u8 {
            self.ptr
        }

        fn bytes(&self) -> usize {
            self.len
        }
    }

    impl Drop for Shared {
        fn drop(&mut self) {
            self.unlink();
            // SAFETY: the mapping made in `map`, no longer used: a GPU
            // buffer over it holds this value until the device destroys it.
            unsafe { libc::munmap(self.ptr.cast(), self.len) };
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod pages {
    //! No shared halo memory off Linux: `open` never gets this far.

    use crate::error::{Error, Result};
    use crate::gpu::HostPages;

    /// Never made.
    pub struct Shared;

    impl Shared {
        pub fn create(_name: &str, _len: usize) -> Result<Shared> {
            Err(Error::Device(
                "no shared halo memory on this platform".into(),
            ))
        }

        pub fn open(name: &str, len: usize) -> Result<Shared> {
            Shared::create(name, len)
        }

        pub fn unlink(&self) {}
    }

    impl HostPages for Shared {
        fn ptr(&self) -> *mut u8 {
            std::ptr::null_mut()
        }

        fn bytes(&self) -> usize {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_parse_by_name_and_auto_takes_the_apps() {
        for name in Halos::NAMES {
            assert_eq!(Halos::parse(name).expect(name).name(), name);
        }
        let e = Halos::parse("nvlink").expect_err("no such route");
        assert!(e.contains("auto, shared, mpi"), "{e}");
        assert_eq!(Halos::Auto.or(Halos::Shared), Halos::Shared);
        assert_eq!(Halos::Mpi.or(Halos::Shared), Halos::Mpi);
    }
}
