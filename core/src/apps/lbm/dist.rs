//! lbm over ranks: the box split along z (the slowest axis of the site
//! order, so a rank's slab and each of its planes are contiguous runs of
//! sites), one halo plane per side because pull propagation reaches one
//! site. A rank runs the app's own kernels on its slab plus halos as a
//! periodic box of `local + 2` planes: interior planes read only their
//! neighbours, so the wrap-around reads land in halo planes, whose values
//! are never used. Before every kernel that propagates, the halos are
//! refilled from the neighbours ([`HaloPlanes`]). With overlap, a rank
//! propagates its interior planes (and collides them, in `step`) while the
//! halos travel, and its two boundary planes once they have arrived; in
//! `step` it collides the boundary planes first, since they are what it
//! sends. Rank 0 gathers the owned planes, which in rank order are the
//! global field in logical order, and checks them against the single-rank
//! f64 reference.

use std::collections::BTreeMap;

use rand::SeedableRng;

use super::check::{self, Sample};
use super::d3q19::{self, Box3, NVEL};
use super::gpu::Lattice;
use super::{Check, KernelName, Params, Setup, fields, model};
use crate::app::{Case, Validation};
use crate::error::Result;
use crate::gpu::Gpu;
use crate::record::ResultRecord;
use crate::runner::RunOptions;
use crate::scale::exec::{Exec, Op, Record};
use crate::scale::halo::{HaloPlanes, Send};
use crate::scale::{
    Comm, Decomposition, Distributed, Halos, LocalFuture, PhaseTimes, ScaleMode, Slab, field_hash,
    from_bytes, measure, to_bytes,
};
use crate::timing::TimingMethod;

/// Seed of the random start: every rank draws the same global field and
/// keeps its slab (a single-rank case seeds from the clock instead).
const SEED: u64 = 0x5ca1_e0a7;

/// What the neighbours read of a rank's edge planes across split axis
/// `axis` (0: z, 1: y): pull propagation reads, from the plane beyond its
/// box, only the populations moving into it (5 of D3Q19's 19 each way).
/// On a grid the y swap comes first and the z swap's planes span the y
/// halos, so a corner site arrives from the diagonal neighbour through the
/// one beside it: the populations that move into a corner move along both
/// axes, so both swaps carry them.
pub fn halo_send(axis: usize) -> Send {
    let dim = 2 - axis.min(1);
    let moving = |d: i32| -> Vec<u32> {
        (0..NVEL as u32)
            .filter(|&q| d3q19::C[q as usize][dim] == d)
            .collect()
    };
    Send::copies(moving(-1), moving(1))
}

/// lbm over ranks.
pub struct Split;

impl Distributed for Split {
    fn name(&self) -> &'static str {
        "lbm"
    }

    fn decomposition(&self, case: &Case, mode: ScaleMode, ranks: usize) -> Result<Decomposition> {
        decomposition(case, mode, ranks)
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

/// How `case` splits: along z, or over y and z, one halo plane per side.
fn decomposition(case: &Case, mode: ScaleMode, ranks: usize) -> Result<Decomposition> {
    let l = case.uint("L")? as usize;
    Ok(Decomposition::for_problem(
        ["y", "z"],
        [l, l, l],
        ranks,
        1,
        mode.scaling,
        mode.axes,
    )?)
}

/// One rank's slab on its GPU.
struct Rank<'a> {
    gpu: &'a Gpu,
    comm: &'a dyn Comm,
    d: &'a Decomposition,
    precision: crate::Precision,
    lattice: Slabs,
    /// A run's ops when the current field starts in buffer 0 or 1.
    ops: [Vec<Op>; 2],
    exec: Exec,
    /// The buffer holding the current field.
    current: usize,
    /// Kernels a run applies (each writes the other buffer).
    kernels: usize,
    /// The global sites checked, where the field is checked on a sample:
    /// each rank reports those it owns and its share of the totals.
    sample: Option<Vec<usize>>,
}

/// The parts of a slab the lattice's kernels are built for besides the
/// whole of it (part 0). Where the interior has more than one plane it is
/// built as two: its first [`LEAD_PLANES`] planes (`Interior`) and the
/// rest (`Rest`), so the first can run beside the packed planes' trip to
/// the host.
#[derive(Clone, Copy)]
enum Sites {
    All = 0,
    Boundary = 1,
    Interior = 2,
    Rest = 3,
}

/// Interior planes updated beside the packed planes' trip to the host
/// (`exec`'s `Op::Swap::beside`), so that the trip over PCIe is hidden:
/// about as long as that trip. A plane's pack moves 5 populations
/// each way (10 reals a site), its update streams 38 (19 read, 19
/// written), and HBM outruns PCIe about 80 times on an H200 (4 TB/s
/// against 50 GB/s); with a margin for the kernel that shares the pass,
/// 100 x 10 / 38 planes: 27.
const LEAD_PLANES: u32 = (100 * 2 * 5_u32).div_ceil(2 * NVEL as u32);

/// The lattice's kernels as [`Op::Compute`] numbers them: kernel `k` over
/// part `sites`, reading buffer `from`.
struct Slabs(Lattice);

impl Slabs {
    fn id(&self, sites: Sites, k: usize, from: usize) -> usize {
        (sites as usize * self.0.entries.len() + k) * 2 + from
    }
}

impl Record for Slabs {
    fn record(&self, id: usize, pass: &mut wgpu::ComputePass<'_>) {
        let per_part = 2 * self.0.entries.len();
        let (part, rest) = (id / per_part, id % per_part);
        self.0.record_part(pass, part, rest / 2, rest % 2);
    }
}

/// One run of `steps` steps of the lattice's kernel from buffer `from`:
/// before every kernel that propagates, the halos of the field it reads
/// are swapped (across y, then z, on a grid: halo `axis` is the swap across
/// split axis `axis`). With `interior` (overlap on a box that has one), the
/// interior is updated during the (first) swap and the boundary after the
/// last.
fn run_ops(
    lattice: &Slabs,
    steps: u64,
    mut from: usize,
    (interior, lead): (bool, bool),
    axes: usize,
) -> Vec<Op> {
    let id = |sites, k, from| lattice.id(sites, k, from);
    let inner = |k, from| match lead {
        true => vec![id(Sites::Interior, k, from), id(Sites::Rest, k, from)],
        false => vec![id(Sites::Interior, k, from)],
    };
    let entries = &lattice.0.entries;
    // Every entry point but collide (propagate, fused, and their rows
    // forms) reads its neighbours.
    let propagates = |k: usize| entries[k] != "collide";
    let mut ops = Vec::new();
    for _ in 0..steps {
        // `step` is collide (k = 0) then propagate (k = 1).
        let collide_first = entries.len() == 2;
        let k = usize::from(collide_first);
        if !propagates(k) {
            ops.push(Op::Compute(id(Sites::All, 0, from)));
            from = 1 - from;
            continue;
        }
        let mut during = Vec::new();
        if collide_first {
            match interior {
                true => {
                    ops.push(Op::Compute(id(Sites::Boundary, 0, from)));
                    during.extend(inner(0, from));
                }
                false => ops.push(Op::Compute(id(Sites::All, 0, from))),
            }
            from = 1 - from;
        }
        // A lead slice beside the planes' trip to the host.
        let beside = usize::from(interior && lead);
        let after = match interior {
            true => {
                during.extend(inner(k, from));
                Sites::Boundary
            }
            false => Sites::All,
        };
        for halo in (0..axes).rev() {
            ops.push(Op::Swap {
                halo,
                field: from,
                during: std::mem::take(&mut during),
                beside,
                fetched: 0,
            });
        }
        ops.push(Op::Compute(id(after, k, from)));
        from = 1 - from;
    }
    ops
}

impl<'a> Rank<'a> {
    /// Uploads this rank's slab of `setup`'s start, its halos poisoned
    /// (NaN) so that a missed swap fails validation.
    async fn new(
        gpu: &'a Gpu,
        comm: &'a dyn Comm,
        d: &'a Decomposition,
        params: &Params,
        setup: &Setup,
        (mode, sample): (ScaleMode, Option<Vec<usize>>),
    ) -> Result<Rank<'a>> {
        // lbm's interior hides MPI's swap at two ranks, where the GPU
        // reading the shared planes over PCIe in the unpack did not.
        let route = mode.halos.or(Halos::Mpi);
        let padded = d.padded();
        let padded = Box3 {
            n: [padded[0], padded[1], padded[2]],
            ..setup.start.lattice
        };
        let f0 = d.scatter(&setup.start.f0, comm.rank(), NVEL, false);
        let p = params.precision;
        let f0 = fields(params, padded.sites() as u64, &gpu.caps)?.encode(p, &f0, 0.0);
        // Sets 1 to 3 (`Sites`): a thin box has no interior, and then
        // nothing to overlap; an interior of one plane no lead.
        let interior = d.interior().filter(|_| mode.overlap);
        let split = interior.and_then(|i| i.split_planes(LEAD_PLANES.min(i.nz / 2)));
        let parts: Vec<_> = match (interior, split) {
            (_, Some((lead, rest))) => vec![d.boundary(), vec![lead], vec![rest]],
            (Some(i), None) => vec![d.boundary(), vec![i]],
            _ => Vec::new(),
        };
        let axes = d.split_axes();
        let (lattice, halos) = gpu
            .scoped(|| {
                let lattice = Lattice::new(gpu, params, &padded, &f0, &parts)?;
                let fields = [&lattice.buffers[0][..], &lattice.buffers[1][..]];
                let halos = (0..axes)
                    .map(|axis| {
                        let send = halo_send(axis);
                        HaloPlanes::sending(
                            (gpu, comm, route),
                            p,
                            &lattice.groups,
                            (d, axis),
                            &fields,
                            &send,
                        )
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok((lattice, halos))
            })
            .await?;
        let lattice = Slabs(lattice);
        let parted = (interior.is_some(), split.is_some());
        let ops = [0, 1].map(|from| run_ops(&lattice, params.steps, from, parted, axes));
        Ok(Rank {
            gpu,
            comm,
            d,
            precision: p,
            exec: Exec::new(gpu, p, &[&ops[0], &ops[1]], halos),
            kernels: params.steps as usize * lattice.0.entries.len(),
            lattice,
            ops,
            current: 0,
            sample,
        })
    }
}

impl Slab for Rank<'_> {
    /// One run (the case's steps), adding each phase's time to `t`.
    async fn run(&mut self, t: &mut PhaseTimes) -> Result<()> {
        let ops = &self.ops[self.current];
        let (gpu, comm) = (self.gpu, self.comm);
        self.exec.run(gpu, comm, ops, &self.lattice, t).await?;
        self.current = (self.current + self.kernels) % 2;
        Ok(())
    }

    /// The planes this rank owns, logical order, as little-endian f64s;
    /// where the field is checked on a sample, this rank's share of it
    /// instead ([`Rank::share`]).
    async fn owned(&self) -> Result<Vec<u8>> {
        let buffers: Vec<&wgpu::Buffer> = self.lattice.0.buffers[self.current].iter().collect();
        let raw = self.gpu.read_buffers(&buffers).await?;
        let raw: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
        if let Some(sites) = &self.sample {
            return Ok(to_bytes(&self.share(sites, &raw)));
        }
        let field = self.lattice.0.groups.decode(self.precision, &raw);
        Ok(to_bytes(&self.d.owned(&field, NVEL)))
    }
}

impl Rank<'_> {
    /// This rank's part of a sampled check, of a length every rank agrees
    /// on, so that rank 0 sums the parts: the mass and momentum of the sites
    /// it owns, then the distributions of each sampled site, zero where
    /// another rank owns it (each site has one owner, so the sum is its
    /// value, and an unwritten NaN stays NaN).
    fn share(&self, sites: &[usize], raw: &[&[u8]]) -> Vec<f64> {
        let (groups, p, me) = (&self.lattice.0.groups, self.precision, self.comm.rank());
        let at = |site, q| check::value(groups, p, raw, site, q);
        let (m, j) = d3q19::totals_by(self.d.owned_sites(), |o, q| at(self.d.owned_site(o), q));
        let mut out = vec![m, j[0], j[1], j[2]];
        out.extend(crate::parallel::par_map(sites.len() * NVEL, |i| match self
            .d
            .locate(sites[i / NVEL])
        {
            (rank, local) if rank == me => at(local, i % NVEL),
            _ => 0.0,
        }));
        out
    }
}

/// Runs `case` split as `d` over the ranks of `comm`, one slab on `gpu`:
/// validates the first run on rank 0 against the single-rank reference,
/// warms up and times as [`measure`] does. Collective; rank 0 gets the
/// record, the others `None`.
async fn run(
    gpu: &Gpu,
    comm: &dyn Comm,
    case: &Case,
    d: &Decomposition,
    mode: ScaleMode,
    opts: RunOptions,
) -> Result<Option<ResultRecord>> {
    let params = Params::try_from(case)?;
    gpu.require(params.precision)?;
    let n = [d.global[0], d.global[1], d.global[2]];
    let mut rng = rand_pcg::Pcg64::seed_from_u64(SEED);
    let setup = Setup::on(n, &params, params.precision, &mut rng);
    let sample = (params.check == Check::Sample)
        .then(|| Sample::drawn(&setup.start, (params.kernel, params.steps), &mut rng));
    let sites = sample.as_ref().map(|s| s.sites.clone());
    let mut rank = Rank::new(gpu, comm, d, &params, &setup, (mode, sites)).await?;
    let measured = measure(&mut rank, comm, opts).await?;
    let Some(bytes) = &measured.gathered else {
        return Ok(None);
    };
    let (validation, metrics) = match &sample {
        Some(sample) => check_sample(&setup, &params, sample, &from_bytes(bytes)),
        None => check(&setup, &params, &d.assemble(&from_bytes(bytes), NVEL)),
    };
    let sites = setup.start.lattice.sites() as u64;
    let case = params
        .case()
        .param("sites", sites)
        .param("lattice", format!("{}x{}x{}", n[0], n[1], n[2]))
        .param("ranks", d.ranks)
        .param("scaling", mode.scaling.name());
    let record = ResultRecord::new(
        case,
        gpu.info.clone(),
        TimingMethod::WallClock,
        measured.samples.clone(),
        model(params.kernel, sites, params.steps, params.precision),
        validation,
        metrics,
    );
    let mode = ScaleMode {
        halos: rank.exec.route(),
        ..mode
    };
    Ok(Some(measured.attach(record, d, mode)))
}

/// The gathered field against the single-rank f64 reference with the
/// app's tolerances; propagation only moves values, so there it must also
/// be bit-identical. The metrics carry a hash of the field's bits, so runs
/// on different rank counts can be compared exactly.
fn check(setup: &Setup, params: &Params, got: &[f64]) -> (Validation, BTreeMap<String, f64>) {
    let want = setup.expected();
    let v = setup.check(got, &want, params.precision);
    let v = same_bits(v, params, got, &want);
    let (m0, _) = setup.start.f0_totals;
    let (m1, _) = d3q19::totals(got);
    let metrics = BTreeMap::from([
        ("mass_relative_change".to_string(), (m1 - m0) / m0),
        ("field_hash".to_string(), field_hash(got)),
    ]);
    (v, metrics)
}

/// [`check`] of a field checked on a sample: `parts`, every rank's
/// [`Rank::share`] in rank order, summed into the whole field's totals and
/// the sampled sites' distributions. The hash is of the sample's bits.
fn check_sample(
    setup: &Setup,
    params: &Params,
    sample: &Sample,
    parts: &[f64],
) -> (Validation, BTreeMap<String, f64>) {
    let len = 4 + sample.want.len();
    let mut sum = vec![0.0; len];
    for part in parts.chunks_exact(len) {
        for (s, v) in sum.iter_mut().zip(part) {
            *s += v;
        }
    }
    let (totals, got) = ((sum[0], [sum[1], sum[2], sum[3]]), &sum[4..]);
    let scope = Some(sample.describe(setup.start.lattice.sites()));
    let v = setup.check_totals((got, &sample.want), params.precision, totals, scope);
    let v = same_bits(v, params, got, &sample.want);
    let (m0, _) = setup.start.f0_totals;
    let metrics = BTreeMap::from([
        ("mass_relative_change".to_string(), (totals.0 - m0) / m0),
        ("field_hash".to_string(), field_hash(got)),
    ]);
    (v, metrics)
}

/// `v` and, for propagation (which only moves values), `got`'s bits
/// against `want`'s.
fn same_bits(mut v: Validation, params: &Params, got: &[f64], want: &[f64]) -> Validation {
    if params.kernel == KernelName::Propagate {
        let differ = got
            .iter()
            .zip(want.iter())
            .filter(|(g, w)| g.to_bits() != w.to_bits())
            .count();
        let passed = differ == 0 && got.len() == want.len();
        v = v.and(Validation {
            reference: false,
            max_error: differ as f64,
            tolerance: 0.0,
            passed,
            detail: format!(
                "{differ} of {} values differ in bits from the single-rank reference",
                want.len()
            ),
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, Request};
    use crate::apps::lbm::Lbm;
    use crate::error::Error;
    use crate::runner::cpu_capabilities;
    use crate::scale::Scaling;

    fn case(size: &str) -> Case {
        let req = Request::default()
            .set("size", size)
            .set("kernel", "propagate")
            .precisions(&[crate::Precision::F32]);
        Lbm.cases(&req, &cpu_capabilities()).expect("cases")[0].clone()
    }

    #[test]
    fn the_split_follows_the_scaling_mode() {
        let mode = |scaling, axes| ScaleMode {
            scaling,
            axes,
            ..ScaleMode::default()
        };
        let strong = decomposition(&case("8"), mode(Scaling::Strong, 1), 4).expect("plan");
        assert_eq!((strong.global.clone(), strong.local), (vec![8, 8, 8], 2));
        let weak = decomposition(&case("8"), mode(Scaling::Weak, 1), 4).expect("plan");
        assert_eq!((weak.global.clone(), weak.local), (vec![8, 8, 32], 8));
        assert!(matches!(
            decomposition(&case("8"), mode(Scaling::Strong, 1), 3),
            Err(Error::Decomposition(_))
        ));
        let grid = decomposition(&case("8"), mode(Scaling::Weak, 2), 4).expect("plan");
        assert_eq!(
            (grid.global.clone(), grid.grid()),
            (vec![8, 16, 16], [2, 2])
        );
    }

    #[test]
    fn the_check_wants_propagation_bit_identical() {
        let params = Params::try_from(&case("4")).expect("params");
        let setup = Setup::on(
            [4, 4, 4],
            &params,
            params.precision,
            &mut rand_pcg::Pcg64::seed_from_u64(SEED),
        );
        let want = setup.expected();
        let (v, m) = check(&setup, &params, &want);
        assert!(v.passed, "{}", v.detail);
        assert_eq!(m["field_hash"], field_hash(&want));
        let mut off = want.to_vec();
        off[7] = f64::from_bits(off[7].to_bits() + 1);
        let (v, _) = check(&setup, &params, &off);
        assert!(!v.passed && v.detail.contains("1 of"), "{}", v.detail);
    }
}
