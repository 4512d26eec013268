//! The GPU side of a case: buffers, pipelines and batches, the dispatches
//! of one run, and the checks of its outputs.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::plan::{Plan, dulist_slots, usum_shape, workgroup_widths};
use super::sna::{self, C, Config};
use super::stage::{StageRefs, stage_inputs};
use super::{DULIST, FIJ, FORCE, ULIST, UTOT, YLIST};
use super::{
    Dims, KernelName, Layout, Params, encode_inputs, issued_bytes, model, problem, spec, tolerance,
};
use crate::app::{Kernel, Model, Timestamps, Validation};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline, Timer};
use crate::params::Choice;
use crate::precision::Precision;

/// What the outputs of one run must match.
enum Expected {
    /// A kernel timed alone: the problem's stage references.
    Stage(Arc<StageRefs>),
    /// force: forces on every atom, from the reference file (true) or the CPU.
    Forces(Vec<f64>, bool),
}

/// A case prepared on the GPU.
pub(super) struct SnapGpu {
    precision: Precision,
    kernel: KernelName,
    /// Half elements per U-like array.
    ny: usize,
    layout: Layout,
    config: Arc<Config>,
    batch: usize,
    steps: u64,
    /// In binding order.
    buffers: Vec<wgpu::Buffer>,
    /// One bind group per batch (they differ in the batch uniform).
    groups: Vec<wgpu::BindGroup>,
    /// Run for every batch, in order: (kernel stage, pipeline, dispatch shape).
    stages: Vec<(KernelName, Pipeline, (u32, u32))>,
    gather: Option<(Pipeline, (u32, u32))>,
    profile: Option<Profile>,
    expected: Expected,
    model: Model,
    /// Bytes one run's loads and stores request ([`issued_bytes`]).
    issued: Option<f64>,
}

/// The buffers of a case, in binding order: the inputs and tables, then
/// the scratch arrays of one batch and the forces, poisoned.
fn buffers(
    gpu: &Gpu,
    p: Precision,
    (config, t, layout): (&Config, &sna::Tables, Layout),
    batch: usize,
    (inp, tab): (&[f64], &[u32]),
) -> Result<Vec<wgpu::Buffer>> {
    let rb = p.real_bytes();
    let poison = p.poison_pattern();
    let cplx = |n: usize| 2 * n as u64 * rb;
    let npb = batch * config.nnbr;
    let (ny, nu) = (t.ny(), t.nu());
    Ok(vec![
        gpu.storage_init("snap-inp", &p.encode(inp))?,
        gpu.storage_init("snap-tab", bytemuck::cast_slice(tab))?,
        gpu.storage_poisoned("snap-ulist", cplx(npb * ny), &poison)?,
        gpu.storage_poisoned("snap-dulist", cplx(npb * dulist_slots(layout, t)), &poison)?,
        gpu.storage_poisoned("snap-utot", cplx(batch * nu), &poison)?,
        gpu.storage_poisoned("snap-ylist", cplx(batch * ny), &poison)?,
        gpu.storage_poisoned("snap-fij", 3 * config.pairs() as u64 * rb, &poison)?,
        gpu.storage_poisoned("snap-force", 3 * config.ntotal as u64 * rb, &poison)?,
    ])
}

/// A problem shared by every variant, precision and workgroup size of a
/// request: its configuration, the forces a reference file gives, and the
/// reference forces once computed (fresh random atoms per request).
struct Shared {
    config: Arc<Config>,
    file_forces: Option<Vec<f64>>,
    forces: OnceLock<Vec<f64>>,
    stages: OnceLock<Arc<StageRefs>>,
}

impl Shared {
    fn of(gpu: &Gpu, params: &Params) -> Result<Arc<Shared>> {
        let key = format!(
            "snap/{}/{}/{}",
            params.cells, params.twojmax, params.refdata
        );
        gpu.memo
            .get_or_make(&key, || {
                problem(params).map(|(config, file_forces)| {
                    Arc::new(Shared {
                        config: Arc::new(config),
                        file_forces,
                        forces: OnceLock::new(),
                        stages: OnceLock::new(),
                    })
                })
            })
            .as_ref()
            .clone()
    }

    /// The CPU reference forces.
    fn forces(&self) -> Vec<f64> {
        self.forces.get_or_init(|| self.config.forces()).clone()
    }

    /// The CPU reference of the kernels timed alone.
    fn stages(&self, t: &sna::Tables, geo: &[[f64; 8]]) -> Arc<StageRefs> {
        self.stages
            .get_or_init(|| Arc::new(StageRefs::new(self.config.states(t, geo))))
            .clone()
    }
}

impl SnapGpu {
    /// Plans `params` for `gpu`, builds its pipelines and uploads its inputs
    /// (for a kernel timed alone, those the CPU reference gives it).
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<SnapGpu> {
        let p = params.precision;
        let layout = Layout::of(params.variant);
        let shared = Shared::of(gpu, params)?;
        let config = shared.config.clone();
        let t = config.tables();
        let ny = t.ny();
        let plan = Plan::new(params, &gpu.caps, &config, &t)?;
        let batch = plan.batch;
        let geo = config.geometries();
        let (inp, tab) = encode_inputs(&t, &config, &geo);
        let dims = Dims::new(&t, config.nnbr, batch, config.nlocal, config.ntotal);
        let usum_wg = usum_shape(config.nnbr).1;
        let module = |entry: &str| {
            spec(
                p,
                params.wg,
                workgroup_widths(entry, usum_wg),
                &dims,
                layout,
            )
        };
        let binds = [
            Bind::Read,
            Bind::Read,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::Uniform,
        ];
        let stages = plan
            .stages
            .iter()
            .map(|&(k, entry, sh)| Ok((k, gpu.pipeline(&module(entry), entry, &binds)?, sh)))
            .collect::<Result<Vec<_>>>()?;
        let gather = match plan.gather {
            Some(sh) => Some((gpu.pipeline(&module("gather"), "gather", &binds)?, sh)),
            None => None,
        };
        let buffers = buffers(gpu, p, (&config, &t, layout), batch, (&inp, &tab))?;
        let expected = match &shared.file_forces {
            Some(f) if params.kernel == KernelName::Force => Expected::Forces(f.clone(), true),
            _ if params.kernel == KernelName::Force => Expected::Forces(shared.forces(), false),
            _ => {
                let refs = shared.stages(&t, &geo);
                let problem = (config.as_ref(), &t, geo.as_slice());
                stage_inputs(gpu, params, problem, &refs, layout, &buffers)?;
                // Made here, not in the check, so the prepare phase holds
                // the reference's cost.
                match params.kernel {
                    KernelName::ComputeU => {
                        refs.utot_full(&t);
                    }
                    KernelName::ComputeDu => {
                        refs.du(problem.0, &t, &geo);
                    }
                    KernelName::ComputeDe => {
                        refs.fij(problem.0, &t, &geo);
                    }
                    _ => {}
                }
                Expected::Stage(refs)
            }
        };
        let first = &stages
            .first()
            .ok_or_else(|| Error::bad_param("kernel", "no stage"))?
            .1;
        let groups = plan
            .batches
            .iter()
            .map(|&(start, count)| {
                let u = gpu.uniform(
                    "snap-batch",
                    bytemuck::cast_slice(&[start as u32, count as u32, 0, 0]),
                );
                let mut res: Vec<wgpu::BindingResource> =
                    buffers.iter().map(|x| x.as_entire_binding()).collect();
                res.push(u.as_entire_binding());
                gpu.bind_resources(first, &res)
            })
            .collect();
        let steps = params.run_steps();
        let profile = gather
            .as_ref()
            .and_then(|_| Profile::new(gpu, plan.batches.len()));
        Ok(SnapGpu {
            model: model(params.kernel, &t, &config, steps, p, layout.fused),
            issued: issued_bytes(&plan, &t, &config, p, steps),
            ny,
            precision: p,
            kernel: params.kernel,
            layout,
            config,
            batch,
            steps,
            buffers,
            groups,
            profile,
            stages,
            gather,
            expected,
        })
    }

    fn reals(&self, raw: &[u8]) -> Vec<f64> {
        self.precision.decode(raw)
    }

    /// `n` items of `ne` complex values, read where the case's layout put
    /// them, against the reference's `want(item, element)`.
    fn compare_items(
        &self,
        raw: &[u8],
        (n, ne): (usize, usize),
        want: impl Fn(usize, usize) -> C + Sync + Send,
        what: &str,
    ) -> Validation {
        let l = self.layout;
        self.compare_reals(
            raw,
            2 * n * ne,
            |i| 2 * l.cix(i / 2 / ne, i / 2 % ne, n, ne) + i % 2,
            |i| {
                let c = want(i / 2 / ne, i / 2 % ne);
                [c.re, c.im][i % 2]
            },
            what,
        )
    }

    /// `n` reals, real `i` read at slot `slot(i)` of `raw`, against
    /// `want(i)`, with error relative to the reference's largest element.
    fn compare_reals(
        &self,
        raw: &[u8],
        n: usize,
        slot: impl Fn(usize) -> usize + Sync + Send,
        want: impl Fn(usize) -> f64 + Sync + Send,
        what: &str,
    ) -> Validation {
        let p = self.precision;
        if raw.len() < n * p.real_bytes() as usize {
            return Validation::fail(format!(
                "{what}: {} bytes read, {n} reals expected",
                raw.len()
            ));
        }
        let scale = crate::parallel::worst(n, |i| Some(want(i).abs())).0;
        Validation::compare_by(
            n,
            |i| p.read(raw, slot(i)),
            want,
            tolerance(p).0,
            scale.max(1e-300),
            what,
        )
    }

    fn forces_check(&self, got: &[f64], want: &[f64], file: bool) -> Validation {
        if let Some(k) = got.iter().position(|x| !x.is_finite()) {
            return Validation::fail(format!("force component {k} unwritten or not finite"));
        }
        let rms = sna::rms_deviation(got, want);
        let norm = sna::rms_deviation(want, &vec![0.0; want.len()]);
        let tol = match self.precision {
            Precision::F32 => tolerance(Precision::F32).1 * norm.max(1e-3),
            p => tolerance(p).1,
        };
        Validation {
            reference: false,
            max_error: rms,
            tolerance: tol,
            passed: rms <= tol,
            detail: format!(
                "RMS |F| deviation {rms:.3e} eV/A over {} atoms vs {} (RMS |F| {norm:.3e}, tol {tol:.1e})",
                self.config.ntotal,
                if file {
                    "the reference file"
                } else {
                    "the CPU f64 reference"
                }
            ),
        }
    }
}

/// Per-stage GPU time of the force case's first run (its validation run):
/// one pass per stage and batch with its own timestamps, resolved into a
/// buffer read back with the forces. Gives the seed's profile table (each
/// kernel's share of a force call) from the same run that is validated.
struct Profile {
    timer: Timer,
    done: std::cell::Cell<bool>,
}

impl Profile {
    /// `None` without pass timestamps, or with more passes than a query set holds.
    fn new(gpu: &Gpu, batches: usize) -> Option<Profile> {
        let passes = 4 * batches as u32 + 1;
        if !gpu.caps.timestamps || 2 * passes > wgpu::QUERY_SET_MAX_QUERIES {
            return None;
        }
        Some(Profile {
            timer: Timer::new(gpu, passes),
            done: std::cell::Cell::new(false),
        })
    }

    /// Seconds per stage (the four kernels, then the gather) from the resolved ticks.
    fn stage_seconds(&self, raw: &[u8]) -> Option<[f64; 5]> {
        let ticks = Timer::ticks(raw);
        let passes = ticks.len();
        let mut s = [0.0; 5];
        for (q, [start, end]) in ticks.into_iter().enumerate() {
            if end < start {
                return None;
            }
            let stage = if q + 1 == passes { 4 } else { q % 4 };
            s[stage] += self.timer.seconds(end - start);
        }
        Some(s)
    }
}

impl SnapGpu {
    /// The dispatches of kernel stage `k` (all of them when `None`) for one batch.
    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        group: &wgpu::BindGroup,
        k: Option<KernelName>,
    ) {
        for (stage, pipe, shape) in &self.stages {
            if k.is_none_or(|k| k == *stage) {
                pipe.set(pass, group);
                pass.dispatch_workgroups(shape.0, shape.1, 1);
            }
        }
    }

    fn dispatch_gather(&self, pass: &mut wgpu::ComputePass<'_>) {
        if let (Some((pipe, shape)), Some(group)) = (&self.gather, self.groups.first()) {
            pipe.set(pass, group);
            pass.dispatch_workgroups(shape.0, shape.1, 1);
        }
    }

    /// One force call, a pass per stage and batch, each timed into `p`.
    fn encode_profiled(&self, enc: &mut wgpu::CommandEncoder, p: &Profile) {
        let mut q = 0;
        let mut timed = |enc: &mut wgpu::CommandEncoder, f: &dyn Fn(&mut wgpu::ComputePass<'_>)| {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("snap-profile"),
                timestamp_writes: p.timer.passes(q).pass(true, true),
            });
            f(&mut pass);
            q += 1;
        };
        for group in &self.groups {
            for &k in &KernelName::ALL[..4] {
                timed(enc, &|pass| self.dispatch(pass, group, Some(k)));
            }
        }
        timed(enc, &|pass| self.dispatch_gather(pass));
        p.timer.resolve(enc);
    }
}

impl Kernel for SnapGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut steps = self.steps;
        if let Some(p) = &self.profile
            && ts == Timestamps::None
            && !p.done.replace(true)
        {
            self.encode_profiled(enc, p);
            steps -= 1;
        }
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("snap"),
            timestamp_writes: ts.pass(true, true),
        });
        for _ in 0..steps {
            for group in &self.groups {
                self.dispatch(&mut pass, group, None);
            }
            self.dispatch_gather(&mut pass);
        }
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        let b = &self.buffers;
        match self.kernel {
            KernelName::ComputeU => vec![&b[UTOT], &b[ULIST]],
            KernelName::ComputeY => vec![&b[YLIST]],
            KernelName::ComputeDu => vec![&b[DULIST]],
            KernelName::ComputeDe => vec![&b[FIJ]],
            KernelName::Force => {
                let mut v = vec![&b[FORCE]];
                v.extend(self.profile.as_ref().map(|p| p.timer.buffer()));
                v
            }
        }
    }

    fn validate(&self, out: &[&[u8]]) -> Validation {
        let refs = match &self.expected {
            Expected::Forces(f, file) => return self.forces_check(&self.reals(out[0]), f, *file),
            Expected::Stage(refs) => refs,
        };
        let (ny, nnbr) = (self.ny, self.config.nnbr);
        let (atoms, pairs) = (self.config.nlocal, self.config.pairs());
        let states = &refs.states;
        match self.kernel {
            KernelName::ComputeU => match refs.utot_full.get() {
                Some(full) => {
                    let nu = full.first().map_or(0, Vec::len);
                    self.compare_items(out[0], (atoms, nu), |a, f| full[a][f], "total U (whole)")
                        .and(self.compare_items(
                            out[1],
                            (pairs, ny),
                            |q, e| refs.ulist(q, nnbr)[e],
                            "U of every pair",
                        ))
                }
                None => Validation::fail("whole total U reference not made".into()),
            },
            KernelName::ComputeY => {
                self.compare_items(out[0], (atoms, ny), |a, e| states[a].y[e], "Y")
            }
            KernelName::ComputeDu => match refs.du.get() {
                Some(du) => {
                    self.compare_items(out[0], (pairs, 3 * ny), |q, e| du[q][e], "dU of every pair")
                }
                None => Validation::fail("dU reference not made".into()),
            },
            KernelName::ComputeDe => match refs.fij.get() {
                Some(f) => {
                    self.compare_reals(out[0], f.len(), |i| i, |i| f[i], "dE/dr of every pair")
                }
                None => Validation::fail("dE/dr reference not made".into()),
            },
            KernelName::Force => Validation::fail("force is checked against forces".into()),
        }
    }

    fn model(&self) -> Model {
        self.model
    }

    fn issued_bytes(&self) -> Option<f64> {
        self.issued
    }

    fn metrics(&self, out: &[&[u8]]) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::from([
            ("atoms".to_string(), self.config.nlocal as f64),
            ("pairs".to_string(), self.config.pairs() as f64),
            ("batches".to_string(), self.groups.len() as f64),
            ("batch_atoms".to_string(), self.batch as f64),
            (
                "device_bytes".to_string(),
                self.buffers.iter().map(|b| b.size() as f64).sum(),
            ),
            (
                "atom_steps_per_run".to_string(),
                (self.config.nlocal as u64 * self.steps) as f64,
            ),
        ]);
        if let (Expected::Forces(f, _), Some(raw)) = (&self.expected, out.first()) {
            m.insert(
                "rms_force_deviation".into(),
                sna::rms_deviation(&self.reals(raw), f),
            );
        }
        if let (Some(p), Some(raw)) = (&self.profile, out.get(1))
            && let Some(s) = p.stage_seconds(raw)
        {
            let total: f64 = s.iter().sum();
            m.insert("profiled_call_ms".into(), total * 1e3);
            let names = KernelName::NAMES[..4].iter().chain(&["gather"]);
            for (name, t) in names.zip(s) {
                m.insert(format!("share_{name}"), t / total.max(1e-300));
            }
        }
        m
    }
}
