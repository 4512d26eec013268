//! GPU timing: the timestamp query set of a batch of timed runs, where its
//! timestamps are written, and the resolve that turns them into seconds.

use super::adapter::Capabilities;
use super::device::Gpu;
use crate::timing::TimingMethod;

/// Where one run writes its timestamps, as a kernel sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timestamps<'a> {
    /// No timestamps in this run (validation and warm-up runs, or timing
    /// outside the kernel's passes).
    None,
    /// The kernel writes these at the start of its first pass and the end
    /// of its last (a run inside a timed batch writes only one, or none).
    Passes {
        /// The timer's query set.
        set: &'a wgpu::QuerySet,
        /// Index for the start, if this run starts the interval.
        begin: Option<u32>,
        /// Index for the end, if this run ends the interval.
        end: Option<u32>,
    },
}

impl<'a> Timestamps<'a> {
    /// What run `run` of `runs` back-to-back runs timed as one interval
    /// writes: the first run the start, the last the end.
    pub fn run(self, run: u32, runs: u32) -> Timestamps<'a> {
        match self {
            Timestamps::None => Timestamps::None,
            Timestamps::Passes { set, begin, end } => {
                let (begin, end) = run_writes(begin, end, run, runs);
                Timestamps::Passes { set, begin, end }
            }
        }
    }

    /// Timestamp writes for a compute pass that is the `first` and/or `last` of the run.
    pub fn pass(&self, first: bool, last: bool) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        match *self {
            Timestamps::None => None,
            Timestamps::Passes { set, begin, end } => {
                let begin = begin.filter(|_| first);
                let end = end.filter(|_| last);
                (begin.is_some() || end.is_some()).then_some(wgpu::ComputePassTimestampWrites {
                    query_set: set,
                    beginning_of_pass_write_index: begin,
                    end_of_pass_write_index: end,
                })
            }
        }
    }
}

/// The (start, end) timestamp indices run `run` of `runs` writes of an
/// interval's `begin` and `end`.
fn run_writes(
    begin: Option<u32>,
    end: Option<u32>,
    run: u32,
    runs: u32,
) -> (Option<u32>, Option<u32>) {
    (begin.filter(|_| run == 0), end.filter(|_| run + 1 == runs))
}

/// How runs on `gpu` are timed: at the start of a run's first compute
/// pass and the end of its last when the kernel records only compute
/// passes (`pass_timed`), else timestamps around the run in the encoder
/// where the device has them, else the host clock.
///
/// Pass timestamps come first because wgpu resets an encoder timestamp's
/// query just before writing it (it cannot defer that reset), so the end
/// of an encoder interval also times a query-pool reset after the run's
/// last dispatch; a pass's queries are reset before the pass begins. On
/// an H100 through Vulkan that reset made every interval 4.5-6 us longer:
/// a 2 us copy timed 8.9 us, 4.4 us with pass timestamps (docs/notebook/benchmarks.md,
/// 2026-11-27 n).
pub fn method(gpu: &Gpu, pass_timed: bool) -> TimingMethod {
    method_for(&gpu.caps, pass_timed)
}

/// [`method`] on a device with capabilities `caps`: the choice follows the
/// features the adapter reports, never the OS or backend (Metal on Apple
/// GPUs reports pass timestamps but none in encoders).
pub(crate) fn method_for(caps: &Capabilities, pass_timed: bool) -> TimingMethod {
    choose(caps.timestamps, caps.timestamps_in_encoders, pass_timed)
}

/// [`method`] from the device's timestamp features and the kernel's passes.
fn choose(timestamps: bool, in_encoders: bool, pass_timed: bool) -> TimingMethod {
    if timestamps && pass_timed {
        TimingMethod::GpuTimestampsPasses
    } else if in_encoders {
        TimingMethod::GpuTimestampsEncoder
    } else {
        TimingMethod::WallClock
    }
}

/// The timestamp query set of `intervals` timed intervals (runs, or
/// passes), two timestamps each, and the buffer they are resolved into.
pub struct Timer {
    intervals: u32,
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f64,
}

impl Timer {
    /// A timer of `intervals` intervals on `gpu`.
    pub fn new(gpu: &Gpu, intervals: u32) -> Timer {
        let count = 2 * intervals;
        let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timer"),
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
            intervals,
            set,
            resolve,
            period_ns: gpu.queue.get_timestamp_period() as f64,
        }
    }

    /// Interval `i` as compute passes time it: at the start of the first
    /// pass and the end of the last.
    pub fn passes(&self, i: u32) -> Timestamps<'_> {
        Timestamps::Passes {
            set: &self.set,
            begin: Some(2 * i),
            end: Some(2 * i + 1),
        }
    }

    /// Interval `i` around what `run` records into `enc` (timestamps in the
    /// encoder, `TIMESTAMP_QUERY_INSIDE_ENCODERS`).
    pub fn around(
        &self,
        enc: &mut wgpu::CommandEncoder,
        i: u32,
        run: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        enc.write_timestamp(&self.set, 2 * i);
        run(enc);
        enc.write_timestamp(&self.set, 2 * i + 1);
    }

    /// Records the resolve of every timestamp into [`Timer::buffer`].
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        enc.resolve_query_set(&self.set, 0..2 * self.intervals, &self.resolve, 0);
    }

    /// The buffer the timestamps are resolved into (read it back after the
    /// resolve has run).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.resolve
    }

    /// The (start, end) ticks of every interval, from the resolved buffer's bytes.
    pub fn ticks(raw: &[u8]) -> Vec<[u64; 2]> {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(raw);
        ticks.chunks_exact(2).map(|p| [p[0], p[1]]).collect()
    }

    /// `ticks` of this device's timer in seconds.
    pub fn seconds(&self, ticks: u64) -> f64 {
        ticks as f64 * self.period_ns * 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In a timed batch the first run writes the start, the last the end,
    /// the runs between neither; a lone run writes both.
    #[test]
    fn a_batch_of_runs_is_timed_from_its_first_to_its_last() {
        let (b, e) = (Some(4), Some(5));
        assert_eq!(run_writes(b, e, 0, 1), (b, e));
        assert_eq!(run_writes(b, e, 0, 3), (b, None));
        assert_eq!(run_writes(b, e, 1, 3), (None, None));
        assert_eq!(run_writes(b, e, 2, 3), (None, e));
        assert_eq!(run_writes(None, e, 0, 1), (None, e));
    }

    /// Pass timestamps wherever the kernel is all compute passes; the
    /// encoder's only for a kernel that is not; the host clock without
    /// timestamps (or without pass timestamps for a kernel that needs the
    /// encoder's).
    #[test]
    fn pass_timestamps_come_first() {
        use TimingMethod::*;
        assert_eq!(choose(true, true, true), GpuTimestampsPasses);
        assert_eq!(choose(true, false, true), GpuTimestampsPasses);
        assert_eq!(choose(true, true, false), GpuTimestampsEncoder);
        assert_eq!(choose(true, false, false), WallClock);
        assert_eq!(choose(false, false, true), WallClock);
    }
}
