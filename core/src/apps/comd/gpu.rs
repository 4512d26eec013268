//! The comd kernels on a GPU: the case's plan built, its system uploaded
//! (positions, velocities, forces and the cell lists of the start), and
//! every output checked against the host reference.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::form::{PairFlops, pair_flops};
use super::md::{self, System};
use super::model::Cells;
use super::plan::{self, Plan};
use super::{
    Init, KernelName, Params, capacity, initial, issued_bytes, model, pack, spec, tolerance, unpack,
};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::error::Result;
use crate::gpu::{Bind, Gpu, Pipeline};
use crate::precision::Precision;

/// A case prepared on a GPU.
pub(super) struct ComdGpu {
    kernel: KernelName,
    precision: Precision,
    start: Arc<System>,
    /// The host reference after one run of the case's kernel.
    want: Arc<System>,
    /// For the force kernel, the force each component may differ by
    /// through pairs at the cutoff (see `straddle_window`); else empty.
    straddles: Arc<Vec<f64>>,
    pairs: (u64, u64),
    flops: PairFlops,
    steps: u64,
    comd_init: bool,
    strides: (u32, u32),
    /// The layout's strides over the cell slots of the gathered positions.
    slot_strides: (u32, u32),
    cap: u32,
    buffers: Vec<wgpu::Buffer>,
    /// (pipeline, dispatch shape) in the order one run records them.
    passes: Vec<(Pipeline, (u32, u32))>,
    group: wgpu::BindGroup,
    /// Bytes one run's loads and stores request ([`issued_bytes`]).
    issued: f64,
}

impl ComdGpu {
    /// Plans `params` for `gpu`, builds its pipelines and uploads its start.
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<ComdGpu> {
        let p = params.precision;
        // Before building the system: the per-atom vectors must fit.
        plan::check_vectors(params, &gpu.caps)?;
        // The start and the references are shared by every mapping, layout
        // and workgroup size of a sweep (a fresh random start per request).
        let key = format!("comd/{}/{:?}/{p}", params.cells, params.init);
        let (start, pairs) = gpu
            .memo
            .get_or_make(&key, || initial(params, p).map(|(s, n)| (Arc::new(s), n)))
            .as_ref()
            .clone()?;
        let steps = params.run_steps();
        let want = gpu
            .memo
            .get_or_make(&format!("{key}/{:?}/{steps}", params.kernel), || {
                expected(&start, params.kernel, steps)
            });
        let straddles = if params.kernel == KernelName::Force {
            gpu.memo.get_or_make(&format!("{key}/straddles"), || {
                start.cutoff_straddles(straddle_window(&start, p))
            })
        } else {
            Arc::new(Vec::new())
        };
        let plan = Plan::new(params, &gpu.caps, start.cells, capacity(&start))?;
        let cells = start.cells.map(|c| c as u32);
        let module = spec(
            p,
            params.wg,
            params.atoms as u32,
            cells,
            plan.cap,
            plan.stage,
            params.layout,
        );
        let mut binds = [Bind::ReadWrite; 9];
        binds[7] = Bind::Uniform;
        let passes = plan
            .passes
            .iter()
            .map(|&(entry, shape)| Ok((gpu.pipeline(&module, entry, &binds)?, shape)))
            .collect::<Result<Vec<_>>>()?;
        let buffers = upload(gpu, params, &start, &plan)?;
        let group = gpu.bind(&passes[0].0, &buffers.iter().collect::<Vec<_>>());
        let cells = Cells {
            system: &start,
            cap: plan.cap,
            pairs,
        };
        let issued = issued_bytes(params, &cells);
        Ok(ComdGpu {
            kernel: params.kernel,
            precision: p,
            start,
            want,
            straddles,
            pairs,
            flops: pair_flops(params.mapping, p),
            steps,
            comd_init: params.init == Init::Comd,
            strides: plan.strides,
            slot_strides: plan.slot_strides,
            cap: plan.cap,
            buffers,
            passes,
            group,
            issued,
        })
    }
}

/// The cell lists of `s` as the kernels keep them: the atom count of each
/// cell, and `cap` slots per cell followed by every atom's cell.
fn cell_lists(s: &System, cap: u32) -> (Vec<u32>, Vec<u32>) {
    let ncells = s.ncells();
    let cap = cap as usize;
    let mut counts = vec![0u32; ncells];
    let mut slots = vec![u32::MAX; ncells * cap + s.atoms()];
    for (c, atoms_in) in s.bin().iter().enumerate() {
        counts[c] = atoms_in.len() as u32;
        for (k, &a) in atoms_in.iter().enumerate() {
            slots[c * cap + k] = a;
        }
        for &a in atoms_in {
            slots[ncells * cap + a as usize] = c as u32;
        }
    }
    (counts, slots)
}

/// The buffers of a case, in binding order: positions, velocities and
/// forces of the start; energies poisoned; the cell lists (force reads
/// cells binned and gathered on the host); the status word; the
/// coefficients; and the gathered positions, poisoned where a kernel
/// writes them.
fn upload(gpu: &Gpu, params: &Params, start: &System, plan: &Plan) -> Result<Vec<wgpu::Buffer>> {
    let p = params.precision;
    let (n, r, s) = (start.atoms(), plan.reals as usize, plan.strides);
    let pos = gpu.storage_init("comd-pos", &p.encode(&pack(&start.pos, n, s, r)))?;
    let vel = gpu.storage_init("comd-vel", &p.encode(&pack(&start.vel, n, s, r)))?;
    let frc = gpu.storage_init("comd-frc", &p.encode(&pack(&start.frc, n, s, r)))?;
    let poison = p.poison_pattern();
    let epot = gpu.storage_poisoned("comd-epot", params.atoms * p.real_bytes(), &poison)?;
    let (counts, slots) = cell_lists(start, plan.cap);
    let count = gpu.storage_init("comd-count", bytemuck::cast_slice(&counts))?;
    let cell_atoms = gpu.storage_init("comd-cells", bytemuck::cast_slice(&slots))?;
    let status = gpu.storage_init("comd-status", bytemuck::cast_slice(&[0u32; 4]))?;
    let nslots = plan.nslots as usize;
    let cpos = if params.kernel == KernelName::Force {
        let mut gathered = vec![0.0; 3 * nslots];
        for (t, &a) in slots[..nslots].iter().enumerate() {
            if a != u32::MAX {
                let a = a as usize;
                gathered[3 * t..3 * t + 3].copy_from_slice(&start.pos[3 * a..3 * a + 3]);
            }
        }
        let packed = pack(
            &gathered,
            nslots,
            plan.slot_strides,
            plan.slot_reals as usize,
        );
        gpu.storage_init("comd-cell-pos", &p.encode(&packed))?
    } else {
        gpu.storage_poisoned("comd-cell-pos", plan.slot_reals * p.real_bytes(), &poison)?
    };
    let l = start.box_len;
    let coef = [
        l[0],
        l[1],
        l[2],
        start.cells[0] as f64 / l[0],
        start.cells[1] as f64 / l[1],
        start.cells[2] as f64 / l[2],
        md::CUTOFF * md::CUTOFF,
        md::SIGMA * md::SIGMA,
        // The force kernels' pair term takes 2, 24 and 48 eps (14 below)
        // and half the shift: each atom keeps half of a pair's energy.
        2.0 * md::EPSILON,
        24.0 * md::EPSILON,
        0.5 * md::shift(),
        md::DT / (2.0 * md::mass()),
        md::DT,
        // The force kernel gives the closing half kick in the step.
        f64::from(u8::from(params.kernel == KernelName::Step)),
        48.0 * md::EPSILON,
    ];
    // Padded to whole 16-byte vectors, as a uniform array's stride requires.
    let mut coef = p.encode(&coef);
    coef.resize(coef.len().next_multiple_of(16), 0);
    let coef = gpu.uniform("comd-coef", &coef);
    Ok(vec![
        pos, vel, frc, epot, count, cell_atoms, status, coef, cpos,
    ])
}

/// How far from the cutoff's a pair's squared distance can be and still
/// fall on the other side of it in precision `p`. A kernel moves a
/// neighbour to its image (adding a shift up to L) and subtracts
/// positions, each rounded once: at most 2u (L + rc) off per component
/// over a box of largest side L. Through r^2 that is 2 sqrt(3) rc times
/// as much, and the squares' sum and the cutoff's own r^2 in `p` add
/// about 4u rc^2. f32's window at L = 22 A is 7e-5 A^2 (about 6e-6 A in r).
fn straddle_window(s: &System, p: Precision) -> f64 {
    let u = p.unit_roundoff();
    let rc = md::CUTOFF;
    let l = s.box_len.iter().copied().fold(0.0, f64::max);
    2.0 * 3f64.sqrt() * rc * 2.0 * u * (l + rc) + 4.0 * u * rc * rc
}

/// `got` moved towards `want` by up to `slack`: a difference the slack
/// explains counts as none. A value that is not finite stays so (it is
/// an unwritten element).
fn within_slack(got: f64, want: f64, slack: f64) -> f64 {
    if !got.is_finite() {
        return got;
    }
    let d = got - want;
    want + d.signum() * (d.abs() - slack).max(0.0)
}

/// The host reference after one run of `kernel` from `start`.
fn expected(start: &System, kernel: KernelName, steps: u64) -> System {
    let mut s = start.clone();
    match kernel {
        KernelName::AdvanceVelocity => s.kick(),
        KernelName::AdvancePosition => s.drift(),
        KernelName::Redistribute => {}
        KernelName::Force => {
            s.compute_forces();
        }
        KernelName::Step => {
            for _ in 0..steps {
                s.step();
            }
        }
    }
    s
}

impl ComdGpu {
    fn vectors(&self, raw: &[u8]) -> Vec<f64> {
        unpack(
            &self.precision.decode(raw),
            self.start.atoms(),
            self.strides,
        )
    }

    /// Positions read back, each moved by a box length where it wrapped on
    /// the other side of the box than the reference (an atom at a face can
    /// round either way).
    fn periodic(&self, raw: &[u8], want: &System) -> Vec<f64> {
        let mut got = self.vectors(raw);
        for (k, (g, w)) in got.iter_mut().zip(&want.pos).enumerate() {
            let l = want.box_len[k % 3];
            if *g - w > 0.5 * l {
                *g -= l;
            } else if w - *g > 0.5 * l {
                *g += l;
            }
        }
        got
    }

    /// Relative force tolerance (against a floor of 0.05 eV/A). In f32 the
    /// positions themselves carry an absolute rounding of eps L over a box
    /// of length L, and the lattice's stiffness (tens of eV/A^2 summed over
    /// the neighbours) turns that into force errors that grow with the box:
    /// the bound is 500 eps_f32 L in eV/A. Measured worst cases: H100 7.5e-4
    /// eV/A at L = 72 A and 2.7e-3 at 289 A; H200, 25 launch shapes at L = 72
    /// A each on fresh random displacements, 3.5e-5 to 2.0e-3 eV/A (235 eps
    /// L: the tail of the random draws, so a single run is no bound).
    fn force_tolerance(&self) -> f64 {
        let (tol, _) = tolerance(self.precision);
        if self.precision == Precision::F32 {
            let l = self.start.box_len.iter().copied().fold(0.0, f64::max);
            tol.max(500.0 * f64::from(f32::EPSILON) * l / 0.05)
        } else {
            tol
        }
    }

    /// Every atom in exactly one cell, inside that cell's bounds (give or
    /// take rounding at the faces), and no cell over capacity (`overflow`:
    /// the status word, the fullest overflowing cell's count or 0).
    fn check_cells(&self, s: &System, counts: &[u32], slots: &[u32], overflow: u32) -> Validation {
        let peak = overflow.max(counts.iter().copied().max().unwrap_or(0));
        if peak > self.cap {
            return Validation::fail(format!(
                "a link cell holds {peak} atoms, more than its {} slots: raise the capacity",
                self.cap
            ));
        }
        let n = s.atoms();
        let mut seen = vec![0u32; n];
        let mut misplaced = 0usize;
        for (c, &count) in counts.iter().enumerate() {
            let k = [
                c % s.cells[0],
                (c / s.cells[0]) % s.cells[1],
                c / (s.cells[0] * s.cells[1]),
            ];
            for &a in &slots[c * self.cap as usize..c * self.cap as usize + count as usize] {
                let Some(hits) = seen.get_mut(a as usize) else {
                    misplaced += 1;
                    continue;
                };
                *hits += 1;
                let tail = slots.get(counts.len() * self.cap as usize + a as usize);
                misplaced += usize::from(tail != Some(&(c as u32)));
                let outside = (0..3).any(|d| {
                    let w = s.box_len[d] / s.cells[d] as f64;
                    let x = s.pos[3 * a as usize + d];
                    let slack = 1e-5 * s.box_len[d];
                    x < k[d] as f64 * w - slack || x > (k[d] + 1) as f64 * w + slack
                });
                misplaced += usize::from(outside);
            }
        }
        let wrong = seen.iter().filter(|&&h| h != 1).count();
        let passed = wrong == 0 && misplaced == 0;
        Validation {
            reference: false,
            max_error: (wrong + misplaced) as f64,
            tolerance: 0.0,
            passed,
            detail: format!(
                "{n} atoms in {} cells: {wrong} not binned exactly once, {misplaced} outside their cell; fullest cell {peak} of {}",
                counts.len(),
                self.cap
            ),
        }
    }

    /// Every occupied slot's gathered position is its atom's, bit for bit.
    fn check_gathered(&self, counts: &[u32], slots: &[u32], raw: &[u8]) -> Validation {
        let nslots = counts.len() * self.cap as usize;
        let got = unpack(&self.precision.decode(raw), nslots, self.slot_strides);
        let mut wrong = 0usize;
        for (c, &count) in counts.iter().enumerate() {
            for t in c * self.cap as usize..c * self.cap as usize + count.min(self.cap) as usize {
                let a = slots[t] as usize;
                let same = (0..3).all(|d| {
                    self.start.pos.get(3 * a + d).map(|x| x.to_bits())
                        == Some(got[3 * t + d].to_bits())
                });
                wrong += usize::from(!same);
            }
        }
        Validation {
            reference: false,
            max_error: wrong as f64,
            tolerance: 0.0,
            passed: wrong == 0,
            detail: format!("{wrong} gathered positions differ from their atoms'"),
        }
    }

    /// Total energy per atom of the start and of `got` (positions' energies
    /// and velocities from the kernel).
    fn energy_drift(&self, epot: &[f64], vel: &[f64]) -> (f64, f64, f64) {
        let (p0, k0) = self.start.energies();
        let n = self.start.atoms() as f64;
        let p1 = epot.iter().sum::<f64>() / n;
        let k1 = 0.5 * md::mass() * vel.iter().map(|v| v * v).sum::<f64>() / n;
        let e0 = p0 + k0;
        (e0, p1 + k1, ((p1 + k1) / e0 - 1.0).abs())
    }
}

impl Kernel for ComdGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        one_pass_runs(enc, "comd", runs, ts, |pass, _| {
            for _ in 0..self.steps {
                for (pipe, shape) in &self.passes {
                    pipe.set(pass, &self.group);
                    pass.dispatch_workgroups(shape.0, shape.1, 1);
                }
            }
        });
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        let b = &self.buffers;
        match self.kernel {
            KernelName::AdvanceVelocity => vec![&b[1]],
            KernelName::AdvancePosition => vec![&b[0]],
            KernelName::Redistribute => vec![&b[4], &b[5], &b[6], &b[8]],
            KernelName::Force => vec![&b[2], &b[3]],
            KernelName::Step => vec![&b[0], &b[1], &b[3], &b[6]],
        }
    }

    fn validate(&self, out: &[&[u8]]) -> Validation {
        let p = self.precision;
        let (tol, drift_tol) = tolerance(p);
        let want = &self.want;
        match self.kernel {
            KernelName::AdvanceVelocity => Validation::compare(
                &self.vectors(out[0]),
                &want.vel,
                tol,
                1e-3,
                "velocities after a half kick",
            ),
            KernelName::AdvancePosition => Validation::compare(
                &self.periodic(out[0], want),
                &want.pos,
                tol,
                1.0,
                "positions after a drift",
            ),
            KernelName::Redistribute => {
                let counts: Vec<u32> = bytemuck::pod_collect_to_vec(out[0]);
                let slots: Vec<u32> = bytemuck::pod_collect_to_vec(out[1]);
                let status: Vec<u32> = bytemuck::pod_collect_to_vec(out[2]);
                self.check_cells(&self.start, &counts, &slots, status[0])
                    .and(self.check_gathered(&counts, &slots, out[3]))
            }
            KernelName::Force => {
                let epot = p.decode(out[1]);
                let got = self.vectors(out[0]);
                let eased = self.straddles.iter().filter(|&&a| a > 0.0).count();
                let what = format!(
                    "forces ({eased} components eased by pairs within rounding of the cutoff)"
                );
                let mut v = Validation::compare_by(
                    want.frc.len(),
                    |i| within_slack(got[i], want.frc[i], self.straddles[i]),
                    |i| want.frc[i],
                    self.force_tolerance(),
                    0.05,
                    &what,
                )
                .and(Validation::compare(
                    &epot,
                    &want.epot,
                    tol,
                    0.01,
                    "atom energies",
                ));
                if self.comd_init {
                    let pe = epot.iter().sum::<f64>() / self.start.atoms() as f64;
                    let t = if p == Precision::F32 { 1e-5 } else { 1e-10 };
                    v = v.and(Validation::compare(
                        &[pe],
                        &[md::COMD_PE0],
                        t,
                        1.0,
                        "step-0 potential energy per atom vs CoMD's -1.243619295058",
                    ));
                }
                v
            }
            KernelName::Step => {
                let status: Vec<u32> = bytemuck::pod_collect_to_vec(out[3]);
                if status[0] > self.cap {
                    return Validation::fail(format!(
                        "a link cell overflowed ({} > {})",
                        status[0], self.cap
                    ));
                }
                let steps = self.steps as f64;
                let vel = self.vectors(out[1]);
                let v = Validation::compare(
                    &self.periodic(out[0], want),
                    &want.pos,
                    tol * steps,
                    1.0,
                    "positions",
                )
                .and(Validation::compare(
                    &vel,
                    &want.vel,
                    10.0 * tol * steps,
                    1e-3,
                    "velocities",
                ));
                let (e0, e1, drift) = self.energy_drift(&p.decode(out[2]), &vel);
                v.and(Validation {
                    reference: false,
                    max_error: drift,
                    tolerance: drift_tol,
                    passed: drift <= drift_tol,
                    detail: format!(
                        "energy per atom {e0:.9} -> {e1:.9} eV over {} steps",
                        self.steps
                    ),
                })
            }
        }
    }

    fn model(&self) -> Model {
        model(
            self.kernel,
            self.start.atoms() as u64,
            self.start.ncells() as u64,
            self.pairs,
            self.steps,
            self.precision,
            self.flops,
        )
    }

    fn issued_bytes(&self) -> Option<f64> {
        Some(self.issued)
    }

    fn metrics(&self, out: &[&[u8]]) -> BTreeMap<String, f64> {
        let n = self.start.atoms() as f64;
        let (p0, k0) = self.start.energies();
        let mut m = BTreeMap::from([
            ("atoms".to_string(), n),
            ("pe0_per_atom".to_string(), p0),
            ("ke0_per_atom".to_string(), k0),
            ("atom_updates_per_run".to_string(), n * self.steps as f64),
            ("cell_slots".to_string(), f64::from(self.cap)),
            (
                "mean_cell_occupancy".to_string(),
                n / self.start.ncells() as f64,
            ),
        ]);
        if self.kernel == KernelName::Step {
            let vel = self.vectors(out[1]);
            let (e0, e1, _) = self.energy_drift(&self.precision.decode(out[2]), &vel);
            m.insert("energy_ratio".into(), e1 / e0);
        }
        m
    }
}
