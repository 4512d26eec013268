//! How a rank's packed halo planes travel to its neighbours (see `halo`):
//! staged through the host and swapped by the [`Comm`] (where the device
//! maps storage buffers, with no copies on the GPU's queue), or through
//! mailboxes in the node's shared memory that the GPUs write and read
//! themselves (`mailbox`). Each route's buffers and bind groups.

use web_time::Instant;

use super::Comm;
use super::mailbox::{Mailboxes, SLOTS};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

/// Workgroup size of the kernel that moves packed planes into host memory
/// (see `halo`'s `HOST_GROUPS`).
const HOST_WG: u32 = 256;

/// How the packed planes travel between ranks.
pub(super) enum Route {
    /// Through the host: read back, swapped by the [`Comm`], uploaded.
    Staged(Staged),
    /// Through mailboxes in the node's shared memory (`mailbox`), which
    /// the GPUs write and read themselves.
    Shared(Shared),
}

/// The buffers of [`Route::Staged`].
pub(super) struct Staged {
    /// Where the device maps storage buffers: the kernel that moves the
    /// packed planes into `readback` (bound to `send` and it).
    pub(super) to_host: Option<(Pipeline, wgpu::BindGroup)>,
    /// One bind group per field: (field i's buffers, what arrived).
    pub(super) unpack_groups: Vec<wgpu::BindGroup>,
    /// What arrived, on the device, where the unpack does not read
    /// `upload` itself (`to_host`: the device maps storage buffers).
    pub(super) recv: Option<wgpu::Buffer>,
    /// Where the packed planes are read back (mapped for the exchange).
    pub(super) readback: wgpu::Buffer,
    /// Where the neighbours' planes arrive, mapped for writing while the
    /// ranks swap, so that MPI receives straight into memory the GPU reads
    /// (no host copy, and no `Queue::write_buffer`, which stages through
    /// fresh memory each time).
    pub(super) upload: wgpu::Buffer,
}

/// The mailboxes of [`Route::Shared`] and what is bound to them, per slot.
pub(super) struct Shared {
    pub(super) boxes: Mailboxes,
    /// The kernel that copies planes between device and host memory: into
    /// the neighbours' inboxes, and from this rank's into device memory.
    pub(super) to_host: Pipeline,
    /// Per slot: (side 0 of `send`, its place in the inbox below) and (side
    /// 1, its place in the inbox above).
    pub(super) to_boxes: Vec<[wgpu::BindGroup; 2]>,
    /// Per slot: (that slot of the inbox, the device memory the planes
    /// that arrived are fetched into before the unpack). The fetch runs
    /// beside work that touches none of the halo's buffers: wgpu orders any
    /// two dispatches that share a buffer one of them writes, so the
    /// unpack, which writes the field the interior reads, cannot.
    pub(super) fetch: Vec<wgpu::BindGroup>,
    /// Per field: (field i's buffers, the fetched planes).
    pub(super) unpack_groups: Vec<wgpu::BindGroup>,
    /// Bytes of a slot.
    pub(super) slot: u64,
    /// Swaps unpacked so far: swap `k` uses slot `k % SLOTS`.
    pub(super) swaps: std::cell::Cell<u64>,
}

impl Shared {
    /// The kernel that moves the planes packed into `send` (side 1 from
    /// byte `hi_at`) into the neighbours' inboxes of `boxes`, bound per
    /// slot, the fetch of each slot of this rank's inbox into device
    /// memory, and the unpack's bind groups that `bind` makes for it.
    pub(super) fn new(
        gpu: &Gpu,
        p: Precision,
        boxes: Mailboxes,
        (send, hi_at): (&wgpu::Buffer, u64),
        bind: impl Fn(wgpu::BindingResource<'_>) -> Vec<wgpu::BindGroup>,
    ) -> Result<Shared> {
        let to_host = to_host_pipeline(gpu, p)?;
        let slot = 2 * hi_at;
        let side = |b, at| range(b, at, hi_at);
        let to_boxes = (0..SLOTS)
            .map(|k| {
                let to =
                    |from, (b, at)| gpu.bind_resources(&to_host, &[side(send, from), side(b, at)]);
                [
                    to(0, (&boxes.lo, k * slot + hi_at)),
                    to(hi_at, (&boxes.hi, k * slot)),
                ]
            })
            .collect();
        let staging = gpu.storage("halo-fetched", slot)?;
        let fetch = (0..SLOTS)
            .map(|k| {
                let from = range(&boxes.inbox, k * slot, slot);
                gpu.bind_resources(&to_host, &[from, staging.as_entire_binding()])
            })
            .collect();
        Ok(Shared {
            unpack_groups: bind(staging.as_entire_binding()),
            boxes,
            to_host,
            to_boxes,
            fetch,
            slot,
            swaps: Default::default(),
        })
    }

    /// The slot of the swap under way.
    pub(super) fn at(&self) -> usize {
        (self.swaps.get() % SLOTS) as usize
    }
}

/// `size` bytes of `buffer` from byte `at`, bound.
pub(super) fn range(buffer: &wgpu::Buffer, at: u64, size: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: at,
        size: std::num::NonZeroU64::new(size),
    })
}

/// A field's buffers, then `planes`: the bindings of the halo kernels.
pub(super) fn with<'b>(
    field: &'b [wgpu::Buffer],
    planes: wgpu::BindingResource<'b>,
) -> Vec<wgpu::BindingResource<'b>> {
    let mut r: Vec<_> = field.iter().map(|b| b.as_entire_binding()).collect();
    r.push(planes);
    r
}

/// The kernel that moves packed planes into host memory (or back).
pub(super) fn to_host_pipeline(gpu: &Gpu, p: Precision) -> Result<Pipeline> {
    let spec = ShaderSpec::new("to-host", sources::TO_HOST, p).with_u32("WG", HOST_WG);
    gpu.pipeline(&spec, "to_host", &[Bind::Read, Bind::ReadWrite])
}

impl Staged {
    /// The host buffers of `bytes` (the device maps them as storage
    /// buffers where it can) for the planes packed into `send`, with the
    /// unpack's bind groups that `bind` makes for the buffer that holds
    /// what arrived.
    pub(super) fn new(
        gpu: &Gpu,
        p: Precision,
        bytes: u64,
        send: &wgpu::Buffer,
        bind: impl FnOnce(&wgpu::Buffer) -> Vec<wgpu::BindGroup>,
    ) -> Result<Staged> {
        let mapped = (gpu.device.features()).contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        use wgpu::BufferUsages as U;
        let host = |label, usage: U| {
            let usage = match mapped {
                true => usage | U::STORAGE,
                false => usage,
            };
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        let readback = host("halo-readback", U::MAP_READ | U::COPY_DST);
        let upload = host("halo-upload", U::MAP_WRITE | U::COPY_SRC);
        let (recv, to_host) = match mapped {
            true => {
                let pipe = to_host_pipeline(gpu, p)?;
                let group = gpu.bind(&pipe, &[send, &readback]);
                (None, Some((pipe, group)))
            }
            false => (Some(gpu.storage("halo-recv", bytes)?), None),
        };
        let unpack_groups = bind(recv.as_ref().unwrap_or(&upload));
        Ok(Staged {
            to_host,
            unpack_groups,
            recv,
            readback,
            upload,
        })
    }

    /// See [`HaloPlanes::exchange`]: `(axis, side bytes, where side 1 starts)`.
    pub(super) async fn exchange(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        done: wgpu::SubmissionIndex,
        (axis, n, hi_at): (usize, usize, u64),
    ) -> Result<(f64, f64)> {
        let t0 = Instant::now();
        // The last upload's copy was submitted before `done`: this map
        // does not wait for the GPU, nor for work submitted after `done`.
        gpu.map_after(&self.upload, wgpu::MapMode::Write, done)
            .await?;
        let t1 = Instant::now();
        {
            let sent = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("halo readback: {e}")))?;
            let mut arrived = self
                .upload
                .get_mapped_range_mut(..)
                .map_err(|e| Error::Device(format!("halo upload: {e}")))?;
            let mut view = arrived.slice(..);
            let len = view.len();
            // SAFETY: the mapped range is `len` bytes, valid and ours alone
            // until the unmap below (`arrived` borrows the buffer until
            // then). wgpu hands mapped writes out as `WriteOnly` because
            // the memory may be write-combined, where reads are slow; a
            // receive buffer is only written by MPI, never read.
            #[allow(unsafe_code)]
            let recv: &mut [u8] =
                unsafe { std::slice::from_raw_parts_mut(view.as_raw_element_ptr().as_ptr(), len) };
            let h = hi_at as usize;
            let (to_lo, to_hi) = (&sent[..n], &sent[h..h + n]);
            let (from_lo, rest) = recv.split_at_mut(h);
            let (from_lo, from_hi) = (&mut from_lo[..n], &mut rest[..n]);
            comm.exchange(axis, to_lo, to_hi, from_lo, from_hi)?;
        }
        self.readback.unmap();
        self.upload.unmap();
        Ok((t1.elapsed().as_secs_f64(), (t1 - t0).as_secs_f64()))
    }
}
