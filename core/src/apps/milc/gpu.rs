//! The app on a GPU: a case is a program of dispatches recorded into one
//! compute pass (WebGPU orders their storage accesses), built from the split
//! kernels. A whole CG solve is one such program: the scalars stay on the
//! GPU, so nothing is read back until the end.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::codegen::{self, Build, Field, slot};
use super::reference::{Inputs, Setup, lattice};
use super::{KernelName, Params, case_model, solve_metrics};
use crate::app::{Kernel, Model, Timestamps, Validation};
use crate::apps::targetdp::Layout;
use crate::error::{Error, Result};
use crate::gpu::resources::check_size;
use crate::gpu::{Bind, Capabilities, Gpu, Pipeline, dispatch_shape};
use crate::precision::Precision;

/// The launch plan of a case, computed without a device: the constants
/// its kernels are built with and the dispatch of a per-site kernel,
/// checked against the adapter.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// The kernels' constants.
    pub build: Build,
    /// Lattice sites.
    pub sites: u32,
    /// Workgroups of a kernel over every site.
    pub dispatch: (u32, u32),
}

impl Plan {
    /// The plan of `params` on an adapter with `caps`.
    pub fn new(params: &Params, caps: &Capabilities) -> Result<Plan> {
        let sites = params.sites as u32;
        let layout = Layout::new(params.layout, sites, Field::Links.ncomp());
        // Before drawing the inputs: the links are the largest field.
        check_size(caps, layout.reals() * params.precision.real_bytes())?;
        let dispatch = dispatch_shape(
            u64::from(sites.div_ceil(params.vvl)),
            params.wg,
            caps.max_workgroups_per_dim,
        )?;
        let build = Build {
            precision: params.precision,
            wg: params.wg,
            l: params.l as u32,
            t: params.t as u32,
            vvl: params.vvl,
            layout,
            halo: 0,
        };
        Ok(Plan {
            build,
            sites,
            dispatch,
        })
    }
}

/// Where a rank of a lattice split over ranks must leave the recorded
/// program for its neighbours (see `dist`): before a Dslash, to fill the
/// halo planes of the field it reads; after a dot product, to sum the
/// scalar over the ranks.
#[derive(Clone, Debug)]
pub(super) enum Sync {
    /// Swap the halo planes of this spinor field for a Dslash of this sign.
    Swap(wgpu::Buffer, i32),
    /// Sum this slot of this scalar buffer over the ranks.
    Reduce(wgpu::Buffer, u32),
}

/// One recorded dispatch.
struct Step {
    pipe: usize,
    group: wgpu::BindGroup,
    dispatch: (u32, u32),
}

/// Pipelines (built once per entry point and sign) and the dispatches using them.
struct Program<'g> {
    gpu: &'g Gpu,
    build: Build,
    sites: u32,
    dispatch: (u32, u32),
    pipes: Vec<Pipeline>,
    keys: Vec<(&'static str, i32)>,
    ops: BTreeMap<(u32, bool), wgpu::Buffer>,
    steps: Vec<Step>,
    /// With the step count before each: filled on a split lattice only.
    syncs: Option<Vec<(usize, Sync)>>,
}

/// The intermediate fields of one Dslash.
struct Temps {
    hf: wgpu::Buffer,
    hb: wgpu::Buffer,
    gf: wgpu::Buffer,
    gb: wgpu::Buffer,
    acc: wgpu::Buffer,
}

impl<'g> Program<'g> {
    fn new(gpu: &'g Gpu, plan: Plan) -> Program<'g> {
        Program {
            gpu,
            build: plan.build,
            sites: plan.sites,
            dispatch: plan.dispatch,
            pipes: Vec::new(),
            keys: Vec::new(),
            ops: BTreeMap::new(),
            steps: Vec::new(),
            syncs: (plan.build.halo > 0).then(Vec::new),
        }
    }

    fn sync(&mut self, sync: Sync) {
        if let Some(syncs) = self.syncs.as_mut() {
            syncs.push((self.steps.len(), sync));
        }
    }

    fn layout(&self, field: Field) -> Layout {
        Layout {
            sal: self.build.layout.sal,
            sites: self.sites,
            ncomp: field.ncomp(),
        }
    }

    /// A field uploaded from logical order, or poisoned when `init` is `None`.
    fn field(&self, label: &str, field: Field, init: Option<&[f64]>) -> Result<wgpu::Buffer> {
        let (l, p) = (self.layout(field), self.build.precision);
        match init {
            Some(v) => self.gpu.storage_init(label, &l.encode(p, v, 0.0)),
            None => {
                self.gpu
                    .storage_poisoned(label, l.reals() * p.real_bytes(), &p.poison_pattern())
            }
        }
    }

    fn temps(&self) -> Result<Temps> {
        Ok(Temps {
            hf: self.field("milc-hf", Field::Half, None)?,
            hb: self.field("milc-hb", Field::Half, None)?,
            gf: self.field("milc-gf", Field::Half, None)?,
            gb: self.field("milc-gb", Field::Half, None)?,
            acc: self.field("milc-acc", Field::Spinor, None)?,
        })
    }

    /// The scalar slots: -kappa, 0 and tol^2 set, the rest poisoned.
    fn scalars(&self, setup: &Setup) -> Result<wgpu::Buffer> {
        let mut v = vec![f64::NAN; slot::COUNT as usize];
        v[slot::MINUS_KAPPA as usize] = -setup.kappa;
        v[slot::ZERO as usize] = 0.0;
        v[slot::TOL2 as usize] = setup.tol * setup.tol;
        self.gpu
            .storage_init("milc-scalars", &self.build.precision.encode(&v))
    }

    /// One partial sum per workgroup of a per-site dispatch.
    fn partial(&self) -> Result<wgpu::Buffer> {
        let p = self.build.precision;
        let groups = u64::from(self.dispatch.0) * u64::from(self.dispatch.1);
        self.gpu
            .storage_poisoned("milc-partial", groups * p.real_bytes(), &p.poison_pattern())
    }

    fn pipe(&mut self, entry: &'static str, isign: i32) -> Result<usize> {
        let m = codegen::module_of(entry)
            .ok_or_else(|| Error::bad_param("kernel", format!("no entry point `{entry}`")))?;
        let isign = if m.spin { isign } else { 1 };
        if let Some(i) = self.keys.iter().position(|k| *k == (entry, isign)) {
            return Ok(i);
        }
        let binds: Vec<Bind> = m.binds.iter().map(|b| b.2).collect();
        let spec = codegen::spec(m, &self.build, isign);
        self.pipes.push(self.gpu.pipeline(&spec, entry, &binds)?);
        self.keys.push((entry, isign));
        Ok(self.pipes.len() - 1)
    }

    fn push(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&wgpu::Buffer],
        dispatch: (u32, u32),
    ) -> Result<()> {
        let pipe = self.pipe(entry, isign)?;
        let group = self.gpu.bind(&self.pipes[pipe], buffers);
        self.steps.push(Step {
            pipe,
            group,
            dispatch,
        });
        Ok(())
    }

    /// A kernel over every site.
    fn over_sites(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&wgpu::Buffer],
    ) -> Result<()> {
        self.push(entry, isign, buffers, self.dispatch)
    }

    /// The uniform selecting scalar `slot` (negated or not).
    fn op(&mut self, slot: u32, negate: bool) -> wgpu::Buffer {
        let gpu = self.gpu;
        self.ops
            .entry((slot, negate))
            .or_insert_with(|| {
                gpu.uniform(
                    "milc-op",
                    bytemuck::cast_slice(&[slot, u32::from(negate), 0, 0]),
                )
            })
            .clone()
    }

    /// `dst = D src` (`isign` 1) or `D^dagger src` (-1), as MILC splits it
    /// through the intermediates `split`, or in one kernel without them.
    fn dslash(
        &mut self,
        split: Option<&Temps>,
        [links, src, dst]: [&wgpu::Buffer; 3],
        isign: i32,
    ) -> Result<()> {
        self.sync(Sync::Swap(src.clone(), isign));
        let Some(t) = split else {
            return self.over_sites("dslash_fused", isign, &[src, links, dst]);
        };
        self.over_sites("extract", isign, &[src, &t.hf])?;
        self.over_sites("extract_mul", isign, &[src, links, &t.hb])?;
        self.over_sites("shift", isign, &[&t.hf, &t.hb, &t.gf, &t.gb])?;
        self.over_sites("insert_mul", isign, &[&t.gf, links, &t.acc])?;
        self.over_sites("insert", isign, &[&t.gb, &t.acc, dst])
    }

    /// `out = y + s x` with `s` the scalar in `slot` (negated if asked).
    fn axpy(&mut self, bufs: [&wgpu::Buffer; 4], slot: u32, negate: bool) -> Result<()> {
        let [x, y, out, scalars] = bufs;
        let op = self.op(slot, negate);
        self.over_sites("axpy", 1, &[x, y, out, scalars, &op])
    }

    /// `scalars[slot] = Re <a, b>`: per-workgroup partials, then one workgroup adds them.
    fn dot(&mut self, bufs: [&wgpu::Buffer; 4], slot: u32) -> Result<()> {
        let [a, b, partial, scalars] = bufs;
        self.over_sites("dot", 1, &[a, b, partial])?;
        let op = self.op(slot, false);
        self.push("finish", 1, &[partial, scalars, &op], (1, 1))?;
        self.sync(Sync::Reduce(scalars.clone(), slot));
        Ok(())
    }

    /// A one-invocation CG update.
    fn scalar(
        &mut self,
        entry: &'static str,
        partial: &wgpu::Buffer,
        scalars: &wgpu::Buffer,
    ) -> Result<()> {
        let op = self.op(0, false);
        self.push(entry, 1, &[partial, scalars, &op], (1, 1))
    }
}

/// A case's recorded program: its pipelines, dispatches, the points where
/// a split lattice meets its neighbours, and the buffers read back.
pub(super) struct Recorded {
    precision: Precision,
    sites: u32,
    sal: u32,
    pipes: Vec<Pipeline>,
    steps: Vec<Step>,
    /// On a split lattice (`plan.build.halo > 0`), with the dispatches before each.
    pub(super) syncs: Vec<(usize, Sync)>,
    /// Buffers read back, with what they hold.
    pub(super) outputs: Vec<(wgpu::Buffer, Field)>,
}

impl Recorded {
    /// Records the program of `setup`'s kernel as `plan` launches it.
    pub(super) fn new(gpu: &Gpu, plan: Plan, setup: &Setup) -> Result<Recorded> {
        let mut prog = Program::new(gpu, plan);
        let outputs = record(&mut prog, setup)?;
        Ok(Recorded {
            precision: plan.build.precision,
            sites: plan.sites,
            sal: plan.build.layout.sal,
            pipes: prog.pipes,
            steps: prog.steps,
            syncs: prog.syncs.unwrap_or_default(),
            outputs,
        })
    }

    /// Dispatches `steps` (a range of the program) into `pass`.
    pub(super) fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, steps: std::ops::Range<usize>) {
        for s in &self.steps[steps] {
            self.pipes[s.pipe].set(pass, &s.group);
            pass.dispatch_workgroups(s.dispatch.0, s.dispatch.1, 1);
        }
    }

    /// Dispatches in the program.
    pub(super) fn len(&self) -> usize {
        self.steps.len()
    }

    /// A read-back field in logical order.
    pub(super) fn unpack(&self, bytes: &[u8], field: Field) -> Vec<f64> {
        let p = self.precision;
        if field == Field::Plain {
            return p.decode(bytes);
        }
        let l = Layout {
            sal: self.sal,
            sites: self.sites,
            ncomp: field.ncomp(),
        };
        if bytes.len() as u64 != l.reals() * p.real_bytes() {
            return vec![f64::NAN; (self.sites * field.ncomp()) as usize];
        }
        l.decode(p, bytes)
    }

    /// (x, iterations, |r| / |r0|, converged) of a solve.
    pub(super) fn solve(&self, outputs: &[&[u8]]) -> (Vec<f64>, f64, f64, bool) {
        let x = self.unpack(outputs[0], Field::Spinor);
        let s = self.precision.decode(outputs[1]);
        let at = |i: u32| s.get(i as usize).copied().unwrap_or(f64::NAN);
        let residual = (at(slot::RR) / at(slot::RR0)).sqrt();
        (x, at(slot::ITERS), residual, at(slot::CONVERGED) == 1.0)
    }
}

/// A prepared case.
pub(super) struct MilcGpu {
    setup: Setup,
    prog: Recorded,
}

impl MilcGpu {
    /// Plans `params` for `gpu`, draws its inputs and records its program.
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<MilcGpu> {
        let p = params.precision;
        let plan = Plan::new(params, &gpu.caps)?;
        // Every kernel, layout, vector length and workgroup size of a
        // request uses the same random fields (fresh per request).
        let key = format!("milc/{}x{}/{p}", params.l, params.t);
        let inputs = gpu
            .memo
            .get_or_make(&key, || Inputs::new(lattice(params), p));
        let setup = Setup::with(params, &inputs);
        let prog = Recorded::new(gpu, plan, &setup)?;
        Ok(MilcGpu { setup, prog })
    }
}

/// Records the program of the setup's kernel; returns the buffers read
/// back, with what they hold.
fn record(prog: &mut Program, setup: &Setup) -> Result<Vec<(wgpu::Buffer, Field)>> {
    let isign = setup.isign as i32;
    // No kernel writes its inputs: each is uploaded once per lattice,
    // precision and layout, and bound by every kernel that reads it.
    let upload = |prog: &Program, item: String, data: &Arc<Vec<f64>>, f: Field| {
        let b = &prog.build;
        let group = format!("milc/{}x{}/{}/sal{}", b.l, b.t, b.precision, b.layout.sal);
        let mut up = prog.gpu.uploads.get_or_upload(&group, &item, data, |v| {
            Ok(vec![prog.field("milc-in", f, Some(v))?])
        })?;
        up.pop()
            .ok_or_else(|| Error::bad_param("kernel", "no input uploaded"))
    };
    let x = &setup.inputs;
    // Named by the host field (the inputs are the request's shared fields).
    let input = |prog: &Program, i: usize, f: Field| {
        upload(prog, format!("{f:?}@{:p}", Arc::as_ptr(&x[i])), &x[i], f)
    };
    let links = |prog: &Program| upload(prog, "links".into(), &setup.u, Field::Links);
    Ok(match setup.kernel {
        KernelName::Extract => {
            let psi = input(prog, 0, Field::Spinor)?;
            let hf = prog.field("milc-hf", Field::Half, None)?;
            prog.over_sites("extract", isign, &[&psi, &hf])?;
            vec![(hf, Field::Half)]
        }
        KernelName::ExtractMul => {
            let (psi, u) = (input(prog, 0, Field::Spinor)?, links(prog)?);
            let hb = prog.field("milc-hb", Field::Half, None)?;
            prog.over_sites("extract_mul", isign, &[&psi, &u, &hb])?;
            vec![(hb, Field::Half)]
        }
        KernelName::Shift => {
            let (hf, hb) = (input(prog, 0, Field::Half)?, input(prog, 1, Field::Half)?);
            let gf = prog.field("milc-gf", Field::Half, None)?;
            let gb = prog.field("milc-gb", Field::Half, None)?;
            prog.over_sites("shift", 1, &[&hf, &hb, &gf, &gb])?;
            vec![(gf, Field::Half), (gb, Field::Half)]
        }
        KernelName::InsertMul => {
            let (gf, u) = (input(prog, 0, Field::Half)?, links(prog)?);
            let out = prog.field("milc-out", Field::Spinor, None)?;
            prog.over_sites("insert_mul", isign, &[&gf, &u, &out])?;
            vec![(out, Field::Spinor)]
        }
        KernelName::Insert => {
            let (gb, acc) = (input(prog, 0, Field::Half)?, input(prog, 1, Field::Spinor)?);
            let out = prog.field("milc-out", Field::Spinor, None)?;
            prog.over_sites("insert", isign, &[&gb, &acc, &out])?;
            vec![(out, Field::Spinor)]
        }
        KernelName::Axpy => {
            let (a, b) = (
                input(prog, 0, Field::Spinor)?,
                input(prog, 1, Field::Spinor)?,
            );
            let out = prog.field("milc-out", Field::Spinor, None)?;
            let scalars = prog.scalars(setup)?;
            prog.axpy([&a, &b, &out, &scalars], slot::MINUS_KAPPA, false)?;
            vec![(out, Field::Spinor)]
        }
        KernelName::Dot => {
            let (a, b) = (
                input(prog, 0, Field::Spinor)?,
                input(prog, 1, Field::Spinor)?,
            );
            let (partial, scalars) = (prog.partial()?, prog.scalars(setup)?);
            prog.dot([&a, &b, &partial, &scalars], slot::RR)?;
            vec![(scalars, Field::Plain)]
        }
        KernelName::Dslash => {
            let (psi, u) = (input(prog, 0, Field::Spinor)?, links(prog)?);
            let t = prog.temps()?;
            let out = prog.field("milc-out", Field::Spinor, None)?;
            prog.dslash(Some(&t), [&u, &psi, &out], isign)?;
            vec![(out, Field::Spinor)]
        }
        KernelName::DslashFused => {
            let (psi, u) = (input(prog, 0, Field::Spinor)?, links(prog)?);
            let out = prog.field("milc-out", Field::Spinor, None)?;
            prog.dslash(None, [&u, &psi, &out], isign)?;
            vec![(out, Field::Spinor)]
        }
        KernelName::Cg => {
            let (b, u) = (input(prog, 0, Field::Spinor)?, links(prog)?);
            let scalars = prog.scalars(setup)?;
            record_cg(prog, [&b, &u], scalars, setup)?
        }
    })
}

/// CG on `M^dagger M x = M^dagger b` from x = 0, the setup's iterations; returns
/// the buffers holding x and the scalars at the end.
fn record_cg(
    prog: &mut Program,
    [b, u]: [&wgpu::Buffer; 2],
    scalars: wgpu::Buffer,
    setup: &Setup,
) -> Result<Vec<(wgpu::Buffer, Field)>> {
    let iterations = setup.iterations;
    let temps = match setup.fused {
        true => None,
        false => Some(prog.temps()?),
    };
    let t = temps.as_ref();
    let spinor = |prog: &Program| prog.field("milc-cg", Field::Spinor, None);
    let (d, mp, ap) = (spinor(prog)?, spinor(prog)?, spinor(prog)?);
    let x = [spinor(prog)?, spinor(prog)?];
    let r = [spinor(prog)?, spinor(prog)?];
    let p = [spinor(prog)?, spinor(prog)?];
    let partial = prog.partial()?;
    let mk = slot::MINUS_KAPPA;
    // r = M^dagger b, p = r, x = 0, |r0|^2.
    prog.dslash(t, [u, b, &d], -1)?;
    prog.axpy([&d, b, &r[0], &scalars], mk, false)?;
    prog.axpy([&r[0], &r[0], &p[0], &scalars], slot::ZERO, false)?;
    let op = prog.op(0, false);
    prog.over_sites("zero", 1, &[b, b, &x[0], &scalars, &op])?;
    prog.dot([&r[0], &r[0], &partial, &scalars], slot::RR)?;
    prog.scalar("cg_start", &partial, &scalars)?;
    for k in 0..iterations as usize {
        let (c, n) = (k % 2, 1 - k % 2);
        // A p = M^dagger M p.
        prog.dslash(t, [u, &p[c], &d], 1)?;
        prog.axpy([&d, &p[c], &mp, &scalars], mk, false)?;
        prog.dslash(t, [u, &mp, &d], -1)?;
        prog.axpy([&d, &mp, &ap, &scalars], mk, false)?;
        prog.dot([&p[c], &ap, &partial, &scalars], slot::PAP)?;
        prog.scalar("cg_alpha", &partial, &scalars)?;
        prog.axpy([&p[c], &x[c], &x[n], &scalars], slot::ALPHA, false)?;
        prog.axpy([&ap, &r[c], &r[n], &scalars], slot::ALPHA, true)?;
        prog.dot([&r[n], &r[n], &partial, &scalars], slot::RR_NEW)?;
        prog.scalar("cg_beta", &partial, &scalars)?;
        prog.axpy([&p[c], &r[n], &p[n], &scalars], slot::BETA, false)?;
    }
    let [x0, x1] = x;
    let x = if iterations.is_multiple_of(2) { x0 } else { x1 };
    Ok(vec![(x, Field::Spinor), (scalars, Field::Plain)])
}

impl Kernel for MilcGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("milc"),
            timestamp_writes: ts.pass(true, true),
        });
        self.prog.dispatch(&mut pass, 0..self.prog.len());
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        self.prog.outputs.iter().map(|(b, _)| b).collect()
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        match self.setup.kernel {
            KernelName::Cg => {
                let (x, iters, res, conv) = self.prog.solve(outputs);
                self.setup.check_solve(&x, iters, res, conv)
            }
            KernelName::Dot => {
                let s = self.prog.precision.decode(outputs[0]);
                let v = s.get(slot::RR as usize).copied().unwrap_or(f64::NAN);
                self.setup.check_fields(&[vec![v]], self.prog.precision)
            }
            _ => {
                let got: Vec<Vec<f64>> = outputs
                    .iter()
                    .zip(&self.prog.outputs)
                    .map(|(bytes, (_, f))| self.prog.unpack(bytes, *f))
                    .collect();
                self.setup.check_fields(&got, self.prog.precision)
            }
        }
    }

    fn model(&self) -> Model {
        case_model(
            self.setup.kernel,
            self.setup.fused,
            self.prog.sites as u64,
            self.setup.iterations,
            self.prog.precision,
        )
    }

    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        if self.setup.kernel != KernelName::Cg {
            return BTreeMap::new();
        }
        let (x, iters, res, _) = self.prog.solve(outputs);
        solve_metrics(iters, res, self.setup.true_residual(&x))
    }

    fn check(&self, outputs: &[&[u8]]) -> (Validation, BTreeMap<String, f64>) {
        if self.setup.kernel != KernelName::Cg {
            return (self.validate(outputs), BTreeMap::new());
        }
        // The true residual (a Dslash over the lattice in f64) once for both.
        let (x, iters, res, conv) = self.prog.solve(outputs);
        let true_res = self.setup.true_residual(&x);
        let v = self.setup.judge_solve(true_res, iters, res, conv);
        (v, solve_metrics(iters, res, true_res))
    }
}
