//! GPU timing: the timestamp query set of a batch of timed runs, where its
//! timestamps are written, and the resolve that turns them into seconds.

use super::device::Gpu;
use crate::error::{Error, Result};
use crate::timing::TimingMethod;

/// Where one run writes its timestamps, as a kernel sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timestamps<'a> {
    /// No timestamps in this run (validation and warm-up runs, or timing
    /// outside the kernel's passes).
    None,
    /// The kernel writes these at the start of its first pass and the end of its last.
    Passes {
        /// The timer's query set.
        set: &'a wgpu::QuerySet,
        /// Index for the start.
        begin: u32,
        /// Index for the end.
        end: u32,
    },
}

impl<'a> Timestamps<'a> {
    /// Timestamp writes for a compute pass that is the `first` and/or `last` of the run.
    pub fn pass(&self, first: bool, last: bool) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        match *self {
            Timestamps::None => None,
            Timestamps::Passes { set, begin, end } if first || last => {
                Some(wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: first.then_some(begin),
                    end_of_pass_write_index: last.then_some(end),
                })
            }
            Timestamps::Passes { .. } => None,
        }
    }
}

/// How runs on `gpu` are timed: timestamps around each run in the encoder
/// where the device has them, else at pass boundaries when the kernel
/// records only compute passes (`pass_timed`), else the host clock.
pub fn method(gpu: &Gpu, pass_timed: bool) -> TimingMethod {
    if gpu.caps.timestamps_in_encoders {
        TimingMethod::GpuTimestampsEncoder
    } else if gpu.caps.timestamps && pass_timed {
        TimingMethod::GpuTimestampsPasses
    } else {
        TimingMethod::WallClock
    }
}

/// The query set and resolve buffer of `samples` timed runs, two timestamps each.
pub struct Timer {
    method: TimingMethod,
    samples: u32,
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
}

impl Timer {
    /// A timer of `samples` runs on `gpu`, timed by `method` (one of the GPU
    /// timestamp methods).
    pub fn new(gpu: &Gpu, method: TimingMethod, samples: u32) -> Timer {
        let count = 2 * samples;
        let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("samples"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps"),
            size: count as u64 * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Timer {
            method,
            samples,
            set,
            resolve,
        }
    }

    /// Records every timed run into `enc` (`run` records one, writing the
    /// timestamps it is given), then the resolve of the timestamps.
    pub fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        run: &dyn Fn(&mut wgpu::CommandEncoder, Timestamps<'_>),
    ) {
        for s in 0..self.samples {
            let (begin, end) = (2 * s, 2 * s + 1);
            if self.method == TimingMethod::GpuTimestampsEncoder {
                enc.write_timestamp(&self.set, begin);
                run(enc, Timestamps::None);
                enc.write_timestamp(&self.set, end);
            } else {
                let ts = Timestamps::Passes {
                    set: &self.set,
                    begin,
                    end,
                };
                run(enc, ts);
            }
        }
        enc.resolve_query_set(&self.set, 0..2 * self.samples, &self.resolve, 0);
    }

    /// The runs' durations in seconds, once the recorded work has been submitted.
    pub async fn read(&self, gpu: &Gpu) -> Result<Vec<f64>> {
        let raw = gpu.read_buffers(&[&self.resolve]).await?;
        let ticks: &[u64] = bytemuck::cast_slice(&raw[0]);
        let period_ns = gpu.queue.get_timestamp_period() as f64;
        ticks
            .chunks_exact(2)
            .map(|pair| {
                if pair[1] <= pair[0] {
                    return Err(Error::Device(format!(
                        "GPU timestamps not increasing ({} then {}): the adapter's timer is unusable",
                        pair[0], pair[1]
                    )));
                }
                Ok((pair[1] - pair[0]) as f64 * period_ns * 1e-9)
            })
            .collect()
    }
}
