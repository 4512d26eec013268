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
/// when it is given). Buffers that together pass the device's
/// `max_buffer_size` (a lattice field split over several buffers) are read
/// through several staging buffers, the first of them the kept one.
pub async fn read_with<T>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    staging: Option<&Staging>,
    buffers: &[&wgpu::Buffer],
    f: impl FnOnce(&[&[u8]]) -> T,
) -> Result<T> {
    let sizes: Vec<u64> = buffers.iter().map(|b| b.size()).collect();
    let (bins, place) = bins(&sizes, device.limits().max_buffer_size);
    let fresh = Staging::default();
    let stages: Vec<wgpu::Buffer> = bins
        .iter()
        .enumerate()
        .map(|(i, &len)| match (i, staging) {
            (0, Some(s)) => s.take(device, len),
            _ => fresh.take(device, len),
        })
        .collect();
    let mut enc = device.create_command_encoder(&Default::default());
    for (b, &(bin, at)) in buffers.iter().zip(&place) {
        enc.copy_buffer_to_buffer(b, 0, &stages[bin], at, b.size());
    }
    queue.submit([enc.finish()]);
    for (stage, &len) in stages.iter().zip(&bins) {
        resources::map_range(device, stage, wgpu::MapMode::Read, 0..len).await?;
    }
    let out = {
        let views = stages
            .iter()
            .zip(&bins)
            .map(|(stage, &len)| stage.get_mapped_range(0..len))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::Device(format!("mapped range: {e}")))?;
        let parts: Vec<&[u8]> = buffers
            .iter()
            .zip(&place)
            .map(|(b, &(bin, at))| &views[bin][at as usize..(at + b.size()) as usize])
            .collect();
        f(&parts)
    };
    for (i, stage) in stages.into_iter().enumerate() {
        stage.unmap();
        if let (0, Some(s)) = (i, staging) {
            s.keep(stage);
        }
    }
    Ok(out)
}

/// How buffers of `sizes` bytes are read through staging buffers of at
/// most `max` bytes (where one buffer fits): each staging buffer's length,
/// and each buffer's (staging buffer, start).
fn bins(sizes: &[u64], max: u64) -> (Vec<u64>, Vec<(usize, u64)>) {
    let mut lens: Vec<u64> = vec![0];
    let mut place = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let size = size.div_ceil(ALIGN) * ALIGN;
        let last = lens.len() - 1;
        if lens[last] > 0 && lens[last] + size > max {
            lens.push(0);
        }
        let bin = lens.len() - 1;
        place.push((bin, lens[bin]));
        lens[bin] += size;
    }
    (lens.into_iter().map(|l| l.max(ALIGN)).collect(), place)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_buffer_limit_take_several_staging_buffers() {
        let (lens, place) = bins(&[100, 300], 4096);
        assert_eq!((lens, place), (vec![768], vec![(0, 0), (0, 256)]));
        let (lens, place) = bins(&[1000, 1000, 1000, 10], 2048);
        assert_eq!(lens, vec![2048, 1280]);
        assert_eq!(place, vec![(0, 0), (0, 1024), (1, 0), (1, 1024)]);
        assert_eq!(bins(&[], 2048).0, vec![256]);
    }
}
