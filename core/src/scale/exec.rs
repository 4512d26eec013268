//! One rank's run as a single stream of GPU work that stops only where
//! the neighbours must be met: a halo swap (its pack and readback recorded
//! after the work before it, its upload and unpack before the work after
//! it) or a sum over the ranks. Each meeting costs one wait for the GPU;
//! recording and waiting per step cost more than the swap itself on the
//! lent GPU machines (docs/notebook/benchmarks.md, scale-out). A sum's
//! wait comes after the work that follows it is recorded (it needs the sum
//! only once submitted), and a sum that nothing reads before the next swap
//! is done at that swap's meeting ([`Op::SumAtSwap`]).
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

use super::clock::{Bank, Clock, Kind, Sums};
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

/// A buffer a real is read back into.
fn readback(gpu: &Gpu, p: Precision) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("scale-sum-readback"),
        size: p.real_bytes(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Runs a rank's ops on its GPU.
pub struct Exec {
    precision: Precision,
    halos: Vec<HaloPlanes>,
    /// The passes between meetings.
    clock: Option<Clock>,
    /// The passes run during a swap.
    side: Option<Bank>,
    during: RefCell<During>,
    /// GPU time of work run during a swap that the host did not hide, to
    /// take from the next wait (it is compute, not transfer).
    leftover_s: Cell<f64>,
    /// Where a summed real is read back.
    scalar: wgpu::Buffer,
    /// Where a real summed at the next swap is read back.
    scalar_at_swap: wgpu::Buffer,
}

/// A submission that ends a stretch: when it was made, and the clock's
/// bank that holds its timestamps.
struct Sent {
    index: wgpu::SubmissionIndex,
    t0: Instant,
    bank: Option<usize>,
}

/// A real to sum over the ranks, read back by a submission made: the sum
/// is done before the next submission, which may read it, so that the work
/// after the sum is recorded while the GPU finishes the work before it.
struct Awaited<'o> {
    sent: Sent,
    buffer: &'o wgpu::Buffer,
    offset: u64,
}

/// A swap's halo and field buffer.
type SwapOf = (usize, usize);

/// The sums a swap meets: one read back before it (see [`Awaited`]), and
/// one left for it ([`Op::SumAtSwap`]: its buffer and offset).
type PendingSums<'o> = (Option<Awaited<'o>>, Option<(&'o wgpu::Buffer, u64)>);

/// A swap's work during it: all of it, and how much goes beside the
/// planes' trip and their fetch (see [`Op::Swap`]).
type DuringOf<'o> = (&'o [usize], usize, usize);

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
            clock: Clock::new(gpu, passes),
            side: Bank::new(gpu, during),
            during: RefCell::default(),
            leftover_s: Cell::new(0.0),
            scalar: readback(gpu, p),
            scalar_at_swap: readback(gpu, p),
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
        let mut awaited: Option<Awaited> = None;
        // A sum left for the next swap's meeting: its buffer and offset.
        let mut at_swap: Option<(&wgpu::Buffer, u64)> = None;
        let unmet = || Error::Device("a sum left for a swap that does not come".into());
        let len = self.precision.real_bytes();
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
                    let (of, work) = ((*halo, *field), (&during[..], *beside, *fetched));
                    let sums = (awaited.take(), at_swap.take());
                    enc = self
                        .swap(gpu, comm, (of, work), (enc, sums), app, t)
                        .await?;
                }
                Op::SumAtSwap(buffer, offset) => {
                    if at_swap.is_some() {
                        return Err(unmet());
                    }
                    enc.copy_buffer_to_buffer(buffer, *offset, &self.scalar_at_swap, 0, len);
                    at_swap = Some((buffer, *offset));
                }
                Op::Sum(buffer, offset) => {
                    if at_swap.is_some() {
                        return Err(unmet());
                    }
                    enc.copy_buffer_to_buffer(buffer, *offset, &self.scalar, 0, len);
                    self.meet(gpu, comm, awaited.take(), t).await?;
                    let sent = self.submit(gpu, std::mem::replace(&mut enc, encoder()));
                    awaited = Some(Awaited {
                        sent,
                        buffer,
                        offset: *offset,
                    });
                }
            }
        }
        self.meet(gpu, comm, awaited.take(), t).await?;
        if at_swap.is_some() {
            return Err(unmet());
        }
        let sent = self.submit(gpu, enc);
        gpu.finish().await?;
        self.settle(gpu, &sent, false, true, t).await
    }

    /// Sums the real `awaited` reads back over the ranks, once its
    /// submission is done.
    async fn meet(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        awaited: Option<Awaited<'_>>,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let Some(a) = awaited else {
            return Ok(());
        };
        gpu.map_after(&self.scalar, wgpu::MapMode::Read, a.sent.index.clone())
            .await?;
        self.settle(gpu, &a.sent, true, true, t).await?;
        self.sum(gpu, comm, &self.scalar, (a.buffer, a.offset), t)
    }

    /// Records the swap of `of`'s halo into `enc` (after the work before
    /// it), with its work `during`, and meets the neighbours (summing first
    /// what `awaited` reads back, then what `at_swap` does); returns the
    /// encoder that holds the fetch and unpack of what arrived, for the work
    /// after.
    async fn swap(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        ((halo, field), (during, beside, fetched)): (SwapOf, DuringOf<'_>),
        (mut enc, (awaited, at_swap)): (wgpu::CommandEncoder, PendingSums<'_>),
        app: &impl Record,
        t: &mut PhaseTimes,
    ) -> Result<wgpu::CommandEncoder> {
        let halo = self.halo(halo)?;
        let (beside, during, fetched) = split_during(halo, during, beside, fetched);
        if beside.is_empty() {
            let copy = self.copy_clock(Kind::CopyDown);
            halo.encode_pack(&mut enc, field, self.ts(Kind::Pack), copy);
        } else {
            let ts = (self.ts(Kind::Pack), self.ts(Kind::Beside));
            halo.encode_pack_beside(&mut enc, field, ts, |pass| {
                for id in beside {
                    app.record(*id, pass);
                }
            });
        }
        self.meet(gpu, comm, awaited, t).await?;
        let sent = self.submit(gpu, enc);
        let packed = halo.sent(gpu, sent.index.clone());
        self.start_during(gpu, app, during, t).await?;
        packed.await?;
        let swapping = Instant::now();
        self.settle(gpu, &sent, true, false, t).await?;
        if let Some(at) = at_swap {
            gpu.map_after(
                &self.scalar_at_swap,
                wgpu::MapMode::Read,
                sent.index.clone(),
            )
            .await?;
            self.sum(gpu, comm, &self.scalar_at_swap, at, t)?;
        }
        let (exchange, write) = halo.exchange(gpu, comm, sent.index).await?;
        t.exchange_s += exchange;
        t.transfer_s += write;
        if !during.is_empty() {
            self.during.borrow_mut().host_from = Some(swapping);
        }
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        if halo.route() == Halos::Shared {
            // The fetch alone is the planes' trip up; beside work, interior
            // compute that hides it.
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
        // A clock reserved is a clock written: none for a copy that is not
        // made.
        let copy = match halo.zero_copy() {
            true => None,
            false => self.copy_clock(Kind::CopyUp),
        };
        halo.encode_unpack(&mut enc, field, copy, self.ts(Kind::Unpack));
        Ok(enc)
    }

    /// Submits `enc` with the resolve of the stretch's timestamps. Handing
    /// the GPU new work ends the host's part of a swap that work ran during.
    fn submit(&self, gpu: &Gpu, mut enc: wgpu::CommandEncoder) -> Sent {
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
        let bank = self.clock.as_ref().map(|c| c.submitted(&index));
        Sent { index, t0, bank }
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

    /// After the wait for submission `sent`: the stretch's timed passes and
    /// copies (the copies are transfer), and the rest of the wait as
    /// transfer when something was read back (`mapped`: the copies where
    /// they are not timed), else compute (submission and completion). With
    /// `side`, also the work of a swap before (its submission is done).
    async fn settle(
        &self,
        gpu: &Gpu,
        sent: &Sent,
        mapped: bool,
        side: bool,
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let wall = sent.t0.elapsed().as_secs_f64();
        let sums = match (&self.clock, sent.bank) {
            (Some(c), Some(bank)) => c.take(gpu, bank).await?,
            _ => Sums::default(),
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

    /// Sums the real mapped in `readback` over the ranks into `buffer` at
    /// `offset`.
    fn sum(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        readback: &wgpu::Buffer,
        (buffer, offset): (&wgpu::Buffer, u64),
        t: &mut PhaseTimes,
    ) -> Result<()> {
        let p = self.precision;
        let mine = {
            let view = readback
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("scalar readback: {e}")))?;
            p.decode(&view)[0]
        };
        readback.unmap();
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
