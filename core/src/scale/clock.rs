//! GPU timestamps of a rank's stretches of work (see `exec`): which kind
//! of work each timed pass or copy is, and the query sets they are written
//! to. A stretch (the work between two meetings with the neighbours) is
//! read back once the submission that resolves it is done; the [`Clock`]
//! keeps two sets used by turns, so that the next stretch can be recorded
//! while the last one's timestamps are still on their way.

use std::cell::{Cell, RefCell};

use super::halo::CopyClock;
use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// What a timed stretch of GPU work counts as (its index in [`Sums`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) type Sums = [f64; 6];

/// The most passes that one query set times (WebGPU allows 4096 queries
/// in a set); a longer stretch is timed by the host.
const MAX_PASSES: usize = 2048;

/// GPU timestamps of a stretch of passes, read back after the submission
/// that resolves them.
pub(super) struct Bank {
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
    pub(super) fn new(gpu: &Gpu, passes: usize) -> Option<Bank> {
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
    pub(super) fn pass(&self, kind: Kind) -> wgpu::ComputePassTimestampWrites<'_> {
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
    pub(super) fn encode_resolve(&self, enc: &mut wgpu::CommandEncoder) {
        let n = 2 * self.kinds.borrow().len() as u32;
        if n > 0 {
            enc.resolve_query_set(&self.set, 0..n, &self.resolve, 0);
            enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, u64::from(n) * 8);
        }
    }

    /// Notes the submission that holds [`Bank::encode_resolve`].
    pub(super) fn submitted(&self, index: &wgpu::SubmissionIndex) {
        if !self.kinds.borrow().is_empty() {
            *self.resolved_in.borrow_mut() = Some(index.clone());
        }
    }

    /// Once the resolving submission is done: the seconds of the
    /// stretch's timed work by kind; starts the next stretch. Nothing to
    /// read gives zeros.
    pub(super) async fn take(&self, gpu: &Gpu) -> Result<Sums> {
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

/// Two [`Bank`]s used by turns: the stretch being recorded writes one
/// while the other may wait to be read.
pub(super) struct Clock {
    banks: [Bank; 2],
    /// The bank the stretch being recorded writes.
    at: Cell<usize>,
}

impl Clock {
    /// Room for `passes` timed passes or copies a stretch, or `None` where
    /// the adapter has no timestamps (or there are none or too many).
    pub(super) fn new(gpu: &Gpu, passes: usize) -> Option<Clock> {
        Some(Clock {
            banks: [Bank::new(gpu, passes)?, Bank::new(gpu, passes)?],
            at: Cell::new(0),
        })
    }

    fn bank(&self) -> &Bank {
        &self.banks[self.at.get()]
    }

    /// The timestamp writes of the stretch's next pass, of `kind`.
    pub(super) fn pass(&self, kind: Kind) -> wgpu::ComputePassTimestampWrites<'_> {
        self.bank().pass(kind)
    }

    /// Where to write the timestamps around a copy of `kind` (see [`Bank::copy`]).
    pub(super) fn copy(&self, kind: Kind) -> Option<CopyClock<'_>> {
        self.bank().copy(kind)
    }

    /// Records the resolve of the stretch's timestamps and their readback.
    pub(super) fn encode_resolve(&self, enc: &mut wgpu::CommandEncoder) {
        self.bank().encode_resolve(enc);
    }

    /// Notes the submission that ends the stretch; the next stretch writes
    /// the other bank. Returns the bank to [`Clock::take`] from.
    pub(super) fn submitted(&self, index: &wgpu::SubmissionIndex) -> usize {
        let at = self.at.get();
        self.bank().submitted(index);
        self.at.set(1 - at);
        at
    }

    /// Once its submission is done: the seconds of bank `bank`'s stretch
    /// by kind.
    pub(super) async fn take(&self, gpu: &Gpu, bank: usize) -> Result<Sums> {
        self.banks[bank].take(gpu).await
    }
}
