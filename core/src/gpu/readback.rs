//! Reading buffers back to the host: every buffer of a read is copied into
//! one staging buffer, which is mapped once, and the caller reads the bytes
//! where they are mapped instead of from a copy. The staging buffer can be
//! kept for the next read ([`Staging`]): an output of hundreds of megabytes
//! read once per case would otherwise cost a fresh host allocation (and its
//! page faults) twice per case, for the staging memory and for the copy.

use std::sync::Mutex;

use super::resources;
use crate::error::{Error, Result};

/// Where each buffer of a read starts in the staging buffer: a multiple of
/// this (wgpu maps ranges at multiples of 8 bytes; 256 keeps copies aligned
/// on every backend).
const ALIGN: u64 = 256;

/// A staging buffer kept between reads (taken out while a read uses it).
#[derive(Default)]
pub struct Staging(Mutex<Option<wgpu::Buffer>>);

impl Staging {
    /// Drops the kept buffer (its host memory can be large).
    pub fn clear(&self) {
        if let Ok(mut s) = self.0.lock() {
            *s = None;
        }
    }

    /// The kept buffer if it holds at least `len` bytes, else a new one.
    fn take(&self, device: &wgpu::Device, len: u64) -> wgpu::Buffer {
        let kept = self.0.lock().ok().and_then(|mut s| s.take());
        match kept {
            Some(b) if b.size() >= len => b,
            _ => device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: len,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    fn keep(&self, buffer: wgpu::Buffer) {
        if let Ok(mut s) = self.0.lock() {
            *s = Some(buffer);
        }
    }
}

/// Copies `buffers` to the host and returns `f` of their bytes, read in
/// place from the mapped staging buffer (taken from `staging` and put back
/// when it is given).
pub async fn read_with<T>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    staging: Option<&Staging>,
    buffers: &[&wgpu::Buffer],
    f: impl FnOnce(&[&[u8]]) -> T,
) -> Result<T> {
    let mut starts = Vec::with_capacity(buffers.len());
    let mut len = 0;
    for b in buffers {
        starts.push(len);
        len += b.size().div_ceil(ALIGN) * ALIGN;
    }
    let len = len.max(ALIGN);
    let buffer = match staging {
        Some(s) => s.take(device, len),
        None => Staging::default().take(device, len),
    };
    let mut enc = device.create_command_encoder(&Default::default());
    for (b, &at) in buffers.iter().zip(&starts) {
        enc.copy_buffer_to_buffer(b, 0, &buffer, at, b.size());
    }
    queue.submit([enc.finish()]);
    resources::map_range(device, &buffer, wgpu::MapMode::Read, 0..len).await?;
    let out = {
        let view = buffer
            .get_mapped_range(0..len)
            .map_err(|e| Error::Device(format!("mapped range: {e}")))?;
        let parts: Vec<&[u8]> = buffers
            .iter()
            .zip(&starts)
            .map(|(b, &at)| &view[at as usize..(at + b.size()) as usize])
            .collect();
        f(&parts)
    };
    buffer.unmap();
    if let Some(s) = staging {
        s.keep(buffer);
    }
    Ok(out)
}

/// Copies `buffers` to the host and returns their bytes (owned copies).
pub async fn read_buffers(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffers: &[&wgpu::Buffer],
) -> Result<Vec<Vec<u8>>> {
    read_with(device, queue, None, buffers, owned).await
}

/// Owned copies of the bytes of a read.
pub fn owned(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}
