//! One rank's run as a single stream of GPU work that stops only where
//! the neighbours must be met: a halo swap (its pack and readback recorded
//! after the work before it, its upload and unpack before the work after
//! it) or a sum over the ranks. Each meeting costs one wait for the GPU;
//! recording and waiting per step cost more than the swap itself on the
//! lent GPU machines (docs/notebook/benchmarks.md, scale-out).
//!
//! A swap may carry work to run `during` it (a rank's interior planes,
//! which read no halo): that work is submitted right after the pack, so the
//! GPU computes while the host reads the planes back, swaps them through
//! MPI and writes what arrived; the work after the swap (the boundary
//! planes) waits for the unpack as before.
//!
//! The phases of [`PhaseTimes`] come from GPU timestamps around every pass
//! where the adapter has them (compute: the app's passes; pack and unpack:
//! the halo passes) and around the copies to and from the host where it
//! times inside encoders, and from the host clock for the rest of each wait
//! (transfer: the copies and the waits for them) and the meetings
//! (exchange). Work run during a swap counts as compute (and interior); the
//! part of it that ran while the host swapped is also counted as overlap,
//! so that the phases less the overlap add up to the run.

use std::cell::{Cell, RefCell};

use web_time::Instant;

use super::halo::{CopyClock, HaloPlanes};
use super::{Comm, Halos, PhaseTimes};
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
    /// neighbours, running the dispatches `during` (each in a pass of its
    /// own; they must not read the halo planes) while the planes travel.
    Swap {
        /// Which of the executor's halos.
        halo: usize,
        /// Which of its field buffers.
        field: usize,
        /// Work that overlaps the swap, or none.
        during: Vec<usize>,
        /// How many of `during`'s first items run beside the packed planes'
        /// trip to the host, where the halo moves them with a kernel
        /// ([`HaloPlanes::zero_copy`]): they hide that trip over PCIe, and
        /// the host waits for them before the swap, so they should last
        /// about as long as the trip (lbm sizes a lead slice of its
        /// interior so). Where the planes travel through shared memory, at
        /// least the first goes beside. Elsewhere they run with the rest of
        /// `during`.
        beside: usize,
        /// How many of `during`'s last items wait for the planes to arrive
        /// and run beside their fetch from the inbox into device memory,
        /// where they travel through shared memory
        /// ([`HaloPlanes::encode_fetch_beside`]): they hide that read over
        /// PCIe, and the items between `beside` and these should last as
        /// long as the host's part of the swap, so that the GPU never waits
        /// for it. Elsewhere they run with the rest of `during`.
        fetched: usize,
    },
    /// Replace the real at byte `offset` of the buffer with its sum over the ranks.
    Sum(wgpu::Buffer, u64),
    /// [`Op::Sum`], done when the ranks meet for the next [`Op::Swap`]
    /// (before its work after the swap), so that it costs no wait for the
    /// GPU of its own: nothing before that must read the real, and no other
    /// sum may come between.
    SumAtSwap(wgpu::Buffer, u64),
}

/// How an app records its dispatches for [`Op::Compute`].
pub trait Record {
    /// Records dispatches `id` into `pass`.
    fn record(&self, id: usize, pass: &mut wgpu::ComputePass<'_>);
}

/// What a timed stretch of GPU work counts as (its index in [`Sums`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Compute,
    Pack,
    Unpack,
    CopyDown,
    CopyUp,
    /// The planes' trip to the host beside the first of the work run
    /// during its swap: interior compute, with the trip hidden in it.
    Beside,
}

/// Seconds per [`Kind`].
type Sums = [f64; 6];

/// The most passes that one query set times (WebGPU allows 4096 queries
/// in a set); a longer stretch is timed by the host.
const MAX_PASSES: usize = 2048;

/// GPU timestamps of a stretch of passes, read back after the submission
/// that resolves them.
struct Bank {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
    /// Whether copies are timed too (timestamps inside encoders).
    copies: bool,
    kinds: RefCell<Vec<Kind>>,
    /// The submission that resolved the passes, until they are read.
    resolved_in: RefCell<Option<wgpu::SubmissionIndex>>,
}

impl Bank {
    /// Room for `passes` timed passes or copies, or `None` where the
    /// adapter has no timestamps (or there are none or too many).
    fn new(gpu: &Gpu, passes: usize) -> Option<Bank> {
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
        Some(Bank {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("phase-clock"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolve: buffer("phase-clock-resolve", U::QUERY_RESOLVE | U::COPY_SRC),
            readback: buffer("phase-clock-readback", U::MAP_READ | U::COPY_DST),
            period_ns: f64::from(gpu.queue.get_timestamp_period()),
            copies: gpu.caps.timestamps_in_encoders,
            kinds: RefCell::default(),
            resolved_in: RefCell::default(),
        })
    }

    /// The first of the next pair of queries, which times `kind`.
    fn reserve(&self, kind: Kind) -> u32 {
        let mut kinds = self.kinds.borrow_mut();
        kinds.push(kind);
        2 * (kinds.len() as u32 - 1)
    }

    /// The timestamp writes of the next pass, of `kind`.
    fn pass(&self, kind: Kind) -> wgpu::ComputePassTimestampWrites<'_> {
        let first = self.reserve(kind);
        wgpu::ComputePassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: Some(first),
            end_of_pass_write_index: Some(first + 1),
        }
    }

    /// Where to write the timestamps before and after a copy of `kind`, or
    /// `None` where the adapter cannot time inside an encoder.
    fn copy(&self, kind: Kind) -> Option<CopyClock<'_>> {
        self.copies.then(|| CopyClock {
            set: &self.set,
            first: self.reserve(kind),
        })
    }

    /// Records the resolve of this stretch's timestamps and their readback.
    fn encode_resolve(&self, enc: &mut wgpu::CommandEncoder) {
        let n = 2 * self.kinds.borrow().len() as u32;
        if n > 0 {
            enc.resolve_query_set(&self.set, 0..n, &self.resolve, 0);
            enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, u64::from(n) * 8);
        }
    }

    /// Notes the submission that holds [`Bank::encode_resolve`].
    fn submitted(&self, index: &wgpu::SubmissionIndex) {
        if !self.kinds.borrow().is_empty() {
            *self.resolved_in.borrow_mut() = Some(index.clone());
        }
    }

    /// Once the resolving submission is done: the seconds of the
    /// stretch's timed work by kind; starts the next stretch. Nothing to
    /// read gives zeros.
    async fn take(&self, gpu: &Gpu) -> Result<Sums> {
        let Some(index) = self.resolved_in.borrow_mut().take() else {
            return Ok(Sums::default());
        };
        let kinds: Vec<Kind> = self.kinds.borrow_mut().drain(..).collect();
        gpu.map_after(&self.readback, wgpu::MapMode::Read, index)
            .await?;
        let mut sums = Sums::default();
        {
            let view = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("phase timestamps: {e}")))?;
            let ticks: &[u64] = bytemuck::cast_slice(&view);
            for (kind, pair) in kinds.iter().zip(ticks.chunks_exact(2)) {
                sums[*kind as usize] +=
                    pair[1].saturating_sub(pair[0]) as f64 * self.period_ns * 1e-9;
            }
        }
        self.readback.unmap();
        Ok(sums)
    }
}

/// The most timed passes and copies between two meetings of `ops` (a
/// swap's pack and copy down, or pack and pass beside, end a stretch; its
/// fetch, copy up and unpack start the next), and the most passes run
/// during a swap.
fn passes_between_meetings(ops: &[Op]) -> (usize, usize) {
    let (mut most, mut n, mut during_most) = (0, 0, 0);
    for op in ops {
        match op {
            Op::Compute(_) => n += 1,
            Op::Swap { during, .. } => {
                most = most.max(n + 2);
                n = 3;
                during_most = during_most.max(during.len());
            }
            Op::Sum(..) => {
                most = most.max(n);
                n = 0;
            }
            Op::SumAtSwap(..) => {}
        }
    }
    (most.max(n), during_most)
}

/// A swap's `during` work in three: what goes beside the planes' trip to
/// the host, what runs while the host swaps, and what goes beside their
/// fetch from the inbox (see [`Op::Swap`]), as `halo`'s route allows.
fn split_during<'d>(
    halo: &HaloPlanes,
    during: &'d [usize],
    beside: usize,
    fetched: usize,
) -> (&'d [usize], &'d [usize], &'d [usize]) {
    let shared = halo.route() == Halos::Shared;
    // Through shared memory the host waits only to say the planes are
    // written, and the unpack runs after the interior all the same: the
    // first stretch of it always goes beside the planes' trip.
    let n = match (shared, halo.zero_copy()) {
        (true, _) => beside.max(1),
        (false, true) => beside,
        (false, false) => 0,
    }
    .min(during.len());
    let f = match shared {
        true => fetched.min(during.len() - n),
        false => 0,
    };
    let (beside, rest) = during.split_at(n);
    let (during, fetched) = rest.split_at(rest.len() - f);
    (beside, during, fetched)
}

/// Work submitted during a swap, until its timestamps are read: when the
/// host started swapping (the GPU then runs it) and for how long.
#[derive(Default)]
struct During {
    host_from: Option<Instant>,
    host_s: f64,
}

/// Runs a rank's ops on its GPU.
pub struct Exec {
    precision: Precision,
    halos: Vec<HaloPlanes>,
    /// The passes between meetings.
    clock: Option<Bank>,
    /// The passes run during a swap.
    side: Option<Bank>,
    during: RefCell<During>,
    /// GPU time of work run during a swap that the host did not hide, to
    /// take from the next wait (it is compute, not transfer).
    leftover_s: Cell<f64>,
    /// Where a summed real is read back.
    scalar: wgpu::Buffer,
}

impl Exec {
    /// An executor for runs of (any of) `ops`, swapping through `halos`.
    pub fn new(gpu: &Gpu, p: Precision, ops: &[&[Op]], halos: Vec<HaloPlanes>) -> Exec {
        let (passes, during) = ops
            .iter()
            .map(|o| passes_between_meetings(o))
            .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        Exec {
            precision: p,
            halos,
            clock: Bank::new(gpu, passes),
            side: Bank::new(gpu, during),
            during: RefCell::default(),
            leftover_s: Cell::new(0.0),
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

    fn copy_clock(&self, kind: Kind) -> Option<CopyClock<'_>> {
        self.clock.as_ref().and_then(|c| c.copy(kind))
    }

    /// How this rank's halos travel: shared memory where all of them do,
    /// else MPI.
    pub fn route(&self) -> Halos {
        match !self.halos.is_empty() && self.halos.iter().all(|h| h.route() == Halos::Shared) {
            true => Halos::Shared,
            false => Halos::Mpi,
        }
    }

    fn halo(&self, halo: usize) -> Result<&HaloPlanes> {
        self.halos.get(halo).ok_or_else(|| {
            Error::Device(format!(
                "a swap through halo {halo} of {}",
                self.halos.len()
            ))
        })
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
        // A sum left for the next swap's meeting: its buffer and offset.
        let mut pending: Option<(&wgpu::Buffer, u64)> = None;
        let unmet = || Error::Device("a sum left for a swap that does not come".into());
        for op in ops {
            match op {
                Op::Compute(id) => {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("rank"),
                        timestamp_writes: self.ts(Kind::Compute),
                    });
                    app.record(*id, &mut pass);
                }
                Op::Swap {
                    halo,
                    field,
                    during,
                    beside,
                    fetched,
                } => {
                    let halo = self.halo(*halo)?;
                    let (beside, during, fetched) = split_during(halo, during, *beside, *fetched);
                    if beside.is_empty() {
                        let copy = self.copy_clock(Kind::CopyDown);
                        halo.encode_pack(&mut enc, *field, self.ts(Kind::Pack), copy);
                    } else {
                        let ts = (self.ts(Kind::Pack), self.ts(Kind::Beside));
                        halo.encode_pack_beside(&mut enc, *field, ts, |pass| {
                            for id in beside {
                                app.record(*id, pass);
                            }
                        });
                    }
                    let (sent, t0) = self.submit(gpu, enc);
                    let packed = halo.sent(gpu, sent.clone());
                    self.start_during(gpu, app, during, t).await?;
                    packed.await?;
                    let swapping = Instant::now();
                    self.settle(gpu, t0, true, false, t).await?;
                    if let Some((buffer, offset)) = pending.take() {
                        gpu.map_after(&self.scalar, wgpu::MapMode::Read, sent.clone())
                            .await?;
                        self.sum(gpu, comm, buffer, offset, t)?;
                    }
                    let (exchange, write) = halo.exchange(gpu, comm, sent).await?;
                    t.exchange_s += exchange;
                    t.transfer_s += write;
                    if !during.is_empty() {
                        self.during.borrow_mut().host_from = Some(swapping);
                    }
                    enc = encoder();
                    if halo.route() == Halos::Shared {
                        // The fetch alone is the planes' trip up; beside
                        // work, interior compute that hides it.
                        let kind = match fetched.is_empty() {
                            true => Kind::CopyUp,
                            false => Kind::Beside,
                        };
                        halo.encode_fetch_beside(&mut enc, self.ts(kind), |pass| {
                            for id in fetched {
                                app.record(*id, pass);
                            }
                        });
                    }
                    // A clock reserved is a clock written: none for a copy
                    // that is not made.
                    let copy = match halo.zero_copy() {
                        true => None,
                        false => self.copy_clock(Kind::CopyUp),
                    };
                    halo.encode_unpack(&mut enc, *field, copy, self.ts(Kind::Unpack));
                }
                Op::SumAtSwap(buffer, offset) => {
                    if pending.is_some() {
                        return Err(unmet());
                    }
                    let len = self.precision.real_bytes();
                    enc.copy_buffer_to_buffer(buffer, *offset, &self.scalar, 0, len);
                    pending = Some((buffer, *offset));
                }
                Op::Sum(buffer, offset) => {
                    if pending.is_some() {
                        return Err(unmet());
                    }
                    let len = self.precision.real_bytes();
                    enc.copy_buffer_to_buffer(buffer, *offset, &self.scalar, 0, len);
                    let (sent, t0) = self.submit(gpu, enc);
                    gpu.map_after(&self.scalar, wgpu::MapMode::Read, sent)
                        .await?;
                    self.settle(gpu, t0, true, true, t).await?;
                    self.sum(gpu, comm, buffer, *offset, t)?;
                    enc = encoder();
                }
            }
        }
        if pending.is_some() {
            return Err(unmet());
        }
        let (_, t0) = self.submit(gpu, enc);
        gpu.finish().await?;
        self.settle(gpu, t0, false, true, t).await
    }

    /// Submits `enc` with the resolve of the stretch's timestamps; returns
    /// the submission and when it was made. Handing the GPU new work ends
    /// the host's part of a swap that work ran during.
    fn submit(&self, gpu: &Gpu, mut enc: wgpu::CommandEncoder) -> (wgpu::SubmissionIndex, Instant) {
        if let Some(c) = &self.clock {
            c.encode_resolve(&mut enc);
        }
        {
            let mut d = self.during.borrow_mut();
            if let Some(from) = d.host_from.take() {
                d.host_s = from.elapsed().as_secs_f64();
            }
        }
        let t0 = Instant::now();
        let index = gpu.queue.submit([enc.finish()]);
        if let Some(c) = &self.clock {
            c.submitted(&index);
        }
        (index, t0)
    }

    /// Submits the work `during` a swap, each id in a timed pass of its
    /// own, after reading the timestamps of the last swap's (whose bank
    /// this one reuses).
    async fn start_during(
        &self,
        gpu: &Gpu,
        app: &impl Record,
        during: &[usize],
        t: &mut PhaseTimes,
    ) -> Result<()> {
        if during.is_empty() {
            return Ok(());
        }
        self.take_side(gpu, t).await?;
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for id in during {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("rank-during-swap"),
                timestamp_writes: self.side.as_ref().map(|s| s.pass(Kind::Compute)),
            });
            app.record(*id, &mut pass);
        }
        if let Some(s) = &self.side {
            s.encode_resolve(&mut enc);
        }
        let index = gpu.queue.submit([enc.finish()]);
        if let Some(s) = &self.side {
            s.submitted(&index);
        }
        Ok(())
    }

    /// Reads the timestamps of the work run during the last swap (once its
    /// submission is done): compute, and the part of it the host's swap
    /// hid as overlap; the rest shows in a wait for the GPU.
    async fn take_side(&self, gpu: &Gpu, t: &mut PhaseTimes) -> Result<()> {
        let Some(side) = &self.side else {
            return Ok(());
        };
        let compute = side.take(gpu).await?[Kind::Compute as usize];
        let host = std::mem::take(&mut self.during.borrow_mut().host_s);
        let hidden = compute.min(host);
        t.compute_s += compute;
        t.interior_s += compute;
        t.overlap_s += hidden;
        self.leftover_s
            .set(self.leftover_s.get() + compute - hidden);
        Ok(())
    }

    /// After the wait for the submission made at `t0`: the stretch's timed
    /// passes and copies (the copies are transfer), and the rest of the
    /// wait as transfer when something was read back (`mapped`: the copies
    /// where they are not timed), else compute (submission and completion).
    /// With `side`, also the work of a swap before (its submission is done).
    async fn settle(
        &self,
        gpu: &Gpu,
        t0: Instant,
        mapped: bool,
        side: bool,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let wall = t0.elapsed().as_secs_f64();
        let sums = match &self.clock {
            Some(c) => c.take(gpu).await?,
            None => Sums::default(),
        };
        if side {
            self.take_side(gpu, t).await?;
        }
        let [compute, pack, unpack, down, up, beside] = sums;
        let timed = compute + pack + unpack + down + up + beside;
        let rest = (wall - timed - self.leftover_s.replace(0.0)).max(0.0);
        t.compute_s += beside;
        t.interior_s += beside;
        t.pack_s += pack + unpack;
        t.unpack_s += unpack;
        t.transfer_s += down + up;
        t.copy_down_s += down;
        t.copy_up_s += up;
        match mapped {
            true => {
                t.compute_s += compute;
                t.transfer_s += rest;
            }
            false => t.compute_s += compute + rest,
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
        let swap = |during: Vec<usize>| Op::Swap {
            halo: 0,
            field: 0,
            during,
            beside: 1,
            fetched: 1,
        };
        let ops = [Op::Compute(0), Op::Compute(1), swap(vec![]), Op::Compute(2)];
        // Two computes, the pack and its copy; then the fetch, the copy up,
        // the unpack and one compute.
        assert_eq!(passes_between_meetings(&ops), (4, 0));
        assert_eq!(
            passes_between_meetings(&[swap(vec![]), Op::Compute(0)]),
            (4, 0)
        );
        assert_eq!(passes_between_meetings(&[]), (0, 0));
        // Work during a swap is timed apart, in passes of its own; between
        // the meetings: the fetch, the copy up, the unpack, one compute, the
        // next pack and its copy.
        let ops = [
            Op::Compute(0),
            swap(vec![1, 2]),
            Op::Compute(3),
            swap(vec![4]),
        ];
        assert_eq!(passes_between_meetings(&ops), (6, 2));
    }
}
