//! `mpirun -np N skylight run lbm|milc ...` (the `mpi` feature): one rank
//! per process, each on the adapter of its node-local rank, the lattice
//! split by the app's [`Distributed`] form, its halos swapped and its
//! scalars summed through MPI.
//!
//! Failure rules: a bad split is found by every rank from the same pure
//! plan, before any opens a device, and only rank 0 says why; anything that
//! goes wrong on one rank after that (an adapter, a device error, a panic)
//! aborts the whole job with that rank's number and reason, because its
//! neighbours would otherwise wait for its halos forever.

use anyhow::{Context, Result, anyhow, bail};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use skylight_core::app::Case;
use skylight_core::gpu::{Gpu, Selector, adapters_on};
use skylight_core::runner::{self, Outcome};
use skylight_core::scale::{Comm, Decomposition, Distributed, ScaleMode};
use skylight_core::{Error, registry};

use super::{CommonArgs, RunArgs, report};
use crate::output::Output;

/// Exit code of a rank that aborts the job.
const ABORT_CODE: i32 = 3;

/// The most bytes one gather collects on rank 0 (under MPI's 32-bit
/// count).
const GATHER_BYTES: usize = 1 << 30;

/// Message tags: which way a halo travels (down, up) across which split
/// axis, so that two messages between the same pair of ranks (two ranks
/// along an axis, or one) cannot be confused.
fn tags(axis: usize) -> (i32, i32) {
    let base = 2 * axis as i32;
    (base + 1, base + 2)
}

/// Whether an MPI launcher started this process (Open MPI, MPICH, PMIx).
pub fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// An error already reported by rank 0: the other ranks leave quietly with
/// the same exit code.
#[derive(Debug)]
pub struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reported by rank 0")
    }
}

impl std::error::Error for Reported {}

/// Why rank 0 refused the job after every rank opened its adapter (and
/// before any allocated): the ranks would not run the same cases.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Checks on rank 0 that every rank runs the same cases: a rank that plans
/// other ones (another command line) or skips one (an adapter without f64,
/// say) would leave its neighbours waiting in a swap. Collective.
fn agree(
    world: &SimpleCommunicator,
    splits: &[(Case, Decomposition)],
    cases: &[Case],
) -> Result<()> {
    use std::hash::{Hash, Hasher};
    let hash = |v: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        v(&mut h);
        h.finish()
    };
    let labels: Vec<String> = splits.iter().map(|(c, _)| c.label()).collect();
    // Every parameter and the split: a label leaves some out (lbm's steps).
    let planned: Vec<String> = splits.iter().map(|(c, d)| format!("{c:?} {d:?}")).collect();
    let runs: Vec<bool> = splits.iter().map(|(c, _)| cases.contains(c)).collect();
    let first_skipped = runs.iter().position(|r| !r).map_or(u64::MAX, |k| k as u64);
    let mine = [
        hash(&|h| planned.hash(h)),
        hash(&|h| runs.hash(h)),
        first_skipped,
    ];
    let root = world.process_at_rank(0);
    let mut refusal = None;
    if world.rank() == 0 {
        let mut all = vec![0u64; 3 * world.size() as usize];
        root.gather_into_root(&mine[..], &mut all[..]);
        let label = |k: u64| labels.get(k as usize).cloned().unwrap_or_default();
        refusal = all.chunks_exact(3).enumerate().skip(1).find_map(|(r, theirs)| {
            if theirs[0] != mine[0] {
                return Some(format!(
                    "rank {r} planned other cases than rank 0: every rank needs the same command line"
                ));
            }
            let why = "every rank needs an adapter that runs the same precisions and features";
            match theirs[1] != mine[1] {
                false => None,
                true if runs.get(theirs[2] as usize) == Some(&true) => Some(format!(
                    "rank {r}'s adapter cannot run {} (rank 0's can): {why}",
                    label(theirs[2])
                )),
                true => Some(format!(
                    "rank 0's adapter cannot run {} (rank {r}'s can): {why}",
                    label(mine[2])
                )),
            }
        });
    } else {
        root.gather_into(&mine[..]);
    }
    let mut agreed = [u8::from(refusal.is_none())];
    root.broadcast_into(&mut agreed[..]);
    match (refusal, agreed[0]) {
        (Some(why), _) => Err(Refused(why).into()),
        (None, 0) => Err(Reported.into()),
        _ => Ok(()),
    }
}

/// [`Comm`] over an MPI communicator. MPI's default error handler aborts
/// the job on a failed call, so these never return an error themselves.
struct MpiComm {
    world: SimpleCommunicator,
    /// The ranks below and above along each split axis.
    neighbours: Vec<(i32, i32)>,
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(
        &self,
        axis: usize,
        to_lo: &[u8],
        to_hi: &[u8],
        from_lo: &mut [u8],
        from_hi: &mut [u8],
    ) -> skylight_core::Result<()> {
        let &(lo, hi) = self.neighbours.get(axis).ok_or_else(|| {
            Error::Comm(format!(
                "a swap across split axis {axis} of {}",
                self.neighbours.len()
            ))
        })?;
        let (lo, hi) = (
            self.world.process_at_rank(lo),
            self.world.process_at_rank(hi),
        );
        let (down, up) = tags(axis);
        // All four posted before any wait: no ordering between ranks can deadlock.
        mpi::request::scope(|scope| {
            let r1 = lo.immediate_receive_into_with_tag(scope, from_lo, up);
            let r2 = hi.immediate_receive_into_with_tag(scope, from_hi, down);
            let s1 = lo.immediate_send_with_tag(scope, to_lo, down);
            let s2 = hi.immediate_send_with_tag(scope, to_hi, up);
            r1.wait();
            r2.wait();
            s1.wait();
            s2.wait();
        });
        Ok(())
    }

    fn gather(&self, bytes: &[u8]) -> skylight_core::Result<Option<Vec<u8>>> {
        let root = self.world.process_at_rank(0);
        let (ranks, len) = (self.size(), bytes.len());
        // MPI counts are 32-bit: a whole field (2.5 GB at 256^3 in f64) goes
        // in pieces whose gathered size stays under that limit.
        let piece = (GATHER_BYTES / ranks).max(1);
        let mut all = (self.world.rank() == 0).then(|| vec![0u8; len * ranks]);
        let mut gathered = vec![0u8; piece.min(len) * ranks];
        for start in (0..len.max(1)).step_by(piece) {
            let part = &bytes[start..(start + piece).min(len)];
            let Some(all) = all.as_mut() else {
                root.gather_into(part);
                continue;
            };
            let got = &mut gathered[..part.len() * ranks];
            root.gather_into_root(part, &mut got[..]);
            for (r, from) in got.chunks_exact(part.len().max(1)).enumerate() {
                all[r * len + start..][..part.len()].copy_from_slice(from);
            }
        }
        Ok(all)
    }

    fn max(&self, values: &[f64]) -> skylight_core::Result<Vec<f64>> {
        let mut out = vec![0.0; values.len()];
        self.world
            .all_reduce_into(values, &mut out[..], SystemOperation::max());
        Ok(out)
    }

    fn sum(&self, values: &[f64]) -> skylight_core::Result<Vec<f64>> {
        let mut out = vec![0.0; values.len()];
        self.world
            .all_reduce_into(values, &mut out[..], SystemOperation::sum());
        Ok(out)
    }
}

/// Writes `line` and a newline to stderr in one write. Rust's stderr is
/// unbuffered, so `eprintln!` writes a formatted line piece by piece, and
/// mpirun's own abort banner, on the same terminal, could land between the
/// pieces (seen in CI: "rank " then the banner then "1: opening ...").
fn say(line: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(format!("{line}\n").as_bytes());
    let _ = stderr.flush();
}

/// Prints `rank r: why` and aborts every rank of the job.
fn abort(rank: usize, why: &anyhow::Error) -> ! {
    say(&format!("rank {rank}: {why:#}; aborting the job"));
    SimpleCommunicator::world().abort(ABORT_CODE)
}

/// Ends a job that every rank refused at the same point: rank 0 says why
/// (unless it was already said), then every rank waits for that at a
/// barrier. Without it a rank could exit before rank 0 had written the
/// reason, and mpirun would kill rank 0 mid-message.
fn refuse(world: &SimpleCommunicator, why: &anyhow::Error) -> anyhow::Error {
    if world.rank() == 0 && !why.is::<Reported>() {
        say(&format!("error: {why:#}"));
    }
    world.barrier();
    Reported.into()
}

/// Runs `args` over the ranks of the MPI job this process belongs to.
/// `Ok(false)` when a case failed validation (rank 0's verdict, shared).
pub fn run(args: &RunArgs, mode: ScaleMode) -> Result<bool> {
    let universe = mpi::initialize().ok_or_else(|| anyhow!("MPI was already initialized"))?;
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let panic_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        panic_hook(info);
        abort(rank, &anyhow!("panicked"));
    }));
    let planned = plan(args, mode, size);
    let (split, req, splits) = match planned {
        Ok(p) => p,
        Err(e) => return Err(refuse(&world, &e)),
    };
    let ok = match ranks_run(args, &world, split, &req, &splits, mode) {
        Ok(ok) => ok,
        // Every rank stopped at the same point: no rank waits, no abort.
        Err(e) if e.is::<Refused>() || e.is::<Reported>() => return Err(refuse(&world, &e)),
        Err(e) => abort(rank, &e),
    };
    // Rank 0's verdict becomes every rank's exit code.
    let mut verdict = [u8::from(ok)];
    world.process_at_rank(0).broadcast_into(&mut verdict[..]);
    Ok(verdict[0] == 1)
}

type Planned = (
    &'static dyn Distributed,
    skylight_core::app::Request,
    Vec<(Case, Decomposition)>,
);

/// The request and each case's split, from the flags alone: no device, so
/// every rank finds the same answer and a bad split is refused first.
fn plan(args: &RunArgs, mode: ScaleMode, ranks: usize) -> Result<Planned> {
    let split = registry::find_distributed(&args.app)?;
    if args.isolate || args.resume.is_some() {
        bail!("--isolate and --resume do not combine with an MPI run");
    }
    let app = registry::find(&args.app)?;
    let req = super::request_for(app, args, true, false)?;
    let cases = app.cases(&req, &runner::cpu_capabilities())?;
    let splits = cases
        .into_iter()
        .map(|c| split.decomposition(&c, mode, ranks).map(|d| (c, d)))
        .collect::<skylight_core::Result<Vec<_>>>()
        .context("planning the decomposition")?;
    for path in [&args.common.json, &args.common.csv].into_iter().flatten() {
        super::check_writable(path)?;
    }
    Ok((split, req, splits))
}

/// The adapter of node-local rank `local`: with `auto`, ranks on a node
/// take its GPUs (of `--backend`, or the primary backends) in turn (all of
/// them share a CPU adapter such as lavapipe when the node has no GPU); an
/// explicit adapter is every rank's.
fn selector(common: &CommonArgs, local: usize) -> Result<Selector> {
    if common.adapter != "auto" {
        return Ok(Selector::parse(&common.adapter));
    }
    let gpus: Vec<usize> = pollster::block_on(adapters_on(common.backend.api()?))?
        .into_iter()
        .filter(|a| a.info.device_type != "cpu")
        .filter_map(|a| a.info.index)
        .collect();
    Ok(match gpus.len() {
        0 => Selector::Auto,
        n => Selector::Index(gpus[local % n]),
    })
}

/// This rank's part of the job: open its adapter, run every case.
fn ranks_run(
    args: &RunArgs,
    world: &SimpleCommunicator,
    split: &dyn Distributed,
    req: &skylight_core::app::Request,
    splits: &[(Case, Decomposition)],
    mode: ScaleMode,
) -> Result<bool> {
    let rank = world.rank() as usize;
    let local = world.split_shared(world.rank()).rank() as usize;
    let gpu = pollster::block_on(Gpu::open(
        &selector(&args.common, local)?,
        args.common.backend.api()?,
    ))
    .with_context(|| format!("opening the adapter of node-local rank {local}"))?;
    // The cases the device can run, as a single-device run would plan them.
    let app = registry::find(split.name())?;
    let runner::Plan { cases, skipped } = runner::plan(app, req, &gpu.caps, true)?;
    agree(world, splits, &cases)?;
    let comm = |d: &Decomposition| MpiComm {
        world: world.duplicate(),
        neighbours: (0..d.split_axes())
            .map(|axis| d.neighbours_along(rank, axis))
            .map(|(lo, hi)| (lo as i32, hi as i32))
            .collect(),
    };
    if rank == 0 && !args.common.quiet {
        eprintln!(
            "{} ranks, {} scaling{}; rank 0 on {} [{}]",
            world.size(),
            mode.scaling.name(),
            if mode.overlap {
                ", interior overlapped with the halo swap"
            } else {
                ""
            },
            gpu.info.label(),
            gpu.info.device_type
        );
    }
    if rank == 0 {
        println!("{}", report::header());
        skipped.iter().for_each(|o| println!("{}", report::row(o)));
    }
    // Every rank must make the same calls: the warm-up's end is agreed over
    // the ranks (see `scale::measure`) and the samples are an exact count, never
    // chosen by time.
    let gpu_clock = gpu.info.device_type != "cpu";
    let opts = skylight_core::runner::RunOptions {
        warmup: args.common.warmup.unwrap_or(2),
        warmup_s: (args.common.warmup_s).unwrap_or(if gpu_clock {
            super::GPU_WARMUP_S
        } else {
            0.0
        }),
        samples: args.common.samples.unwrap_or(20),
        budget_s: 0.0,
        runs_per_sample: 1,
    };
    let mut outcomes = Vec::new();
    // Rank 0 writes each record as its case finishes, as a single-device run does.
    let mut output = Output::new(
        args.common.json.clone(),
        args.common.csv.clone(),
        Vec::new(),
    );
    for (case, d) in splits.iter().filter(|(c, _)| cases.contains(c)) {
        let record = pollster::block_on(split.run(&gpu, &comm(d), case, d, mode, opts))
            .map_err(|e: Error| anyhow!(e))
            .with_context(|| case.label())?;
        if let Some(r) = record {
            let o = Outcome::Done(Box::new(r.clone()));
            println!("{}", report::row(&o));
            for line in report::metric_lines(&o)
                .into_iter()
                .chain(report::split_line(&o))
            {
                println!("{line}");
            }
            if rank == 0 {
                output.add(r)?;
            }
            outcomes.push(o);
        }
    }
    if rank == 0 {
        return crate::run::finish(&outcomes, &mut output, false);
    }
    Ok(true)
}
