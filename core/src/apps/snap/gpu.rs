//! The GPU side of a case: buffers, pipelines and batches, the dispatches
//! of one run, and the checks of its outputs.

use std::collections::BTreeMap;

use super::sna::{self, C, Config};
use super::{Dims, KERNELS, Layout, encode_inputs, model, problem, spec, tolerance};
use crate::app::{Case, Kernel, Model, Timestamps, Validation};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::gpu::{Bind, Pipeline, dispatch_shape};
use crate::precision::Precision;

/// What the outputs of one run must match.
enum Expected {
    /// compute_U: total U of every atom and U of every pair.
    U(Vec<C>, Vec<C>),
    /// compute_Y: Y of every atom.
    Y(Vec<C>),
    /// compute_dU: dU of every pair (3 x NY each).
    Du(Vec<C>),
    /// compute_dE: fij of every pair.
    Fij(Vec<f64>),
    /// force: forces on every atom, from the reference file (true) or the CPU.
    Forces(Vec<f64>, bool),
}

// Bindings of the outputs (0 and 1 are the inputs, 8 the batch uniform).
const ULIST: usize = 2;
const DULIST: usize = 3;
const UTOT: usize = 4;
const YLIST: usize = 5;
const FIJ: usize = 6;
const FORCE: usize = 7;

/// A case prepared on the GPU.
pub(super) struct SnapGpu {
    precision: Precision,
    /// Half elements per U-like array.
    ny: usize,
    layout: Layout,
    config: Config,
    batch: usize,
    steps: u64,
    /// In binding order.
    buffers: Vec<wgpu::Buffer>,
    /// One bind group per batch (they differ in the batch uniform).
    groups: Vec<wgpu::BindGroup>,
    /// Run for every batch, in order: (index in [`KERNELS`], pipeline, dispatch shape).
    stages: Vec<(usize, Pipeline, (u32, u32))>,
    gather: Option<(Pipeline, (u32, u32))>,
    profile: Option<Profile>,
    expected: Expected,
    model: Model,
}

/// Atoms per batch: the request, else as many as the largest scratch array
/// (dU: 3 x NY complex per pair) lets one binding hold.
fn batch_atoms(case: &Case, c: &Config, ny: usize, p: Precision, gpu: &Gpu) -> Result<usize> {
    let per_atom = (c.nnbr * ny * 6) as u64 * p.real_bytes();
    let max = gpu.caps.max_storage_binding.min(gpu.caps.max_buffer);
    let fit = (max / per_atom) as usize;
    if fit == 0 {
        return Err(Error::OverLimit {
            limit: "max_storage_buffer_binding_size",
            needed: per_atom,
            max,
        });
    }
    let asked = case.uint("batch")? as usize;
    if case.kernel != "force" {
        // A kernel timed alone keeps every atom's arrays for its validation.
        if asked > 0 && asked < c.nlocal {
            return Err(Error::bad_param(
                "batch",
                format!(
                    "{} runs on all atoms at once; batches split only the force kernel",
                    case.kernel
                ),
            ));
        }
        if fit < c.nlocal {
            return Err(Error::OverLimit {
                limit: "max_storage_buffer_binding_size",
                needed: per_atom * c.nlocal as u64,
                max,
            });
        }
    }
    let b = if asked > 0 { asked } else { fit };
    let b = b.min(fit).min(c.nlocal);
    Ok(b)
}

/// A kernel timed alone: uploads its inputs from the CPU reference (so it
/// runs without the kernels before it) and returns what it must produce.
fn stage_inputs(
    gpu: &Gpu,
    case: &Case,
    config: &Config,
    t: &sna::Tables,
    geo: &[[f64; 8]],
    layout: Layout,
    buffers: &[wgpu::Buffer],
) -> Expected {
    let (p, kernel) = (case.precision, case.kernel.as_str());
    let ny = t.ny();
    let states = config.states(t, geo);
    let ulists: Vec<&[C]> = states
        .iter()
        .flat_map(|s| s.ulist.iter().map(Vec::as_slice))
        .collect();
    let upload = |buf: usize, items: &[&[C]], ne: usize| {
        gpu.queue
            .write_buffer(&buffers[buf], 0, &p.encode(&layout.pack(items, ne)));
    };
    let per_atom = |f: fn(&sna::AtomState) -> &[C]| -> Vec<&[C]> { states.iter().map(f).collect() };
    match kernel {
        "compute_U" => Expected::U(per_atom(|s| &s.utot).concat(), ulists.concat()),
        "compute_Y" => {
            upload(UTOT, &per_atom(|s| &s.utot), ny);
            Expected::Y(per_atom(|s| &s.y).concat())
        }
        _ => {
            let du: Vec<Vec<C>> = crate::parallel::collect(config.pairs(), |q| {
                Config::pair_du(t, &geo[q], ulists[q]).concat()
            });
            if kernel == "compute_dU" {
                upload(ULIST, &ulists, ny);
                return Expected::Du(du.concat());
            }
            let items: Vec<&[C]> = du.iter().map(Vec::as_slice).collect();
            upload(DULIST, &items, 3 * ny);
            upload(YLIST, &per_atom(|s| &s.y), ny);
            let fij = du
                .iter()
                .enumerate()
                .flat_map(|(q, d)| {
                    let y = &states[q / config.nnbr].y;
                    d.chunks_exact(ny).map(|dk| t.de(dk, y)).collect::<Vec<_>>()
                })
                .collect();
            Expected::Fij(fij)
        }
    }
}

impl SnapGpu {
    pub(super) fn new(gpu: &Gpu, case: &Case) -> Result<SnapGpu> {
        let p = case.precision;
        let layout = Layout::of(case.text("variant"));
        let (config, file_forces) = problem(case)?;
        let t = config.tables();
        let ny = t.ny();
        let batch = batch_atoms(case, &config, ny, p, gpu)?;
        let npb = batch * config.nnbr;
        let geo = config.geometries();
        let (inp, tab) = encode_inputs(&t, &config, &geo);
        let dims = Dims::new(&t, config.nnbr, batch, config.nlocal, config.ntotal);
        let wg = case.uint("wg")? as u32;
        let module = spec(p, wg, &dims, layout);
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
        let max = gpu.caps.max_workgroups_per_dim;
        let shape = |n: usize| dispatch_shape(n as u64, wg, max);
        let stage = |name: &str| -> Result<Vec<(&'static str, (u32, u32))>> {
            Ok(match (name, layout.collapsed) {
                ("compute_U", false) => vec![("u_atom", shape(batch)?)],
                ("compute_U", true) => {
                    vec![("u_pairs", shape(npb)?), ("u_sums", shape(batch * ny)?)]
                }
                ("compute_Y", false) => vec![("y_atom", shape(batch)?)],
                ("compute_Y", true) => vec![("y_elems", shape(batch * ny)?)],
                ("compute_dU", false) => vec![("du_atom", shape(batch)?)],
                ("compute_dU", true) => vec![("du_pairs", shape(3 * npb)?)],
                ("compute_dE", false) => vec![("de_atom", shape(batch)?)],
                _ => vec![("de_pairs", shape(3 * npb)?)],
            })
        };
        let names: Vec<&str> = if case.kernel == "force" {
            KERNELS[..4].to_vec()
        } else {
            vec![case.kernel.as_str()]
        };
        let mut stages = Vec::new();
        for n in names {
            let k = KERNELS.iter().position(|x| *x == n).unwrap_or(0);
            for (entry, sh) in stage(n)? {
                stages.push((k, gpu.pipeline(&module, entry, &binds)?, sh));
            }
        }
        let gather = if case.kernel == "force" {
            Some((
                gpu.pipeline(&module, "gather", &binds)?,
                shape(config.ntotal)?,
            ))
        } else {
            None
        };

        // Inputs and the expected outputs; a per-kernel case takes its
        // inputs from the CPU reference so it runs (and is timed) alone.
        let rb = p.real_bytes();
        let poison = p.poison_pattern();
        let cplx = |n: usize| 2 * n as u64 * rb;
        let inp_buf = gpu.storage_init("snap-inp", &p.encode(&inp))?;
        let tab_buf = gpu.storage_init("snap-tab", bytemuck::cast_slice(&tab))?;
        let ulist = gpu.storage_poisoned("snap-ulist", cplx(npb * ny), &poison)?;
        let dulist = gpu.storage_poisoned("snap-dulist", cplx(3 * npb * ny), &poison)?;
        let utot = gpu.storage_poisoned("snap-utot", cplx(batch * ny), &poison)?;
        let ylist = gpu.storage_poisoned("snap-ylist", cplx(batch * ny), &poison)?;
        let fij = gpu.storage_poisoned("snap-fij", 3 * config.pairs() as u64 * rb, &poison)?;
        let force = gpu.storage_poisoned("snap-force", 3 * config.ntotal as u64 * rb, &poison)?;
        let buffers = vec![inp_buf, tab_buf, ulist, dulist, utot, ylist, fij, force];
        let expected = match file_forces {
            Some(f) if case.kernel == "force" => Expected::Forces(f, true),
            _ if case.kernel == "force" => Expected::Forces(config.forces(), false),
            _ => stage_inputs(gpu, case, &config, &t, &geo, layout, &buffers),
        };
        let first = &stages
            .first()
            .ok_or_else(|| Error::bad_param("kernel", "no stage"))?
            .1;
        let groups = (0..config.nlocal.div_ceil(batch))
            .map(|b| {
                let count = batch.min(config.nlocal - b * batch);
                let u = gpu.uniform(
                    "snap-batch",
                    bytemuck::cast_slice(&[(b * batch) as u32, count as u32, 0, 0]),
                );
                let mut res: Vec<wgpu::BindingResource> =
                    buffers.iter().map(|x| x.as_entire_binding()).collect();
                res.push(u.as_entire_binding());
                gpu.bind_resources(first, &res)
            })
            .collect();
        let steps = if case.kernel == "force" {
            case.uint("steps")?
        } else {
            1
        };
        let profile = gather
            .as_ref()
            .and_then(|_| Profile::new(gpu, config.nlocal.div_ceil(batch)));
        Ok(SnapGpu {
            model: model(&case.kernel, &t, &config, steps, p),
            ny,
            precision: p,
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

    /// Complex arrays compared with error relative to their largest element.
    fn compare_c(&self, got: &[C], want: &[C], what: &str) -> Validation {
        let flat = |v: &[C]| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
        let w = flat(want);
        let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
        Validation::compare(&flat(got), &w, tolerance(self.precision).0, scale, what)
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
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f64,
    done: std::cell::Cell<bool>,
}

impl Profile {
    /// `None` without pass timestamps, or with more passes than a query set holds.
    fn new(gpu: &Gpu, batches: usize) -> Option<Profile> {
        let count = 2 * (4 * batches as u32 + 1);
        if !gpu.caps.timestamps || count > wgpu::QUERY_SET_MAX_QUERIES {
            return None;
        }
        Some(Profile {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("snap-profile"),
                ty: wgpu::QueryType::Timestamp,
                count,
            }),
            resolve: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("snap-profile"),
                size: count as u64 * 8,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period_ns: gpu.queue.get_timestamp_period() as f64,
            done: std::cell::Cell::new(false),
        })
    }

    /// Seconds per stage (the four kernels, then the gather) from the resolved ticks.
    fn stage_seconds(&self, raw: &[u8]) -> Option<[f64; 5]> {
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(raw);
        let passes = ticks.len() / 2;
        let mut s = [0.0; 5];
        for (q, pair) in ticks.chunks_exact(2).enumerate() {
            if pair[1] < pair[0] {
                return None;
            }
            let stage = if q + 1 == passes { 4 } else { q % 4 };
            s[stage] += (pair[1] - pair[0]) as f64 * self.period_ns * 1e-9;
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
        k: Option<usize>,
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
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &p.set,
                    beginning_of_pass_write_index: Some(q),
                    end_of_pass_write_index: Some(q + 1),
                }),
            });
            f(&mut pass);
            q += 2;
        };
        for group in &self.groups {
            for k in 0..4 {
                timed(enc, &|pass| self.dispatch(pass, group, Some(k)));
            }
        }
        timed(enc, &|pass| self.dispatch_gather(pass));
        enc.resolve_query_set(&p.set, 0..q, &p.resolve, 0);
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
        match self.expected {
            Expected::U(..) => vec![&b[UTOT], &b[ULIST]],
            Expected::Y(_) => vec![&b[YLIST]],
            Expected::Du(_) => vec![&b[DULIST]],
            Expected::Fij(_) => vec![&b[FIJ]],
            Expected::Forces(..) => {
                let mut v = vec![&b[FORCE]];
                v.extend(self.profile.as_ref().map(|p| &p.resolve));
                v
            }
        }
    }

    fn validate(&self, out: &[Vec<u8>]) -> Validation {
        let ny = self.ny;
        let (atoms, pairs) = (self.config.nlocal, self.config.pairs());
        let l = self.layout;
        match &self.expected {
            Expected::U(utot, ulist) => self
                .compare_c(&l.unpack(&self.reals(&out[0]), atoms, ny), utot, "total U")
                .and(self.compare_c(
                    &l.unpack(&self.reals(&out[1]), pairs, ny),
                    ulist,
                    "U of every pair",
                )),
            Expected::Y(y) => self.compare_c(&l.unpack(&self.reals(&out[0]), atoms, ny), y, "Y"),
            Expected::Du(du) => self.compare_c(
                &l.unpack(&self.reals(&out[0]), pairs, 3 * ny),
                du,
                "dU of every pair",
            ),
            Expected::Fij(f) => {
                let scale = f.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
                Validation::compare(
                    &self.reals(&out[0]),
                    f,
                    tolerance(self.precision).0,
                    scale,
                    "dE/dr of every pair",
                )
            }
            Expected::Forces(f, file) => self.forces_check(&self.reals(&out[0]), f, *file),
        }
    }

    fn model(&self) -> Model {
        self.model
    }

    fn metrics(&self, out: &[Vec<u8>]) -> BTreeMap<String, f64> {
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
            let names = KERNELS[..4].iter().chain(&["gather"]);
            for (name, t) in names.zip(s) {
                m.insert(format!("share_{name}"), t / total.max(1e-300));
            }
        }
        m
    }
}
