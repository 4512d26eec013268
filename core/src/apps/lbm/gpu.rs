//! lbm on a GPU: the field in the case's layout, ping-ponged between two
//! fields (each one buffer, or one per group of velocities where a field is
//! larger than a binding), every step in one compute pass.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::check::{self, Sample};
use super::d3q19::{self, Box3};
use super::{
    COEFFICIENTS, Check, KernelName, Params, Pull, Setup, Start, fields, issued_bytes, model, pull,
    spec,
};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::apps::common::fresh_rng;
use crate::error::Result;
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::layout::Groups;
use crate::params::Choice;
use crate::precision::Precision;
use crate::scale::Part;

/// A lattice's field on a GPU: two fields ping-ponged by the pipelines of
/// one kernel (`step` has collide then propagate), each split over buffers
/// as `groups` says. A scale-out rank holds
/// its slab with halo planes as such a lattice, with the same kernels built
/// for its interior and boundary planes too.
pub(super) struct Lattice {
    pub(super) groups: Groups,
    pub(super) buffers: [Vec<wgpu::Buffer>; 2],
    /// The kernel's entry points, in the order a step runs them.
    pub(super) entries: Vec<&'static str>,
    /// The kernel over each set of boxes of the lattice it was built for
    /// (the first: every site).
    parts: Vec<Vec<Parted>>,
    /// Bind groups reading field 0 into 1, and 1 into 0.
    bind_groups: [wgpu::BindGroup; 2],
}

/// A kernel's pipelines over one box of the lattice.
struct Parted {
    pipes: Vec<Pipeline>,
    dispatch: (u32, u32),
}

impl Lattice {
    /// Uploads `f0` (a field of box `b3` as [`fields`] splits it on this
    /// adapter, encoded a group a buffer) and builds the pipelines of `params`' kernel for that box: over
    /// every site, and over each set of boxes in `parts` (see
    /// [`Lattice::record_part`]).
    pub(super) fn new(
        gpu: &Gpu,
        params: &Params,
        b3: &Box3,
        f0: &[Vec<u8>],
        parts: &[Vec<Part>],
    ) -> Result<Lattice> {
        let p = params.precision;
        let groups = fields(params, b3.sites() as u64, &gpu.caps)?;
        let whole = Part::all(b3.sites() as u32);
        if params.pull == Pull::Rows {
            let boxes: Vec<Part> = parts.iter().flatten().copied().collect();
            pull::check_rows(
                params,
                b3.n[0] as u32,
                &[&[whole], &boxes[..]].concat(),
                &gpu.caps,
            )?;
        }
        let entries: Vec<&'static str> = match params.kernel {
            KernelName::Step => vec!["collide", params.pull.entry("propagate")],
            k => vec![params.pull.entry(k.name())],
        };
        let parted = |part: &Part| -> Result<Parted> {
            let module = part.apply(spec(
                p,
                params.wg,
                b3.n.map(|v| v as u32),
                &groups,
                params.vvl,
                params.pull,
            ));
            let n = groups.count() as usize;
            let binds = [
                vec![Bind::Read; n],
                vec![Bind::ReadWrite; n],
                vec![Bind::Read],
            ]
            .concat();
            Ok(Parted {
                pipes: entries
                    .iter()
                    .map(|e| gpu.pipeline(&module, e, &binds))
                    .collect::<Result<Vec<_>>>()?,
                dispatch: dispatch_shape(
                    u64::from(part.count().div_ceil(params.vvl)),
                    params.wg,
                    gpu.caps.max_workgroups_per_dim,
                )?,
            })
        };
        let parts = std::iter::once(vec![whole])
            .chain(parts.iter().cloned())
            .map(|set| set.iter().map(parted).collect::<Result<Vec<_>>>())
            .collect::<Result<Vec<_>>>()?;
        let a = f0
            .iter()
            .map(|bytes| gpu.storage_init("lbm-f0", bytes))
            .collect::<Result<Vec<_>>>()?;
        let b = groups
            .bytes(p)
            .into_iter()
            .map(|bytes| gpu.storage_poisoned("lbm-f1", bytes, &p.poison_pattern()))
            .collect::<Result<Vec<_>>>()?;
        let coef: [f64; COEFFICIENTS as usize] = [
            1.0 / b3.tau,
            b3.tau,
            b3.force[0],
            b3.force[1],
            b3.force[2],
            d3q19::WEIGHTS[0],
            d3q19::WEIGHTS[1],
            d3q19::WEIGHTS[2],
        ];
        let coef = gpu.storage_init("lbm-coef", &p.encode(&coef))?;
        // Every pipeline has the same bindings, so one pair of bind groups
        // serves all.
        let first = &parts[0][0].pipes[0];
        let bind = |from: &[wgpu::Buffer], to: &[wgpu::Buffer]| {
            let all: Vec<&wgpu::Buffer> = from.iter().chain(to).chain([&coef]).collect();
            gpu.bind(first, &all)
        };
        let bind_groups = [bind(&a, &b), bind(&b, &a)];
        Ok(Lattice {
            groups,
            buffers: [a, b],
            entries,
            parts,
            bind_groups,
        })
    }

    /// Records entry point `k` of the kernel over every site, reading field
    /// `from` into the other.
    pub(super) fn record(&self, pass: &mut wgpu::ComputePass<'_>, k: usize, from: usize) {
        self.record_part(pass, 0, k, from);
    }

    /// As [`Lattice::record`], over set `part`: 0 is every site, `1 + i`
    /// the `i`-th set of boxes [`Lattice::new`] was given (one dispatch a
    /// box).
    pub(super) fn record_part(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        part: usize,
        k: usize,
        from: usize,
    ) {
        for b in &self.parts[part] {
            b.pipes[k].set(pass, &self.bind_groups[from]);
            pass.dispatch_workgroups(b.dispatch.0, b.dispatch.1, 1);
        }
    }
}

/// A case prepared on a GPU.
pub(super) struct LbmGpu {
    shared: Arc<Shared>,
    precision: Precision,
    check: Check,
    lattice: Lattice,
}

/// A case's start and f64 reference, shared by every layout, vector length
/// and workgroup size of a request (a fresh random start per request; the
/// start itself is shared by every kernel too): the whole field's, or a
/// sample's where the field is too large for that ([`check`]).
struct Shared {
    setup: Setup,
    want: OnceLock<Arc<Vec<f64>>>,
    sample: OnceLock<Sample>,
}

impl LbmGpu {
    /// Uploads the start of `params` and builds its pipelines.
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<LbmGpu> {
        let p = params.precision;
        // Before drawing: the fields must fit the adapter.
        let groups = fields(params, params.sites, &gpu.caps)?;
        let problem = format!("lbm/{}/{:?}/{p}", params.l, params.init);
        let draw = || {
            let n = [params.l as usize; 3];
            gpu.memo
                .get_or_make(&problem, || Start::on(n, params, p, &mut fresh_rng()))
        };
        let key = format!("{problem}/{:?}/{}", params.kernel, params.steps);
        let shared = gpu.memo.get_or_make(&key, || Shared {
            setup: Setup::from_start(params, draw()),
            want: OnceLock::new(),
            sample: OnceLock::new(),
        });
        // Encoded once per draw and layout: the kernels, vector lengths and
        // workgroup sizes of a sweep upload the same bytes.
        let start = &shared.setup.start;
        let encoded = gpu
            .memo
            .get_or_make(&format!("{problem}/{}/{groups:?}", start.id), || {
                groups.encode(p, &start.f0, 0.0)
            });
        let lattice = Lattice::new(gpu, params, &start.lattice, &encoded, &[])?;
        Ok(LbmGpu {
            shared,
            precision: params.precision,
            check: params.check,
            lattice,
        })
    }

    /// Which field holds the result after one run.
    fn result_index(&self) -> usize {
        if self.lattice.entries.len() == 2 {
            0
        } else {
            (self.shared.setup.steps % 2) as usize
        }
    }
}

impl Kernel for LbmGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        // One pass: WebGPU orders the dispatches' storage accesses.
        one_pass_runs(enc, "lbm", runs, ts, |pass, _| {
            let mut from = 0;
            for _ in 0..self.shared.setup.steps {
                for k in 0..self.lattice.entries.len() {
                    self.lattice.record(pass, k, from);
                    from = 1 - from;
                }
            }
        });
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        self.lattice.buffers[self.result_index()].iter().collect()
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        self.check(outputs).0
    }

    fn model(&self) -> Model {
        model(
            self.shared.setup.kernel,
            self.lattice.groups.layout.sites as u64,
            self.shared.setup.steps,
            self.precision,
        )
    }

    fn issued_bytes(&self) -> Option<f64> {
        Some(issued_bytes(
            self.shared.setup.kernel,
            self.lattice.groups.layout.sites as u64,
            self.shared.setup.steps,
            self.precision,
        ))
    }

    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        self.check(outputs).1
    }

    /// Decodes the field once (40 million reals at the default size), in
    /// logical order, for both the check and the figures; a field too large
    /// for that is checked on a sample of its sites.
    fn check(&self, outputs: &[&[u8]]) -> (Validation, BTreeMap<String, f64>) {
        let (p, groups) = (self.precision, &self.lattice.groups);
        let read: Vec<u64> = outputs.iter().map(|o| o.len() as u64).collect();
        if read != groups.bytes(p) {
            let v = Validation::fail(format!(
                "{read:?} bytes read back, {:?} expected",
                groups.bytes(p)
            ));
            return (v, BTreeMap::new());
        }
        let setup = &self.shared.setup;
        let sites = groups.layout.sites as usize;
        if self.check == Check::Sample {
            let sample = self
                .shared
                .sample
                .get_or_init(|| Sample::new(&setup.start, setup.kernel, setup.steps));
            let got = sample.read(groups, p, outputs);
            let totals = check::totals(groups, p, outputs);
            let scope = Some(sample.describe(sites));
            let v = setup.check_totals((&got, &sample.want), p, totals, scope);
            return (v, self.figures(None, totals.0));
        }
        let got = groups.decode(p, outputs);
        let want = self.shared.want.get_or_init(|| setup.expected());
        let totals = d3q19::totals(&got);
        let v = setup.check_totals((&got, want), p, totals, None);
        (v, self.figures(Some(&got), totals.0))
    }
}

impl LbmGpu {
    /// The record's figures of a field of mass `m1` (the shear wave's
    /// amplitude too where the field was read whole, logical order).
    fn figures(&self, got: Option<&[f64]>, m1: f64) -> BTreeMap<String, f64> {
        let start = &self.shared.setup.start;
        let (m0, _) = start.f0_totals;
        let mut m = BTreeMap::from([
            ("mass_relative_change".to_string(), (m1 - m0) / m0),
            (
                "field_buffers".to_string(),
                f64::from(self.lattice.groups.count()),
            ),
        ]);
        if let (true, Some(got)) = (start.shear, got) {
            let b = &start.lattice;
            let a = d3q19::shear_amplitude(b, got) / d3q19::shear_amplitude(b, &start.f0);
            m.insert("shear_amplitude_ratio".into(), a);
        }
        m
    }
}
