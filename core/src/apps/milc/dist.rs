//! milc over ranks: the lattice split along t (the slowest axis of the site
//! order, so a rank's slab and each of its planes are contiguous runs of
//! sites), one halo plane per side because the Wilson-Dirac operator
//! reaches one site. A rank records the app's own program for its slab plus
//! halos as a periodic lattice of `local + 2` time slices: interior slices
//! read only their neighbours, so the wrap-around reads land in halo
//! slices, whose results are never used. The program is run in segments:
//! before each Dslash the halos of the field it reads are refilled from the
//! neighbours, and after each dot product (which sums owned sites only) the
//! scalar is summed over the ranks, so every rank takes the same CG steps.
//! Links are static: each rank holds its halo slices of them from the start.
//! Rank 0 gathers the owned slices of the result, which in rank order are
//! the global field, and checks them against the single-device f64
//! reference; a solve's true residual is computed there over the whole
//! lattice.

use std::cell::RefCell;
use std::sync::Arc;

use super::codegen::{Field, slot};
use super::gpu::{Plan, Recorded};
use super::program::{Buffers, Parts, Sync};
use super::reference::{Inputs, Setup, lattice};
use super::wilson::{self, GAMMA, LINKS, Phase, SPINOR};
use super::{KernelName, Params, case_model, solve_metrics};
use crate::app::{Case, Validation};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::precision::Precision;
use crate::record::ResultRecord;
use crate::runner::RunOptions;
use crate::scale::Part;
use crate::scale::exec::{Exec, Op, Record};
use crate::scale::halo::{HaloPlanes, Send};
use crate::scale::{
    Comm, Decomposition, Distributed, Halos, LocalFuture, PhaseTimes, ScaleMode, Slab, field_hash,
    from_bytes, measure, to_bytes,
};
use crate::timing::TimingMethod;

/// Seed of the random links and fields: every rank draws the same global
/// lattice and keeps its slab (a single-device case seeds from the clock).
const SEED: u64 = 0x3a1c_0de5;

/// milc over ranks.
pub struct Split;

impl Distributed for Split {
    fn name(&self) -> &'static str {
        "milc"
    }

    fn decomposition(&self, case: &Case, mode: ScaleMode, ranks: usize) -> Result<Decomposition> {
        let params = Params::try_from(case)?;
        if !matches!(
            params.kernel,
            KernelName::Dslash | KernelName::DslashFused | KernelName::Cg
        ) {
            return Err(Error::bad_param(
                "kernel",
                format!(
                    "milc over ranks runs dslash, dslash-fused and cg (the kernels that reach neighbouring sites), not `{}`",
                    params.kernel
                ),
            ));
        }
        let (l, t) = (params.l as usize, params.t as usize);
        Ok(Decomposition::for_problem(
            ["z", "t"],
            [l, l, l, t],
            ranks,
            1,
            mode.scaling,
            mode.axes,
        )?)
    }

    fn run<'a>(
        &'a self,
        gpu: &'a Gpu,
        comm: &'a dyn Comm,
        case: &'a Case,
        d: &'a Decomposition,
        mode: ScaleMode,
        opts: RunOptions,
    ) -> LocalFuture<'a, Result<Option<ResultRecord>>> {
        Box::pin(run(gpu, comm, case, d, mode, opts))
    }
}

/// The direction whose hops cross split axis `axis` (0: t, 1: z).
fn direction(axis: usize) -> usize {
    3 - axis.min(1)
}

/// What a rank's neighbours across direction `mu` (t or z) read of its
/// edge planes for a Dslash of sign `isign`: the rank below (whose forward
/// hop reaches the plane) the projection `(1 - isign gamma_mu) psi`, the
/// rank above (backward hop) `(1 + isign gamma_mu) psi`. A projection is
/// fixed by its upper two spins (see `GAMMA`), so each side carries 12 of
/// the spinor's 24 reals; they land in the upper spins of the halo site,
/// its lower spins zero, where the receiving kernel's own projection gives
/// them back exactly.
pub fn halo_send(mu: usize, isign: i32) -> Send {
    let (upper, mut mix) = (0..12u32, [Vec::new(), Vec::new()]);
    for k in upper.clone() {
        let (spin, colour, reim) = (k as usize / 6, k % 6 / 2, k % 2);
        let (partner, phase) = GAMMA[mu][spin];
        // Each value is one sum or difference: a real phase takes the
        // partner's same part, an imaginary one the other part (i (a + ib)
        // = -b + ia).
        let (part, g) = match (phase, reim) {
            (Phase::One, _) => (reim, 1),
            (Phase::MinusOne, _) => (reim, -1),
            (Phase::I, 0) | (Phase::MinusI, 1) => (1 - reim, -1),
            (Phase::I, _) | (Phase::MinusI, _) => (1 - reim, 1),
        };
        let other = partner as u32 * 6 + colour * 2 + part;
        mix[0].push((other, -isign * g));
        mix[1].push((other, isign * g));
    }
    Send {
        down: upper.clone().collect(),
        up: upper.collect(),
        mix,
        zero_rest: true,
    }
}

/// A rank's links (with their halo slices) and source field (halos NaN, so
/// that a missed swap fails validation), kept for the request so that the
/// uploads stay keyed by the same fields.
struct SlabFields {
    links: Arc<Vec<f64>>,
    field: Arc<Vec<f64>>,
}

/// One rank's slab on its GPU.
struct Rank<'a> {
    gpu: &'a Gpu,
    comm: &'a dyn Comm,
    d: &'a Decomposition,
    prog: Segments,
    ops: Vec<Op>,
    exec: Exec,
    /// The scalars after the first run (a solve's counters), for rank 0.
    first_scalars: RefCell<Vec<f64>>,
}

/// The recorded program cut at its syncs: segment `k` is the dispatches
/// before sync `k` (the last one, those after every sync).
struct Segments {
    prog: Recorded,
    cuts: Vec<std::ops::Range<usize>>,
}

impl Record for Segments {
    fn record(&self, id: usize, pass: &mut wgpu::ComputePass<'_>) {
        self.prog.dispatch(pass, self.cuts[id].clone());
    }
}

/// The program's segments, and the ops that run them with a swap across
/// each of `axes` split axes or a sum at each sync: the swapped fields
/// numbered in `fields`' order, halo `2 axis + (isign < 0)` swapping across
/// split axis `axis` for a Dslash of sign `isign`. The steps a swap lets
/// run during it (a rank's interior) go with its first swap.
fn segments(prog: Recorded, p: Precision, axes: usize) -> (Segments, Vec<Op>, Vec<Buffers>) {
    let (mut cuts, mut ops, mut fields) = (Vec::new(), Vec::new(), Vec::<Buffers>::new());
    let mut at = 0;
    let cut = |range: std::ops::Range<usize>, cuts: &mut Vec<_>| {
        cuts.push(range);
        cuts.len() - 1
    };
    for (end, sync) in &prog.syncs {
        if *end > at {
            ops.push(Op::Compute(cut(at..*end, &mut cuts)));
        }
        at = *end;
        match sync {
            Sync::Swap(b, isign, during) => {
                let field = fields.iter().position(|x| x == b).unwrap_or_else(|| {
                    fields.push(b.clone());
                    fields.len() - 1
                });
                let mut during: Vec<usize> = (at..at + during)
                    .map(|k| cut(k..k + 1, &mut cuts))
                    .collect();
                at += during.iter().map(|&c| cuts[c].len()).sum::<usize>();
                // An interior in three (see `lead`) sends its last stretch
                // beside the planes' fetch.
                let fetched = usize::from(during.len() == 3);
                for axis in (0..axes).rev() {
                    ops.push(Op::Swap {
                        halo: 2 * axis + usize::from(*isign < 0),
                        field,
                        during: std::mem::take(&mut during),
                        // Through MPI none of the interior goes beside the
                        // planes' trip, or the host would wait for it before
                        // swapping; through shared memory its lead does (see
                        // `exec` and `lead`).
                        beside: 0,
                        fetched,
                    });
                }
            }
            Sync::Reduce(b, slot, later) => {
                let at = u64::from(*slot) * p.real_bytes();
                ops.push(match later {
                    true => Op::SumAtSwap(b.clone(), at),
                    false => Op::Sum(b.clone(), at),
                })
            }
        }
    }
    if prog.len() > at {
        ops.push(Op::Compute(cut(at..prog.len(), &mut cuts)));
    }
    (Segments { prog, cuts }, ops, fields)
}

/// The interior in runs of time slices, all but one a multiple of `tile`
/// slices (the site order's tile, see [`tile_planes`]: a run that is not
/// keeps only part of it, and on a 64^3 slab a tile of 2 against 4 costs
/// the one-pass D 4% a site on an H200).
///
/// Where the halos go through shared memory and the slab has room, three
/// runs: a lead of a quarter, beside the planes' trip to the neighbours'
/// inboxes, which it outlasts (25 MB in about 0.5 ms against 0.65 ms for 16
/// of a 64^3 x 64 slab's slices on an H200); an eighth and the slices left
/// over from whole tiles, while the host says the planes are written (a
/// wait for the GPU and a message, about 0.2 ms), so the GPU never waits
/// for that; and the rest, beside the fetch of the planes that arrived from
/// this rank's inbox. Otherwise the whole tiles and what is left over.
fn lead(interior: Part, route: Halos, tile: u32) -> Vec<Part> {
    let nz = interior.nz;
    let whole = |n: u32| (n / tile).max(1) * tile;
    let (k, m) = (whole((nz + 2 * tile) / 4), whole((nz + 4 * tile) / 8));
    let left = nz.saturating_sub(k + m) % tile;
    let three = interior
        .split_planes(k)
        .and_then(|(lead, after)| {
            after
                .split_planes(m + left)
                .map(|(mid, rest)| vec![lead, mid, rest])
        })
        .filter(|_| route == Halos::Shared && nz >= k + m + left + tile.max(4));
    let two = || {
        interior
            .split_planes(nz / tile * tile)
            .map(|(tiles, left)| vec![tiles, left])
    };
    three.or_else(two).unwrap_or_else(|| vec![interior])
}

/// Time slices in one tile of `params`' site order: the tile rounded down
/// to whole blocks (`scale::Part::ordered` fits the blocks and the tile to
/// each run's slices).
fn tile_planes(params: &Params) -> u32 {
    let bt = params.block[2].max(1);
    (params.tile / bt).max(1) * bt
}

impl<'a> Rank<'a> {
    /// Records `params`' program on this rank's slab of `global`.
    fn new(
        gpu: &'a Gpu,
        comm: &'a dyn Comm,
        d: &'a Decomposition,
        params: &Params,
        global: &Setup,
        mode: ScaleMode,
    ) -> Result<Rank<'a>> {
        // milc's interior hides too little of MPI's swap: the GPUs writing
        // and reading the node's shared memory made its CG 1.3x faster on
        // two H200s (docs/scale-out.md).
        let route = mode.halos.or(Halos::Shared);
        let p = params.precision;
        let padded = d.padded();
        let local = Params {
            t: padded[3] as u64,
            sites: d.padded_sites() as u64,
            ..*params
        };
        let mut plan = Plan::new(&local, &gpu.caps)?;
        let hz = d.second.as_ref().map_or(0, |_| d.halo as u32);
        plan.build.lz = padded[2] as u32;
        plan.build.halo = [d.halo as u32, hz];
        plan.build.part.0 = params.ordered(d.padded_part());
        plan.build.own = d.owned_part();
        let key = format!(
            "milc-slab/{}x{}x{}/{p}/{}of{}",
            params.l,
            d.global[2],
            d.global[3],
            comm.rank(),
            d.ranks
        );
        let fields = gpu.memo.get_or_make(&key, || SlabFields {
            links: Arc::new(d.scatter(&global.u, comm.rank(), LINKS, true)),
            field: Arc::new(d.scatter(&global.inputs[0], comm.rank(), SPINOR, false)),
        });
        let setup = Setup {
            lat: lattice(&local),
            u: fields.links.clone(),
            inputs: vec![fields.field.clone()],
            ..global.clone()
        };
        // The one-pass operator's interior runs while the halos travel.
        let parts = d.interior().filter(|_| mode.overlap).map(|interior| Parts {
            interior: lead(interior, route, tile_planes(params))
                .into_iter()
                .map(|p| params.ordered(p))
                .collect(),
            boundary: d
                .boundary()
                .into_iter()
                .map(|b| params.ordered(b))
                .collect(),
        });
        let recorded = Recorded::new(gpu, plan, &setup, parts)?;
        let (prog, ops, fields) = segments(recorded, p, d.split_axes());
        let layout = plan.build.groups(Field::Spinor).expect("a field");
        let refs: Vec<&[wgpu::Buffer]> = fields.iter().map(Vec::as_slice).collect();
        // Halo 2 axis serves D, 2 axis + 1 D^dagger (see `segments`).
        let halos = (0..d.split_axes())
            .flat_map(|axis| [(axis, 1), (axis, -1)])
            .map(|(axis, isign)| {
                let send = halo_send(direction(axis), isign);
                HaloPlanes::sending((gpu, comm, route), p, &layout, (d, axis), &refs, &send)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Rank {
            gpu,
            comm,
            d,
            exec: Exec::new(gpu, p, &[&ops], halos),
            prog,
            ops,
            first_scalars: RefCell::default(),
        })
    }
}
impl Slab for Rank<'_> {
    /// One run of the program, meeting the neighbours at each sync.
    async fn run(&mut self, t: &mut PhaseTimes) -> Result<()> {
        let (gpu, comm) = (self.gpu, self.comm);
        self.exec.run(gpu, comm, &self.ops, &self.prog, t).await
    }

    /// The owned slices of the result field, logical order; keeps the
    /// scalars of a solve (the same on every rank) for rank 0's check.
    async fn owned(&self) -> Result<Vec<u8>> {
        let prog = &self.prog.prog;
        let raw = self.gpu.read_buffers(&prog.output_buffers()).await?;
        let refs: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
        let mut got = prog.unpack_all(&refs).into_iter();
        let field = got.next().unwrap_or_default();
        if let Some(scalars) = got.next() {
            *self.first_scalars.borrow_mut() = scalars;
        }
        Ok(to_bytes(&self.d.owned(&field, SPINOR)))
    }
}

/// Runs `case` split as `d` over the ranks of `comm` (see [`Distributed::run`]).
async fn run(
    gpu: &Gpu,
    comm: &dyn Comm,
    case: &Case,
    d: &Decomposition,
    mode: ScaleMode,
    opts: RunOptions,
) -> Result<Option<ResultRecord>> {
    let params = Params::try_from(case)?;
    let p = params.precision;
    gpu.require(p)?;
    let t_global = d.global[3] as u64;
    let global = Params {
        t: t_global,
        sites: params.l.pow(3) * t_global,
        ..params
    };
    let key = format!("milc-split/{}x{}/{p}", global.l, global.t);
    let inputs = gpu
        .memo
        .get_or_make(&key, || Inputs::seeded(lattice(&global), p, Some(SEED)));
    let setup = Setup::with(&global, &inputs);
    // A swap fills the halos of the field it reads in place: an input kept
    // on the device from an earlier case would come with its halos filled
    // and hide a missing swap, so each case uploads its own (halos NaN).
    gpu.uploads.clear();
    let mut rank = Rank::new(gpu, comm, d, &params, &setup, mode)?;
    let measured = measure(&mut rank, comm, opts).await?;
    let Some(bytes) = &measured.gathered else {
        return Ok(None);
    };
    let got = d.assemble(&from_bytes(bytes), SPINOR);
    let (validation, mut metrics) = check(&setup, &global, &got, &rank.first_scalars.borrow());
    metrics.extend(rank.prog.prog.storage());
    let case = global
        .case()
        .param("ranks", d.ranks)
        .param("scaling", mode.scaling.name());
    let model = case_model(
        global.kernel,
        setup.fused,
        global.reconstruct,
        global.sites,
        global.iterations,
        p,
    );
    let record = ResultRecord::new(
        case,
        gpu.info.clone(),
        TimingMethod::WallClock,
        measured.samples.clone(),
        model,
        validation,
        metrics,
    );
    let mode = ScaleMode {
        halos: rank.exec.route(),
        ..mode
    };
    Ok(Some(measured.attach(record, d, mode)))
}

/// The gathered field against the single-device f64 reference with the
/// app's tolerances: a Dslash's output element by element (with a hash of
/// its bits in the metrics: each site's arithmetic does not depend on the
/// split, so every rank count gives the same bits), a solve by its
/// recursive residual and its true residual over the whole lattice.
fn check(
    setup: &Setup,
    params: &Params,
    got: &[f64],
    scalars: &[f64],
) -> (Validation, std::collections::BTreeMap<String, f64>) {
    if params.kernel != KernelName::Cg {
        let v = setup.check_fields(&[got.to_vec()], params.precision);
        let metrics = [("field_hash".to_string(), field_hash(got))];
        return (v, metrics.into());
    }
    let at = |i: u32| scalars.get(i as usize).copied().unwrap_or(f64::NAN);
    let (iters, conv) = (at(slot::ITERS), at(slot::CONVERGED) == 1.0);
    let residual = (at(slot::RR) / at(slot::RR0)).sqrt();
    let true_res = wilson::true_residual(&setup.lat, &setup.u, got, &setup.inputs[0], setup.kappa);
    let v = setup.judge_solve(true_res, iters, residual, conv);
    (v, solve_metrics(iters, residual, true_res))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, Request};
    use crate::apps::milc::Milc;
    use crate::runner::cpu_capabilities;
    use crate::scale::Scaling;

    fn case(kernel: &str) -> Case {
        let req = Request::default()
            .set("size", "small")
            .set("kernel", kernel)
            .precisions(&[Precision::F32]);
        Milc.cases(&req, &cpu_capabilities()).expect("cases")[0].clone()
    }

    #[test]
    fn the_split_is_along_t_and_refuses_site_local_kernels() {
        let mode = |scaling| ScaleMode {
            scaling,
            ..ScaleMode::default()
        };
        let d = Split
            .decomposition(&case("cg"), mode(Scaling::Strong), 4)
            .expect("plan");
        assert_eq!((d.global.clone(), d.local), (vec![4, 4, 4, 8], 2));
        let weak = Split
            .decomposition(&case("dslash"), mode(Scaling::Weak), 2)
            .expect("plan");
        assert_eq!((weak.global.clone(), weak.local), (vec![4, 4, 4, 16], 8));
        assert!(matches!(
            Split.decomposition(&case("cg"), mode(Scaling::Strong), 3),
            Err(Error::Decomposition(_))
        ));
        let e = Split
            .decomposition(&case("axpy"), mode(Scaling::Strong), 2)
            .expect_err("axpy is per site");
        assert!(e.to_string().contains("dslash, dslash-fused and cg"), "{e}");
    }

    /// Slices of each run `lead` cuts `nz` interior slices into.
    fn runs(nz: u32, route: Halos, tile: u32) -> Vec<u32> {
        let interior = Part::planes(16, 4, nz);
        lead(interior, route, tile).iter().map(|p| p.nz).collect()
    }

    #[test]
    fn the_interior_runs_in_whole_tiles_but_one_run() {
        // Two ranks of a 64^3 x 128 lattice, one rank, a 16-slice slab.
        assert_eq!(runs(62, Halos::Shared, 4), [16, 10, 36]);
        assert_eq!(runs(126, Halos::Shared, 4), [32, 18, 76]);
        assert_eq!(runs(14, Halos::Shared, 4), [4, 6, 4]);
        assert_eq!(runs(62, Halos::Mpi, 4), [60, 2]);
        assert_eq!(runs(60, Halos::Mpi, 4), [60]);
        assert_eq!(runs(6, Halos::Shared, 4), [4, 2]);
        assert_eq!(runs(3, Halos::Shared, 4), [3]);
        assert_eq!(runs(62, Halos::Mpi, 1), [62]);
    }
}
