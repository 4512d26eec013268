//! One rank's run as a single stream of GPU work that stops only where
//! the neighbours must be met: a halo swap (its pack and readback recorded
//! after the work before it, its upload and unpack before the work after
//! it) or a sum over the ranks. Each meeting costs one wait for the GPU;
//! recording and waiting per step cost more than the swap itself on the
//! lent GPU machines (BENCHMARKS.md, scale-out).
//!
//! The phases of [`PhaseTimes`] come from GPU timestamps around every pass
//! where the adapter has them (compute: the app's passes; pack: the halo
//! passes), and from the host clock for the rest of each wait (transfer:
//! copies to and from the host and the waits for them) and the meetings
//! (exchange).

use std::cell::RefCell;

use web_time::Instant;

use super::halo::HaloPlanes;
use super::{Comm, PhaseTimes};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::precision::Precision;

/// One item of a rank's run.
#[derive(Clone, Debug)]
pub enum Op {
    /// The app's dispatches number `id`, in a pass of their own (see [`Record`]).
    Compute(usize),
    /// Fill the halo planes of field buffer `field` of halo `halo` (an
    /// app may swap different things: milc's two projections) from the
    /// neighbours.
    Swap {
        /// Which of the executor's halos.
        halo: usize,
        /// Which of its field buffers.
        field: usize,
    },
    /// Replace the real at byte `offset` of the buffer with its sum over the ranks.
    Sum(wgpu::Buffer, u64),
}

/// How an app records its dispatches for [`Op::Compute`].
pub trait Record {
    /// Records dispatches `id` into `pass`.
    fn record(&self, id: usize, pass: &mut wgpu::ComputePass<'_>);
}

/// What a timed pass counts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Compute,
    Pack,
}

/// The most passes between two meetings that one query set times (WebGPU
/// allows 4096 queries in a set); a longer stretch is timed by the host.
const MAX_PASSES: usize = 2048;

/// GPU timestamps of the passes between two meetings.
struct Clock {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
    kinds: RefCell<Vec<Kind>>,
}

impl Clock {
    /// Room for `passes` passes, or `None` where the adapter has no
    /// timestamps (or there are too many passes).
    fn new(gpu: &Gpu, passes: usize) -> Option<Clock> {
        if !gpu.caps.timestamps || passes == 0 || passes > MAX_PASSES {
            return None;
        }
        let count = 2 * passes as u32;
        let bytes = u64::from(count) * 8;
        let buffer = |label, usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        Some(Clock {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("phase-clock"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolve: buffer("phase-clock-resolve", U::QUERY_RESOLVE | U::COPY_SRC),
            readback: buffer("phase-clock-readback", U::MAP_READ | U::COPY_DST),
            period_ns: f64::from(gpu.queue.get_timestamp_period()),
            kinds: RefCell::default(),
        })
    }

    /// The timestamp writes of the next pass, of `kind`.
    fn pass(&self, kind: Kind) -> wgpu::ComputePassTimestampWrites<'_> {
        let mut kinds = self.kinds.borrow_mut();
        let first = 2 * kinds.len() as u32;
        kinds.push(kind);
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(first),
            end_of_pass_write_index: Some(first + 1),
        }
    }

    /// Records the resolve of this stretch's timestamps and their readback.
    fn encode_resolve(&self, enc: &mut wgpu::CommandEncoder) {
        let n = 2 * self.kinds.borrow().len() as u32;
        if n > 0 {
            enc.resolve_query_set(&self.set, 0..n, &self.resolve, 0);
            enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, u64::from(n) * 8);
        }
    }

    /// After the submission: (compute, pack) seconds of this stretch's
    /// passes; starts the next stretch.
    async fn take(&self, gpu: &Gpu) -> Result<(f64, f64)> {
        let kinds: Vec<Kind> = self.kinds.borrow_mut().drain(..).collect();
        if kinds.is_empty() {
            return Ok((0.0, 0.0));
        }
        gpu.map(&self.readback, wgpu::MapMode::Read).await?;
        let mut sums = (0.0, 0.0);
        {
            let view = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("phase timestamps: {e}")))?;
            let ticks: &[u64] = bytemuck::cast_slice(&view);
            for (kind, pair) in kinds.iter().zip(ticks.chunks_exact(2)) {
                let s = pair[1].saturating_sub(pair[0]) as f64 * self.period_ns * 1e-9;
                match kind {
                    Kind::Compute => sums.0 += s,
                    Kind::Pack => sums.1 += s,
                }
            }
        }
        self.readback.unmap();
        Ok(sums)
    }
}

/// The most passes between two meetings of `ops` (a swap's pack ends a
/// stretch, its unpack starts the next).
fn passes_between_meetings(ops: &[Op]) -> usize {
    let (mut most, mut n) = (0, 0);
    for op in ops {
        match op {
            Op::Compute(_) => n += 1,
            Op::Swap { .. } => {
                most = most.max(n + 1);
                n = 1;
            }
            Op::Sum(..) => {
                most = most.max(n);
                n = 0;
            }
        }
    }
    most.max(n)
}

/// Runs a rank's ops on its GPU.
pub struct Exec {
    precision: Precision,
    halos: Vec<HaloPlanes>,
    clock: Option<Clock>,
    /// Where a summed real is read back.
    scalar: wgpu::Buffer,
}

impl Exec {
    /// An executor for runs of (any of) `ops`, swapping through `halos`.
    pub fn new(gpu: &Gpu, p: Precision, ops: &[&[Op]], halos: Vec<HaloPlanes>) -> Exec {
        let passes = ops.iter().map(|o| passes_between_meetings(o)).max();
        Exec {
            precision: p,
            halos,
            clock: Clock::new(gpu, passes.unwrap_or(0)),
            scalar: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("scale-sum-readback"),
                size: p.real_bytes(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    fn ts(&self, kind: Kind) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.clock.as_ref().map(|c| c.pass(kind))
    }

    /// One run of `ops`, `app` recording the compute; each phase's time
    /// added to `t`. Collective: every rank meets at the same ops.
    pub async fn run(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        ops: &[Op],
        app: &impl Record,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let encoder = || gpu.device.create_command_encoder(&Default::default());
        let mut enc = encoder();
        for op in ops {
            match op {
                Op::Compute(id) => {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("rank"),
                        timestamp_writes: self.ts(Kind::Compute),
                    });
                    app.record(*id, &mut pass);
                }
                Op::Swap { halo, field } => {
                    let halo = self.halos.get(*halo).ok_or_else(|| {
                        Error::Device(format!(
                            "a swap through halo {halo} of {}",
                            self.halos.len()
                        ))
                    })?;
                    halo.encode_pack(&mut enc, *field, self.ts(Kind::Pack));
                    self.meet(gpu, enc, Some(halo.readback()), t).await?;
                    let (exchange, write) = halo.exchange(gpu, comm).await?;
                    t.exchange_s += exchange;
                    t.transfer_s += write;
                    enc = encoder();
                    halo.encode_unpack(&mut enc, *field, self.ts(Kind::Pack));
                }
                Op::Sum(buffer, offset) => {
                    let len = self.precision.real_bytes();
                    enc.copy_buffer_to_buffer(buffer, *offset, &self.scalar, 0, len);
                    self.meet(gpu, enc, Some(&self.scalar), t).await?;
                    self.sum(gpu, comm, buffer, *offset, t)?;
                    enc = encoder();
                }
            }
        }
        self.meet(gpu, enc, None, t).await
    }

    /// Submits `enc` and waits for it (for `mapped` to map, when set); the
    /// wait beyond the stretch's timed passes is transfer when something
    /// was read back, else compute (submission and completion).
    async fn meet(
        &self,
        gpu: &Gpu,
        mut enc: wgpu::CommandEncoder,
        mapped: Option<&wgpu::Buffer>,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        if let Some(c) = &self.clock {
            c.encode_resolve(&mut enc);
        }
        let t0 = Instant::now();
        gpu.queue.submit([enc.finish()]);
        match mapped {
            Some(b) => gpu.map(b, wgpu::MapMode::Read).await?,
            None => gpu.finish().await?,
        }
        let wall = t0.elapsed().as_secs_f64();
        let (compute, pack) = match &self.clock {
            Some(c) => c.take(gpu).await?,
            None => (0.0, 0.0),
        };
        let rest = (wall - compute - pack).max(0.0);
        t.pack_s += pack;
        match mapped {
            Some(_) => {
                t.compute_s += compute;
                t.transfer_s += rest;
            }
            None => t.compute_s += compute + rest,
        }
        Ok(())
    }

    /// Sums the mapped scalar over the ranks into `buffer` at `offset`.
    fn sum(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        buffer: &wgpu::Buffer,
        offset: u64,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let p = self.precision;
        let mine = {
            let view = self
                .scalar
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("scalar readback: {e}")))?;
            p.decode(&view)[0]
        };
        self.scalar.unmap();
        let t0 = Instant::now();
        let total = comm.sum(&[mine])?[0];
        t.exchange_s += t0.elapsed().as_secs_f64();
        // Ordered before the next submission, which reads it.
        gpu.queue.write_buffer(buffer, offset, &p.encode(&[total]));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_ends_one_stretch_and_starts_the_next() {
        let swap = Op::Swap { halo: 0, field: 0 };
        let ops = [Op::Compute(0), Op::Compute(1), swap.clone(), Op::Compute(2)];
        // Two computes and the pack; then the unpack and one compute.
        assert_eq!(passes_between_meetings(&ops), 3);
        assert_eq!(passes_between_meetings(&[swap, Op::Compute(0)]), 2);
        assert_eq!(passes_between_meetings(&[]), 0);
    }
}
