//! Poisoning outputs on the device. An output is filled with a pattern
//! (a NaN of the case's precision) before the validation run, so an
//! element the kernel does not write fails. Writing hundreds of megabytes
//! of pattern from the host costs a host copy and fresh staging memory per
//! case; instead the pattern is uploaded once into a small source buffer
//! and copied from it on the device.

use std::sync::Mutex;

use super::resources;

/// Bytes of a pattern's source buffer (a multiple of every pattern's length).
const SOURCE: u64 = 4 << 20;

/// Ranges up to this many bytes are written from the host: a copy saves
/// nothing there, and a source buffer would outweigh them.
const SMALL: u64 = 64 << 10;

/// One device buffer of repetitions per pattern, made on first use.
#[derive(Default)]
pub struct Poisons(Mutex<Vec<(Vec<u8>, wgpu::Buffer)>>);

impl Poisons {
    /// Overwrites `len` bytes of `buf` from `offset` with repetitions of
    /// `pattern` (starting at `offset`). Large aligned ranges are copied on
    /// the device from the pattern's source buffer, submitted at once so
    /// that the fill lands after every write queued before it and before
    /// every later one, as a host write would.
    pub fn fill(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        buf: &wgpu::Buffer,
        offset: u64,
        len: u64,
        pattern: &[u8],
    ) {
        let aligned = (offset | len).is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        let repeats = !pattern.is_empty() && SOURCE.is_multiple_of(pattern.len() as u64);
        if len <= SMALL || !aligned || !repeats {
            resources::poison_range(queue, buf, offset, len, pattern);
            return;
        }
        let source = self.source(device, queue, pattern);
        let mut enc = device.create_command_encoder(&Default::default());
        let mut done = 0;
        while done < len {
            let n = SOURCE.min(len - done);
            enc.copy_buffer_to_buffer(&source, 0, buf, offset + done, n);
            done += n;
        }
        queue.submit([enc.finish()]);
    }

    /// The source buffer of `pattern`, made (and filled from the host) on first use.
    fn source(&self, device: &wgpu::Device, queue: &wgpu::Queue, pattern: &[u8]) -> wgpu::Buffer {
        let mut kept = match self.0.lock() {
            Ok(k) => k,
            Err(e) => e.into_inner(),
        };
        if let Some((_, b)) = kept.iter().find(|(p, _)| p == pattern) {
            return b.clone();
        }
        let b = resources::storage_poisoned(device, queue, "poison", SOURCE, pattern);
        kept.push((pattern.to_vec(), b.clone()));
        b
    }
}
