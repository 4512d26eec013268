//! Buffers, bind groups and asynchronous mapping on a wgpu device (reading
//! buffers back is [`super::readback`]).
//!
//! Nothing here blocks: results come back through futures. In the browser the
//! event loop fires wgpu's callbacks; natively [`Pump`] polls the device while
//! the future is pending. These are the device-level operations; [`super::Gpu`]
//! adds the adapter's limits and device-loss checks around them.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_channel::oneshot;
use wgpu::util::DeviceExt;

use super::adapter::Capabilities;
use crate::error::{Error, Result};

/// Resolves when the wrapped receiver does, driving the device natively.
struct Pump<'a, T> {
    device: &'a wgpu::Device,
    rx: oneshot::Receiver<T>,
    /// The submission the callback waits for, when known: the fence wait
    /// then ends when it is done, not when the newest submission is (which
    /// may be later work the caller means to overlap with).
    until: Option<wgpu::SubmissionIndex>,
}

impl<T> Future for Pump<'_, T> {
    type Output = Result<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = Pin::new(&mut self.rx).poll(cx) {
            return Poll::Ready(
                v.map_err(|_| Error::Device("callback dropped (device lost?)".into())),
            );
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            // A short bounded wait on the device fence: the executor's thread sleeps
            // in the driver instead of spinning, and the future still yields so
            // other work on the executor proceeds.
            let r = self.device.poll(wgpu::PollType::Wait {
                submission_index: self.until.clone(),
                timeout: Some(std::time::Duration::from_millis(2)),
            });
            if let Err(e) = r
                && !matches!(e, wgpu::PollError::Timeout)
            {
                return Poll::Ready(Err(Error::Device(format!("poll failed: {e}"))));
            }
            cx.waker().wake_by_ref();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = (self.device, &self.until);
        Poll::Pending
    }
}

/// Usage of every storage buffer: bound, copied from and to.
const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// Uploads up to this many bytes are copied by wgpu itself; larger ones
/// in parallel.
const SERIAL_UPLOAD: usize = 1 << 20;

/// A storage buffer holding `bytes` (also a copy source and destination).
/// Large contents are copied into the buffer's mapped staging memory on
/// every core: one thread copies a few gigabytes a second, and inputs run
/// to gigabytes.
pub fn storage_init(device: &wgpu::Device, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
    if bytes.len() <= SERIAL_UPLOAD {
        return Ok(
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: STORAGE,
            }),
        );
    }
    filled(device, label, bytes, STORAGE)
}

/// Writes `bytes` into `buf` at `offset`, as `queue.write_buffer` does,
/// but large writes through a staging buffer filled on every core (and
/// submitted at once, so in order with the writes queued before and after).
pub fn write(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buf: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
) -> Result<()> {
    if bytes.len() <= SERIAL_UPLOAD
        || !(bytes.len() as u64).is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
    {
        queue.write_buffer(buf, offset, bytes);
        return Ok(());
    }
    let usage = wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC;
    let staging = filled(device, "upload", bytes, usage)?;
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&staging, 0, buf, offset, bytes.len() as u64);
    queue.submit([enc.finish()]);
    Ok(())
}

/// A buffer of `usage` holding `bytes` (padded to a multiple of 4 bytes, as
/// wgpu pads its own uploads), filled while mapped at creation, a piece per
/// core: views of disjoint ranges may coexist.
fn filled(
    device: &wgpu::Device,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> Result<wgpu::Buffer> {
    const PIECE: usize = 4 << 20;
    let size = (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
    let buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: true,
    });
    let pieces = bytes
        .chunks(PIECE)
        .enumerate()
        .map(|(k, src)| {
            let at = (k * PIECE) as u64;
            let end = (at + src.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
            let view = buf.get_mapped_range_mut(at..end);
            view.map(|v| (v, src))
                .map_err(|e| Error::Device(format!("mapped range: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    crate::parallel::each(pieces, |(mut dst, src)| {
        dst.slice(..src.len()).copy_from_slice(src)
    });
    buf.unmap();
    Ok(buf)
}

/// An uninitialised storage buffer of `len` bytes.
pub fn storage(device: &wgpu::Device, label: &str, len: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: len,
        usage: STORAGE,
        mapped_at_creation: false,
    })
}

/// A storage buffer of `len` bytes filled with repetitions of `pattern`
/// (the poison that makes an unwritten output element fail validation).
pub fn storage_poisoned(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    len: u64,
    pattern: &[u8],
) -> wgpu::Buffer {
    let buf = storage(device, label, len);
    poison_range(queue, &buf, 0, len, pattern);
    buf
}

/// Overwrites `len` bytes of `buf` from `offset` with repetitions of
/// `pattern`, in bounded chunks.
pub fn poison_range(
    queue: &wgpu::Queue,
    buf: &wgpu::Buffer,
    offset: u64,
    len: u64,
    pattern: &[u8],
) {
    const CHUNK: u64 = 16 << 20;
    let chunk: Vec<u8> = pattern
        .iter()
        .copied()
        .cycle()
        .take(CHUNK.min(len) as usize)
        .collect();
    let mut done = 0;
    while done < len {
        let n = CHUNK.min(len - done) as usize;
        queue.write_buffer(buf, offset + done, &chunk[..n]);
        done += n as u64;
    }
}

/// A uniform buffer holding `bytes`.
pub fn uniform(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

/// Binds `resources` (whole buffers or sub-ranges) in order to a group of `layout`.
pub fn bind_resources(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = resources
        .iter()
        .enumerate()
        .map(|(i, r)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: r.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout,
        entries: &entries,
    })
}

/// `Err(OverLimit)` when one binding of `bytes` would pass the limits in `caps`.
pub fn check_size(caps: &Capabilities, bytes: u64) -> Result<()> {
    if bytes > caps.max_buffer {
        return Err(Error::OverLimit {
            limit: "max_buffer_size",
            needed: bytes,
            max: caps.max_buffer,
        });
    }
    if bytes > caps.max_storage_binding {
        return Err(Error::OverLimit {
            limit: "max_storage_buffer_binding_size",
            needed: bytes,
            max: caps.max_storage_binding,
        });
    }
    Ok(())
}

/// Maps the whole of `buffer` (a MAP_READ or MAP_WRITE buffer) for `mode`
/// and resolves once the mapping is ready.
pub async fn map(device: &wgpu::Device, buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> Result<()> {
    map_range(device, buffer, mode, 0..buffer.size()).await
}

/// Maps `range` of `buffer` for `mode` and resolves once the mapping is ready.
pub async fn map_range(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
    range: std::ops::Range<u64>,
) -> Result<()> {
    map_when(device, buffer, mode, range, None).await
}

/// Maps the whole of `buffer` for `mode`, whose last use on the GPU was
/// in submission `until`: resolves once that submission is done, while
/// later submissions may still run.
pub async fn map_after(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
    until: wgpu::SubmissionIndex,
) -> Result<()> {
    map_when(device, buffer, mode, 0..buffer.size(), Some(until)).await
}

async fn map_when(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
    range: std::ops::Range<u64>,
    until: Option<wgpu::SubmissionIndex>,
) -> Result<()> {
    let (tx, rx) = oneshot::channel();
    buffer.map_async(mode, range, move |r| {
        let _ = tx.send(r);
    });
    Pump { device, rx, until }
        .await?
        .map_err(|e| Error::Device(format!("buffer map failed: {e}")))
}

/// Host pages a storage buffer can be made over ([`super::Gpu::import_host`]):
/// kept mapped until the device has destroyed the buffer, which wgpu does
/// only once no submitted work uses it.
pub trait HostPages: Send + Sync {
    /// The first byte; aligned to the host's page size.
    fn ptr(&self) -> *mut u8;
    /// Bytes mapped from [`HostPages::ptr`].
    fn bytes(&self) -> usize;
}

/// Resolves when submission `index`, the newest so far, is done, even
/// while later ones run: the callback is registered now, before the caller
/// submits more (an `async fn` would register it only when first polled).
pub fn submitted_done<'a>(
    device: &'a wgpu::Device,
    queue: &wgpu::Queue,
    index: wgpu::SubmissionIndex,
) -> impl Future<Output = Result<()>> + 'a {
    work_done(device, queue, Some(index))
}

/// Resolves when `queue` has finished everything submitted so far.
pub async fn finish(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<()> {
    work_done(device, queue, None).await
}

/// Resolves when the work submitted to `queue` so far is done (its newest
/// submission `until`, where known, for the fence wait).
fn work_done<'a>(
    device: &'a wgpu::Device,
    queue: &wgpu::Queue,
    until: Option<wgpu::SubmissionIndex>,
) -> Pump<'a, ()> {
    let (tx, rx) = oneshot::channel();
    queue.on_submitted_work_done(move || {
        let _ = tx.send(());
    });
    Pump { device, rx, until }
}

/// Runs `f` inside validation and out-of-memory error scopes of `device` and
/// turns any captured wgpu error into an [`Error`], so bad sizes or shaders
/// come back as errors instead of a panic or a lost device.
pub async fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let val = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    let val_err = val.pop().await;
    let oom_err = oom.pop().await;
    let out = out?;
    if let Some(e) = oom_err {
        return Err(Error::out_of_memory(e));
    }
    if let Some(e) = val_err {
        return Err(Error::Device(e.to_string()));
    }
    Ok(out)
}
