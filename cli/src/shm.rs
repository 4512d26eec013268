//! Halo swaps between the ranks of one node through an MPI-3 shared-memory
//! window: each rank copies its outgoing planes into its own segment of the
//! window, the ranks meet at a barrier, and each copies its neighbours'
//! planes straight out of their segments, every copy spread over several
//! threads. MPI's own path moves a message with one thread (Open MPI's
//! vader, CMA included, reached 4-5 GB/s a rank on the lent H200 machines,
//! where the swap, not the GPU, set the time of a scaled run; BENCHMARKS
//! (s)), so on one node the copies go wide instead.
//!
//! Each segment holds two swaps' planes, used in turn: a rank writes a
//! segment half only after the barrier of the swap between, which every
//! neighbour reaches only once done reading that half, so one barrier a
//! swap suffices.

#![allow(unsafe_code)]

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Copies shorter than this stay on one thread.
const WIDE_BYTES: usize = 1 << 20;

/// The most threads one rank's copy takes.
const MAX_THREADS: usize = 8;

/// Whether the ranks of `world` may swap through shared memory: all on one
/// node, unless `SKYLIGHT_HALO_TRANSPORT=mpi` asks for MPI's own path.
pub fn wanted(world: &SimpleCommunicator) -> Option<SimpleCommunicator> {
    if std::env::var("SKYLIGHT_HALO_TRANSPORT").as_deref() == Ok("mpi") {
        return None;
    }
    let node = world.split_shared(world.rank());
    (node.size() == world.size()).then_some(node)
}

/// A shared window and where each rank's segment is mapped here.
struct Window {
    win: ffi::MPI_Win,
    /// Bytes of one swap's planes (both sides) a segment half holds.
    half: usize,
    /// Each rank's segment, in this process's address space.
    bases: Vec<*mut u8>,
}

/// The shared-memory swap of one node's ranks (see the module).
pub struct Shm {
    /// The node's ranks, numbered as in the world.
    node: SimpleCommunicator,
    window: Cell<Option<Window>>,
    /// Which half of the segments the next swap uses.
    parity: Cell<usize>,
    threads: usize,
}

impl Shm {
    /// Swaps among the ranks of `node` (numbered as the world's).
    pub fn new(node: SimpleCommunicator) -> Shm {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (cores / node.size().max(1) as usize).clamp(1, MAX_THREADS);
        Shm {
            node,
            window: Cell::new(None),
            parity: Cell::new(0),
            threads,
        }
    }

    /// The periodic swap with ranks `lo` and `hi` (see `Comm::exchange`).
    /// Collective over the node, whose every rank swaps as many bytes.
    pub fn exchange(
        &self,
        (lo, hi): (i32, i32),
        to_lo: &[u8],
        to_hi: &[u8],
        from_lo: &mut [u8],
        from_hi: &mut [u8],
    ) {
        let len = to_lo.len();
        let w = self.window_for(2 * len);
        let parity = self.parity.get();
        self.parity.set(1 - parity);
        let at = |rank: i32, side: usize| {
            // SAFETY: every segment holds two halves of `w.half >= 2 len`
            // bytes; `side` is 0 or 1, so the range ends inside it.
            unsafe { w.bases[rank as usize].add(parity * w.half + side * len) }
        };
        let me = self.node.rank();
        // SAFETY: this rank's own segment half is written by it alone, and
        // no neighbour reads it until after the barrier below.
        unsafe {
            self.copy(to_lo.as_ptr(), at(me, 0), len);
            self.copy(to_hi.as_ptr(), at(me, 1), len);
        }
        // SAFETY: a window of this node's ranks, in a passive epoch (see
        // `window_for`); the syncs order the copies around the barrier.
        unsafe {
            ffi::MPI_Win_sync(w.win);
            ffi::MPI_Barrier(self.node.as_raw());
            ffi::MPI_Win_sync(w.win);
        }
        // SAFETY: the neighbours finished writing these halves before the
        // barrier and write them again only after the next one.
        unsafe {
            self.copy(at(lo, 1), from_lo.as_mut_ptr(), len);
            self.copy(at(hi, 0), from_hi.as_mut_ptr(), len);
        }
        self.window.set(Some(w));
    }

    /// The window, (re)made collectively when its halves are smaller than
    /// `half` bytes (every rank asks for the same sizes in turn).
    fn window_for(&self, half: usize) -> Window {
        match self.window.take() {
            Some(w) if w.half >= half => return w,
            Some(w) => free(w),
            None => {}
        }
        let size = self.node.size() as usize;
        let mut base: *mut c_void = ptr::null_mut();
        // SAFETY: MPI's null window, a constant; MPI replaces it.
        let mut win = unsafe { ffi::RSMPI_WIN_NULL };
        // SAFETY: collective over the node communicator; MPI writes the
        // window handle and this rank's base address.
        unsafe {
            ffi::MPI_Win_allocate_shared(
                (2 * half) as ffi::MPI_Aint,
                1,
                ffi::RSMPI_INFO_NULL,
                self.node.as_raw(),
                (&mut base as *mut *mut c_void).cast(),
                &mut win,
            );
            ffi::MPI_Win_lock_all(ffi::MPI_MODE_NOCHECK as i32, win);
        }
        let bases = (0..size as i32)
            .map(|r| {
                let (mut bytes, mut unit) = (0 as ffi::MPI_Aint, 0);
                let mut at: *mut c_void = ptr::null_mut();
                // SAFETY: a rank of the window; MPI writes its segment's
                // size, unit and address in this process.
                unsafe {
                    ffi::MPI_Win_shared_query(
                        win,
                        r,
                        &mut bytes,
                        &mut unit,
                        (&mut at as *mut *mut c_void).cast(),
                    );
                }
                at.cast::<u8>()
            })
            .collect();
        self.parity.set(0);
        Window { win, half, bases }
    }

    /// Copies `len` bytes from `src` to `dst` (not overlapping), over
    /// several threads when long.
    ///
    /// # Safety
    /// Both ranges are valid for `len` bytes and not written by anyone
    /// else during the copy.
    unsafe fn copy(&self, src: *const u8, dst: *mut u8, len: usize) {
        let threads = match len >= WIDE_BYTES {
            true => self.threads,
            false => 1,
        };
        let piece = len.div_ceil(threads);
        // Raw pointers are not Send; their addresses are.
        let (src, dst) = (src as usize, dst as usize);
        std::thread::scope(|s| {
            for k in 1..threads {
                let start = (k * piece).min(len);
                let n = piece.min(len - start);
                // SAFETY: disjoint pieces of the caller's valid ranges.
                s.spawn(move || unsafe {
                    ptr::copy_nonoverlapping(
                        (src + start) as *const u8,
                        (dst + start) as *mut u8,
                        n,
                    )
                });
            }
            // SAFETY: the first piece, likewise.
            unsafe { ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, piece.min(len)) };
        });
    }
}

impl Drop for Shm {
    fn drop(&mut self) {
        if let Some(w) = self.window.take() {
            free(w);
        }
    }
}

/// Ends the window's epoch and frees it (collective over the node).
fn free(mut w: Window) {
    // SAFETY: a window made by `window_for`, in its passive epoch.
    unsafe {
        ffi::MPI_Win_unlock_all(w.win);
        ffi::MPI_Win_free(&mut w.win);
    }
}
