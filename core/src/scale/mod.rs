//! Scale-out: a lattice app split over ranks (one per GPU), each rank
//! holding a slab (or, on a grid of ranks, a box) plus halo planes that it
//! swaps with its neighbours every step. The core knows no MPI: [`plan`] is
//! the pure decomposition, [`fields`] moves fields between the global
//! lattice and the ranks' boxes, [`part`] names a box's interior and
//! boundary, [`Comm`] is what a rank needs from its communicator (the MPI
//! glue lives behind the cli's `mpi` feature, and [`SelfComm`] is the
//! one-rank case), [`halo`] packs and unpacks the halo planes on the GPU,
//! `route` moves them between ranks (through the host and the [`Comm`], or
//! through [`mailbox`]es in the node's shared memory), [`exec`] runs a rank's work with its swaps (the interior during them)
//! and [`curves`] turns the records into scaling curves.

mod clock;
pub mod curves;
pub mod exec;
pub mod fields;
pub mod halo;
pub mod mailbox;
pub mod part;
pub mod plan;
mod route;

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

pub use mailbox::Halos;
pub use part::Part;
pub use plan::{Along, DecompError, Decomposition, NoGrid, Scaling, SecondAxis, square_grid};

use web_time::Instant;

use crate::app::Case;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::record::ResultRecord;
use crate::runner::RunOptions;

/// What a rank needs from its communicator. Every method is collective:
/// every rank calls it, in the same order.
pub trait Comm {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// The periodic halo swap along split axis `axis` (0: the slowest, 1:
    /// the second; see [`Decomposition::neighbours_along`]): `to_lo` goes
    /// to the rank below and arrives there as its `from_hi`; `to_hi` goes to
    /// the rank above and arrives as its `from_lo`. All four have the same
    /// length.
    fn exchange(
        &self,
        axis: usize,
        to_lo: &[u8],
        to_hi: &[u8],
        from_lo: &mut [u8],
        from_hi: &mut [u8],
    ) -> Result<()>;
    /// Every rank's `bytes` (the same length on each), concatenated in rank
    /// order, on rank 0; `None` on the others.
    fn gather(&self, bytes: &[u8]) -> Result<Option<Vec<u8>>>;
    /// Element-wise maximum over the ranks, on every rank.
    fn max(&self, values: &[f64]) -> Result<Vec<f64>>;
    /// Element-wise sum over the ranks, on every rank.
    fn sum(&self, values: &[f64]) -> Result<Vec<f64>>;
}

/// One rank on its own: it is its own neighbour on both sides, so the
/// exchange wraps the lattice around exactly as a periodic kernel would.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfComm;

impl Comm for SelfComm {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        1
    }

    fn exchange(
        &self,
        _axis: usize,
        to_lo: &[u8],
        to_hi: &[u8],
        from_lo: &mut [u8],
        from_hi: &mut [u8],
    ) -> Result<()> {
        from_hi.copy_from_slice(to_lo);
        from_lo.copy_from_slice(to_hi);
        Ok(())
    }

    fn gather(&self, bytes: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(Some(bytes.to_vec()))
    }

    fn max(&self, values: &[f64]) -> Result<Vec<f64>> {
        Ok(values.to_vec())
    }

    fn sum(&self, values: &[f64]) -> Result<Vec<f64>> {
        Ok(values.to_vec())
    }
}

/// A collective warm-up: at least `runs` runs, then more until every rank
/// has warmed up for `seconds` (a GPU's clock governor needs about a second
/// of load to reach full clocks; see docs/notebook/benchmarks.md). Each rank asks
/// [`WarmUp::more`] before every run; past the fixed runs the answer is
/// agreed through [`Comm::max`], so every rank makes the same runs and the
/// same collective calls.
#[derive(Debug)]
pub struct WarmUp {
    runs: usize,
    seconds: f64,
    made: usize,
    start: Instant,
}

impl WarmUp {
    /// Starts the warm-up clock now.
    pub fn new(runs: usize, seconds: f64) -> WarmUp {
        WarmUp {
            runs,
            seconds,
            made: 0,
            start: Instant::now(),
        }
    }

    /// Whether to make another warm-up run. Collective once the fixed runs
    /// are made.
    pub fn more(&mut self, comm: &dyn Comm) -> Result<bool> {
        let more = if self.made < self.runs {
            true
        } else {
            let short = f64::from(u8::from(self.start.elapsed().as_secs_f64() < self.seconds));
            comm.max(&[short])?[0] > 0.0
        };
        self.made += usize::from(more);
        Ok(more)
    }
}

/// How a run over ranks is set up: how the lattice follows the rank count,
/// over how many axes it is split, and whether a rank updates its interior
/// while its halos travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaleMode {
    /// Strong or weak scaling.
    pub scaling: Scaling,
    /// Overlap the interior's update with the halo swap, where the kernel
    /// allows (see `exec`).
    pub overlap: bool,
    /// Split axes: 1 (slabs along the slowest axis) or 2 (a grid of ranks
    /// along the two slowest; see [`Decomposition::plan_grid`]).
    pub axes: usize,
    /// How the halos travel (asked; a record holds the route taken).
    pub halos: Halos,
}

impl Default for ScaleMode {
    fn default() -> ScaleMode {
        ScaleMode {
            scaling: Scaling::Strong,
            overlap: true,
            axes: 1,
            halos: Halos::Auto,
        }
    }
}

/// A future polled where it is made (not `Send`: the browser has no threads).
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// An app that runs split over ranks (`mpirun -np N skylight run APP`);
/// the registry lists them ([`crate::registry::distributed`]).
pub trait Distributed: Sync {
    /// The app's name.
    fn name(&self) -> &'static str;
    /// How `case` splits over `ranks` ranks as `mode` asks. Pure (no
    /// device), so every rank plans the same and rank 0 can refuse a bad
    /// split before any rank allocates.
    fn decomposition(&self, case: &Case, mode: ScaleMode, ranks: usize) -> Result<Decomposition>;
    /// Runs `case` split as `d` over the ranks of `comm`, this rank's slab
    /// on `gpu`, as [`measure`] does, and validates the gathered result on
    /// rank 0 against the single-device reference. Collective; rank 0 gets
    /// the record, the others `None`.
    fn run<'a>(
        &'a self,
        gpu: &'a Gpu,
        comm: &'a dyn Comm,
        case: &'a Case,
        d: &'a Decomposition,
        mode: ScaleMode,
        opts: RunOptions,
    ) -> LocalFuture<'a, Result<Option<ResultRecord>>>;
}

/// One rank's part of an app split over ranks, as [`measure`] runs it.
// The futures are awaited where they are made (never sent to another
// thread; the browser has none), so they need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait Slab {
    /// One run of the case on this rank's slab, each phase's time added to `t`.
    async fn run(&mut self, t: &mut PhaseTimes) -> Result<()>;
    /// This rank's share of the result rank 0 checks (the owned sites'
    /// values after the runs so far).
    async fn owned(&self) -> Result<Vec<u8>>;
}

/// What [`measure`] found.
#[derive(Debug)]
pub struct Measured {
    /// Every rank's [`Slab::owned`] after the first run, in rank order, on
    /// rank 0; `None` on the others.
    pub gathered: Option<Vec<u8>>,
    /// Each timed run's seconds, the slowest rank's.
    pub samples: Vec<f64>,
    /// The mean time of one run per phase, the slowest rank's.
    pub split: PhaseTimes,
}

impl Measured {
    /// `record` (rank 0's) with its scale-out part: `d`, `mode` and the
    /// split, and the resolution of the host clock that timed it (a run's
    /// wall time over the ranks, halo swaps included, is the figure).
    pub fn attach(
        &self,
        mut record: ResultRecord,
        d: &Decomposition,
        mode: ScaleMode,
    ) -> ResultRecord {
        record.timer_resolution_s = Some(crate::gpu::clock::host_tick_s());
        record.scale = Some(ScaleOut {
            ranks: d.ranks,
            scaling: mode.scaling,
            overlap: mode.overlap,
            axes: mode.axes,
            halos: mode.halos,
            decomposition: d.clone(),
            split: self.split,
        });
        record
    }
}

/// Runs `slab` on every rank of `comm`: one run whose result is gathered
/// on rank 0 for validation, the warm-up of `opts` (agreed over the ranks,
/// see [`WarmUp`]), then exactly `opts.samples` timed runs (at least one;
/// never chosen by time, so every rank makes the same collective calls).
pub async fn measure(slab: &mut impl Slab, comm: &dyn Comm, opts: RunOptions) -> Result<Measured> {
    slab.run(&mut PhaseTimes::default()).await?;
    let gathered = comm.gather(&slab.owned().await?)?;
    let mut warm = WarmUp::new(opts.warmup as usize, opts.warmup_s);
    while warm.more(comm)? {
        slab.run(&mut PhaseTimes::default()).await?;
    }
    let mut t = PhaseTimes::default();
    let mut samples = Vec::new();
    for _ in 0..opts.samples.max(1) {
        let t0 = Instant::now();
        slab.run(&mut t).await?;
        samples.push(t0.elapsed().as_secs_f64());
    }
    // A run lasts as long as its slowest rank.
    let samples = comm.max(&samples)?;
    let per_run = t.to_array().map(|v| v / samples.len() as f64);
    let split: [f64; PHASES] = comm
        .max(&per_run)?
        .try_into()
        .map_err(|_| Error::Comm("the phase times came back short".into()))?;
    Ok(Measured {
        gathered,
        samples,
        split: PhaseTimes::from_array(split),
    })
}

/// Little-endian f64 bytes, as [`Slab::owned`] gives values.
pub fn to_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The f64 values of [`to_bytes`].
pub fn from_bytes(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect()
}

/// FNV-1a of the values' bits, cut to 52 bits so an f64 holds it exactly:
/// results that must be bit-identical over rank counts carry it.
pub fn field_hash(values: &[f64]) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in values.iter().flat_map(|v| v.to_bits().to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h >> 12) as f64
}

/// Where one run's time went on a rank, in seconds: GPU timestamps for
/// the kernels (and for the copies to and from the host where the adapter
/// times inside encoders), the host clock for the rest (see `exec`). Work
/// that ran while the host swapped halos counts in compute and, for the
/// time the swap hid it, in `overlap_s`; the phases less the overlap add
/// up to the run. The parts (`interior_s`, `unpack_s`, `copy_down_s`,
/// `copy_up_s`) are of the phase named in their docs, so files from
/// before them, which read as zeros, keep their sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    /// The app's own kernels.
    pub compute_s: f64,
    /// Of `compute_s`: the interior, run while the halos travelled.
    #[serde(default)]
    pub interior_s: f64,
    /// Packing the send planes and unpacking the received ones on the GPU.
    pub pack_s: f64,
    /// Of `pack_s`: the unpack.
    #[serde(default)]
    pub unpack_s: f64,
    /// Device to host (readback of the send planes) and host to device
    /// (upload of the received ones), with the host's waits for them.
    pub transfer_s: f64,
    /// Of `transfer_s`: the copy of the send planes to the host, on the
    /// GPU's clock (zero where the adapter cannot time inside encoders).
    #[serde(default)]
    pub copy_down_s: f64,
    /// Of `transfer_s`: the copy of the received planes to the device, on
    /// the GPU's clock (as `copy_down_s`).
    #[serde(default)]
    pub copy_up_s: f64,
    /// The halo swap between ranks, waiting for neighbours included.
    pub exchange_s: f64,
    /// Compute that ran while the halos travelled (a rank's interior),
    /// counted in `compute_s` and hidden behind transfer and exchange.
    #[serde(default)]
    pub overlap_s: f64,
}

/// How many phases [`PhaseTimes::to_array`] lists.
pub const PHASES: usize = 9;

impl PhaseTimes {
    /// The phases in the struct's order (compute, interior, pack, unpack,
    /// transfer, copy down, copy up, exchange, overlap).
    pub fn to_array(self) -> [f64; PHASES] {
        [
            self.compute_s,
            self.interior_s,
            self.pack_s,
            self.unpack_s,
            self.transfer_s,
            self.copy_down_s,
            self.copy_up_s,
            self.exchange_s,
            self.overlap_s,
        ]
    }

    /// From [`PhaseTimes::to_array`]'s order.
    pub fn from_array(a: [f64; PHASES]) -> PhaseTimes {
        PhaseTimes {
            compute_s: a[0],
            interior_s: a[1],
            pack_s: a[2],
            unpack_s: a[3],
            transfer_s: a[4],
            copy_down_s: a[5],
            copy_up_s: a[6],
            exchange_s: a[7],
            overlap_s: a[8],
        }
    }

    /// A split of only the four phases (and the overlap) that every file
    /// has: compute, pack, transfer, exchange, overlap (the tests' files).
    #[cfg(test)]
    pub(crate) fn phases(
        compute_s: f64,
        pack_s: f64,
        transfer_s: f64,
        exchange_s: f64,
        overlap_s: f64,
    ) -> PhaseTimes {
        PhaseTimes {
            compute_s,
            pack_s,
            transfer_s,
            exchange_s,
            overlap_s,
            ..PhaseTimes::default()
        }
    }

    /// The run: every phase, less what overlapped.
    pub fn total(&self) -> f64 {
        self.compute_s + self.pack_s + self.transfer_s + self.exchange_s - self.overlap_s
    }

    /// What the decomposition costs beyond the compute: the swap's phases
    /// less the part that compute hid.
    pub fn communication(&self) -> f64 {
        self.total() - self.compute_s
    }

    /// Whether the copies were timed on the GPU (files and adapters
    /// without timestamps inside encoders leave them at zero).
    pub fn copies_timed(&self) -> bool {
        self.copy_down_s > 0.0 || self.copy_up_s > 0.0
    }

    /// The run's phases in the order a step meets them, as finely as the
    /// record has them: (name, seconds). The parts are split out of their
    /// phases (the interior from the other compute: the boundary, and a
    /// solve's vector kernels; the unpack from the pack; the GPU's copies
    /// from the host's waits), so the list less `hidden` adds up to the run.
    pub fn breakdown(&self) -> Vec<(&'static str, f64)> {
        let mut out = match self.interior_s > 0.0 {
            true => vec![
                ("interior", self.interior_s),
                ("other compute", self.compute_s - self.interior_s),
            ],
            false => vec![("compute", self.compute_s)],
        };
        let split_unpack = self.unpack_s > 0.0;
        let pack = match split_unpack {
            true => ("pack", self.pack_s - self.unpack_s),
            false => ("pack + unpack", self.pack_s),
        };
        out.push(pack);
        let copies = self.copies_timed();
        out.push(match copies {
            true => ("copy down", self.copy_down_s),
            false => ("transfer", self.transfer_s),
        });
        out.push(("exchange", self.exchange_s));
        if copies {
            out.push(("copy up", self.copy_up_s));
        }
        if split_unpack {
            out.push(("unpack", self.unpack_s));
        }
        if copies {
            let waits = self.transfer_s - self.copy_down_s - self.copy_up_s;
            out.push(("waits", waits.max(0.0)));
        }
        out.push(("hidden", self.overlap_s));
        out
    }
}

/// Files from before `--axes` split one axis.
fn one_axis() -> usize {
    1
}

/// The scale-out part of a result record: how the lattice was split and
/// where the time of one run went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScaleOut {
    /// Ranks (one device each, or sharing one).
    pub ranks: usize,
    /// Strong (fixed lattice) or weak (fixed lattice per rank).
    pub scaling: Scaling,
    /// Whether the run asked the ranks to update their interiors while the
    /// halos travelled (false in files from before it existed). A box
    /// without an interior, or a kernel that swaps nothing, overlaps
    /// nothing all the same: `split.overlap_s` is what was hidden.
    #[serde(default)]
    pub overlap: bool,
    /// The split axes asked for (`--axes`): a grid run on one rank is a
    /// slab split, and still belongs to the grid's curve.
    #[serde(default = "one_axis")]
    pub axes: usize,
    /// How the halos travelled: shared memory or MPI (MPI in files from
    /// before shared memory).
    #[serde(default = "through_mpi")]
    pub halos: Halos,
    /// The split.
    pub decomposition: Decomposition,
    /// Mean time of one run per phase, the slowest rank's.
    pub split: PhaseTimes,
}

/// Where old files have no route: MPI, the only one then.
fn through_mpi() -> Halos {
    Halos::Mpi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rank_wraps_its_halos_onto_itself() {
        let (mut lo, mut hi) = ([0u8; 2], [0u8; 2]);
        SelfComm
            .exchange(0, &[1, 2], &[3, 4], &mut lo, &mut hi)
            .expect("exchange");
        assert_eq!((lo, hi), ([3, 4], [1, 2]));
        assert_eq!(SelfComm.gather(&[5]).expect("gather"), Some(vec![5]));
    }

    #[test]
    fn warm_up_makes_the_fixed_runs_then_waits_for_the_clock() {
        let mut w = WarmUp::new(2, 0.0);
        let runs = std::iter::from_fn(|| w.more(&SelfComm).expect("more").then_some(())).count();
        assert_eq!(runs, 2);
        let mut w = WarmUp::new(0, 0.05);
        let runs = std::iter::from_fn(|| w.more(&SelfComm).expect("more").then_some(())).count();
        assert!(runs > 0, "a timed warm-up makes runs until its time is up");
    }

    #[test]
    fn phase_times_round_trip_and_split_compute_from_the_rest() {
        let a = [4.0, 2.5, 1.0, 0.5, 2.0, 0.75, 0.5, 3.0, 0.0];
        let t = PhaseTimes::from_array(a);
        assert_eq!(t.to_array(), a);
        assert!(t.copies_timed());
        // The parts do not add to the sums.
        assert_eq!((t.total(), t.communication()), (10.0, 6.0));
        // Compute hidden behind the swap shortens the run, not the compute.
        let t = PhaseTimes::phases(4.0, 1.0, 2.0, 3.0, 1.5);
        assert_eq!((t.total(), t.communication()), (8.5, 4.5));
        // Files written before overlap existed read as none.
        let old: PhaseTimes = serde_json::from_str(
            r#"{"compute_s": 4.0, "pack_s": 1.0, "transfer_s": 2.0, "exchange_s": 3.0}"#,
        )
        .expect("old split");
        assert_eq!(old, PhaseTimes::phases(4.0, 1.0, 2.0, 3.0, 0.0));
        assert!(!old.copies_timed());
    }

    #[test]
    fn a_breakdown_lists_the_parts_it_has_and_adds_up_to_the_run() {
        let names = |t: &PhaseTimes| -> Vec<&str> { t.breakdown().iter().map(|p| p.0).collect() };
        let sum = |t: &PhaseTimes| -> f64 {
            t.breakdown()
                .iter()
                .map(|&(n, v)| if n == "hidden" { -v } else { v })
                .sum()
        };
        let full = PhaseTimes::from_array([4.0, 2.5, 1.0, 0.5, 2.0, 0.75, 0.5, 3.0, 2.0]);
        assert_eq!(
            names(&full),
            [
                "interior",
                "other compute",
                "pack",
                "copy down",
                "exchange",
                "copy up",
                "unpack",
                "waits",
                "hidden"
            ]
        );
        assert_eq!(sum(&full), full.total());
        let old = PhaseTimes::phases(4.0, 1.0, 2.0, 3.0, 1.5);
        assert_eq!(
            names(&old),
            ["compute", "pack + unpack", "transfer", "exchange", "hidden"]
        );
        assert_eq!(sum(&old), old.total());
    }
}
