//! The app on a GPU: a case is a program of dispatches recorded into one
//! compute pass (WebGPU orders their storage accesses), built from the
//! app's kernels (see [`super::program`]). A whole CG solve is one such
//! program (see [`super::cg`]): the scalars stay on the GPU, so nothing is
//! read back until the end.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::codegen::{Build, Field, slot};
use super::fit;
use super::links::{Reconstruct, link_rows};
pub(super) use super::program::Sync;
use super::program::{Buffers, Parts, Program, Step, one};
use super::reference::{Inputs, Setup, lattice};
use super::{KernelName, Params, case_issued, case_model, solve_metrics};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::error::Result;
use crate::gpu::{Capabilities, Gpu, Pipeline, dispatch_shape};
use crate::layout::Layout;
use crate::precision::Precision;
use crate::scale::Part;

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
        let build = Plan::build(params, caps);
        // Before drawing the inputs.
        fit::check(&build, params, caps)?;
        let sites = params.sites as u32;
        let dispatch = dispatch_shape(
            u64::from(sites.div_ceil(params.vvl)),
            params.wg,
            caps.max_workgroups_per_dim,
        )?;
        Ok(Plan {
            build,
            sites,
            dispatch,
        })
    }

    /// The kernels' constants for `params` on an adapter with `caps`,
    /// unchecked.
    pub fn build(params: &Params, caps: &Capabilities) -> Build {
        let (l, t) = (params.l as u32, params.t as u32);
        let layout = Layout::new(params.layout, params.sites as u32, Field::Links.ncomp())
            .with_width(params.complex.width());
        Build {
            precision: params.precision,
            wg: params.wg,
            l,
            lz: l,
            t,
            vvl: params.vvl,
            layout,
            reconstruct: params.reconstruct,
            bind_bytes: fit::bind_bytes(params, caps),
            halo: [0, 0],
            part: (params.ordered(Part::planes(l * l, l, t)), 0),
            own: Part::planes(l * l, l, t),
        }
    }
}

/// A case's recorded program: its pipelines, dispatches, the points where
/// a split lattice meets its neighbours, and the buffers read back.
pub(super) struct Recorded {
    precision: Precision,
    reconstruct: Reconstruct,
    sites: u32,
    build: Build,
    pipes: Vec<Pipeline>,
    steps: Vec<Step>,
    /// On a split lattice (`plan.build.halo > 0`), with the dispatches before each.
    pub(super) syncs: Vec<(usize, Sync)>,
    /// Buffers read back (a field's groups), with what they hold.
    pub(super) outputs: Vec<(Buffers, Field)>,
}

impl Recorded {
    /// Records the program of `setup`'s kernel as `plan` launches it (a
    /// rank's one-pass operator over `parts`, when given).
    pub(super) fn new(
        gpu: &Gpu,
        plan: Plan,
        setup: &Setup,
        parts: Option<Parts>,
    ) -> Result<Recorded> {
        let mut prog = Program::new(gpu, plan, parts);
        let outputs = record(&mut prog, setup)?;
        Ok(Recorded {
            precision: plan.build.precision,
            reconstruct: plan.build.reconstruct,
            sites: plan.sites,
            build: plan.build,
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

    /// How the fields are stored: the buffers a spinor field and the
    /// links take (more than one where a binding cannot hold them).
    pub(super) fn storage(&self) -> BTreeMap<String, f64> {
        let count = |f: Field| f64::from(self.build.count(f));
        BTreeMap::from([
            ("spinor_buffers".to_string(), count(Field::Spinor)),
            ("link_buffers".to_string(), count(Field::Links)),
        ])
    }

    /// The read-back buffers of every output, flat, in order.
    pub(super) fn output_buffers(&self) -> Vec<&wgpu::Buffer> {
        self.outputs.iter().flat_map(|(b, _)| b).collect()
    }

    /// The outputs in logical order from the bytes of
    /// [`Recorded::output_buffers`].
    pub(super) fn unpack_all(&self, bytes: &[&[u8]]) -> Vec<Vec<f64>> {
        let mut rest = bytes;
        let mut out = Vec::new();
        for (buffers, field) in &self.outputs {
            let (mine, after) = rest.split_at(buffers.len().min(rest.len()));
            rest = after;
            out.push(self.unpack(mine, *field));
        }
        out
    }

    /// A read-back field (its groups' bytes) in logical order; a buffer
    /// of the wrong size reads as NaN.
    fn unpack(&self, bytes: &[&[u8]], field: Field) -> Vec<f64> {
        let p = self.precision;
        let Some(g) = self.build.groups(field) else {
            return bytes.first().map_or_else(Vec::new, |b| p.decode(b));
        };
        let sizes = g.bytes(p);
        let whole = bytes.len() == sizes.len()
            && bytes.iter().zip(&sizes).all(|(b, &n)| b.len() as u64 == n);
        if !whole {
            return vec![f64::NAN; (self.sites * field.ncomp()) as usize];
        }
        g.decode(p, bytes)
    }

    /// (x, iterations, |r| / |r0|, converged) of a solve, from its outputs
    /// in logical order.
    pub(super) fn solve(&self, outputs: &[Vec<f64>]) -> (Vec<f64>, f64, f64, bool) {
        let x = outputs[0].clone();
        let s = &outputs[1];
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
        let prog = Recorded::new(gpu, plan, &setup, None)?;
        Ok(MilcGpu { setup, prog })
    }
}

/// Input `item` (host `data`, holding `f`) as the program's build stores
/// it: no kernel writes its inputs, so each is uploaded once per lattice,
/// precision and layout and bound by every kernel that reads it (links as
/// two rows are cut from the whole ones here, before any timing).
fn upload(prog: &Program, item: String, data: &Arc<Vec<f64>>, f: Field) -> Result<Buffers> {
    let b = &prog.build;
    // The split is part of how a field is stored.
    let group = format!(
        "milc/{}x{}x{}/{}/sal{}/w{}/split{}",
        b.l,
        b.lz,
        b.t,
        b.precision,
        b.layout.sal,
        b.layout.width,
        b.groups(f).map_or(0, |g| g.per)
    );
    prog.gpu.uploads.get_or_upload(&group, &item, data, |v| {
        let stored = match b.stored(f) {
            Field::LinkRows => Cow::Owned(link_rows(v)),
            _ => Cow::Borrowed(v.as_slice()),
        };
        prog.field("milc-in", f, Some(&stored))
    })
}

/// Records the program of the setup's kernel; returns the buffers read
/// back, with what they hold.
fn record(prog: &mut Program, setup: &Setup) -> Result<Vec<(Buffers, Field)>> {
    let isign = setup.isign as i32;
    let x = &setup.inputs;
    // Named by the host field (the inputs are the request's shared fields).
    let input = |prog: &Program, i: usize, f: Field| {
        upload(prog, format!("{f:?}@{:p}", Arc::as_ptr(&x[i])), &x[i], f)
    };
    let links = |prog: &Program| {
        let item = format!("links-{}", prog.build.reconstruct);
        upload(prog, item, &setup.u, Field::Links)
    };
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
            prog.axpy(
                [&a, &b, &out, one(&scalars)],
                (slot::MINUS_KAPPA, false),
                false,
            )?;
            vec![(out, Field::Spinor)]
        }
        KernelName::Dot => {
            let (a, b) = (
                input(prog, 0, Field::Spinor)?,
                input(prog, 1, Field::Spinor)?,
            );
            let scalars = prog.scalars(setup)?;
            prog.dot([&a, &b], &scalars, slot::RR)?;
            vec![(vec![scalars], Field::Plain)]
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
            super::cg::record(prog, [&b, &u], scalars, setup)?
        }
    })
}

impl Kernel for MilcGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        one_pass_runs(enc, "milc", runs, ts, |pass, _| {
            self.prog.dispatch(pass, 0..self.prog.len())
        });
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        self.prog.output_buffers()
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let got = self.prog.unpack_all(outputs);
        match self.setup.kernel {
            KernelName::Cg => {
                let (x, iters, res, conv) = self.prog.solve(&got);
                self.setup.check_solve(&x, iters, res, conv)
            }
            KernelName::Dot => {
                let v = got[0].get(slot::RR as usize).copied().unwrap_or(f64::NAN);
                self.setup.check_fields(&[vec![v]], self.prog.precision)
            }
            _ => self.setup.check_fields(&got, self.prog.precision),
        }
    }

    fn model(&self) -> Model {
        case_model(
            self.setup.kernel,
            self.setup.fused,
            self.prog.reconstruct,
            self.prog.sites as u64,
            self.setup.iterations,
            self.prog.precision,
        )
    }

    fn issued_bytes(&self) -> Option<f64> {
        Some(case_issued(
            self.setup.kernel,
            self.setup.fused,
            self.prog.reconstruct,
            self.prog.sites as u64,
            self.setup.iterations,
            self.prog.precision,
        ))
    }

    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        if self.setup.kernel != KernelName::Cg {
            return self.prog.storage();
        }
        let (x, iters, res, _) = self.prog.solve(&self.prog.unpack_all(outputs));
        let mut m = solve_metrics(iters, res, self.setup.true_residual(&x));
        m.extend(self.prog.storage());
        m
    }

    fn check(&self, outputs: &[&[u8]]) -> (Validation, BTreeMap<String, f64>) {
        if self.setup.kernel != KernelName::Cg {
            return (self.validate(outputs), self.prog.storage());
        }
        // The true residual (a Dslash over the lattice in f64) once for both.
        let (x, iters, res, conv) = self.prog.solve(&self.prog.unpack_all(outputs));
        let true_res = self.setup.true_residual(&x);
        let v = self.setup.judge_solve(true_res, iters, res, conv);
        let mut m = solve_metrics(iters, res, true_res);
        m.extend(self.prog.storage());
        (v, m)
    }
}
