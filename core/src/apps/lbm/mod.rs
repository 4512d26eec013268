//! `lbm`: Ludwig's hydrodynamics core, D3Q19 lattice Boltzmann on an L^3
//! periodic box (the targetDP paper's first application). Kernels: BGK
//! `collide` (with a body force), pull `propagate`, the two `fused`, and a
//! `step` (collide then propagate, as Ludwig runs them). Every field access
//! goes through targetDP's index function, so one generated kernel serves
//! AoS, SoA and AoSoA layouts and every virtual vector length.

mod check;
pub mod codegen;
mod cpu;
pub mod d3q19;
pub mod dist;
mod fit;
mod gpu;
mod pull;
mod start;
#[cfg(test)]
mod tests;

use std::f64::consts::PI;
use std::sync::Arc;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Validation, wg_param,
};
use crate::apps::common::{fresh_rng, parse_size};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::layout::{self, Groups, Layout, LayoutName};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::scale::Part;
use crate::shader::{ShaderSpec, sources};
pub use check::Check;
use cpu::LbmCpu;
use d3q19::{Box3, NVEL};
use fit::{fields, fits};
pub use pull::Pull;
use start::Start;

const SOURCE: &str = include_str!("../../../../shaders/lbm/lbm.wgsl");
const ROWS_SOURCE: &str = include_str!("../../../../shaders/lbm/rows.wgsl");

choice! {
    /// Kernels, named as the entry points (`step` runs `collide` then `propagate`).
    pub enum KernelName("kernel") {
        /// BGK collision with a body force.
        Collide = "collide",
        /// Pull propagation.
        Propagate = "propagate",
        /// Both in one kernel.
        Fused = "fused",
        /// Collide then propagate, as Ludwig runs them.
        Step = "step",
    }
}

choice! {
    /// Initial conditions.
    pub enum Init("init") {
        /// Near equilibrium, with a body force.
        Random = "random",
        /// A decaying shear wave, checked against its viscous decay.
        Shear = "shear",
    }
}

/// One lbm case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Kernel.
    pub kernel: KernelName,
    /// Field layout.
    pub layout: LayoutName,
    /// Virtual vector length (sites per invocation).
    pub vvl: u32,
    /// How the propagating kernels get the values that move along x
    /// (recorded as `load` for collide, which moves none).
    pub pull: Pull,
    /// Workgroup size.
    pub wg: u32,
    /// Box extent L.
    pub l: u64,
    /// Lattice sites, L^3.
    pub sites: u64,
    /// Time steps per run.
    pub steps: u64,
    /// Initial condition.
    pub init: Init,
    /// How the field is checked (resolved: never `auto` in a case).
    pub check: Check,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every lbm result file).
    pub fn case(&self) -> Case {
        let mut variant = format!("{}/vvl{}/wg{}", self.layout, self.vvl, self.wg);
        if self.pull == Pull::Rows {
            variant.push_str("/rows");
        }
        Case::new("lbm", self.kernel.name(), &variant, self.precision)
            .param("layout", self.layout)
            .param("vvl", self.vvl)
            .param("pull", self.pull)
            .param("wg", self.wg)
            .param("L", self.l)
            .param("sites", self.sites)
            .param("steps", self.steps)
            .param("init", self.init)
            .param("check", self.check)
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            kernel: case.kernel_as()?,
            layout: case.choice()?,
            vvl: case.u32("vvl")?,
            pull: case.choice()?,
            wg: case.u32("wg")?,
            l: case.uint("L")?,
            sites: case.uint("sites")?,
            steps: case.uint("steps")?,
            init: case.choice()?,
            // Files from before the check was a parameter checked whole.
            check: case.choice().unwrap_or(Check::Whole),
        })
    }
}

/// Steps a shear-wave run needs before its decay rate is checked.
const SHEAR_MIN_STEPS: u64 = 50;

/// Default box extent (128^3 sites) and the CI preset (8^3).
const SIZES: &[(&str, u64)] = &[("default", 128), ("small", 8)];

/// The `lbm` app.
pub struct Lbm;

impl App for Lbm {
    fn name(&self) -> &'static str {
        "lbm"
    }

    /// The problem is the lattice size.
    fn problem(&self) -> &'static [&'static str] {
        &["L"]
    }

    /// The reference steps the distributions in logical order: layouts, vector lengths and workgroup sizes are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["sites", "steps", "init"]
    }

    fn about(&self) -> &'static str {
        "Ludwig-style D3Q19 lattice Boltzmann (collide, propagate, fused) over targetDP layouts and vector lengths"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "collide (BGK + body force), propagate (pull), fused, step (collide + propagate)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "collide,propagate,fused,step",
            },
            layout::layout_param("soa"),
            layout::vvl_param(),
            ParamSpec {
                name: "pull",
                help: "how propagate, fused and step's propagate get the values that move along x: load (each from its upwind site), rows (a workgroup's whole x rows loaded in place and shifted through workgroup memory; wg a multiple of L, vvl 1), or auto (rows where wg = L and vvl = 1, else load)",
                kind: ParamKind::Choice(Pull::NAMES),
                default: "auto",
            },
            wg_param("128"),
            ParamSpec {
                name: "size",
                help: "box extent L (L^3 sites): default (128), small (8), or a number",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "steps",
                help: "time steps per run (validation compares after one run)",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 100_000,
                },
                default: "1",
            },
            ParamSpec {
                name: "init",
                help: "random (near equilibrium, with a body force) or shear (a decaying shear wave, checked against its viscous decay)",
                kind: ParamKind::Choice(Init::NAMES),
                default: "random",
            },
            ParamSpec {
                name: "check",
                help: "how the field is checked: whole (every site against the f64 reference), sample (65,536 random sites and the corners, after one step, with the whole field's mass and momentum), or auto (whole up to 2^28 reals, L <= 241)",
                kind: ParamKind::Choice(Check::NAMES),
                default: "auto",
            },
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        layout::sweep_defaults()
    }

    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("layout", layout::ALL_LAYOUTS),
            ("pull", "load,rows"),
            ("vvl", "1,2,4,8"),
            ("wg", "32,64,128,256,512"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let l = parse_size("size", r.text("size"), SIZES)?;
        // Sites are u32 in the shader (each buffer's index too): `fits`
        // refuses a larger L.
        let sites = l.saturating_pow(3);
        let steps = r.uint("steps");
        let check = match r.choice::<Check>() {
            Check::Auto if check::sampled(sites) => Check::Sample,
            Check::Auto => Check::Whole,
            c => c,
        };
        if check == Check::Sample && check::blocks(steps).is_none() {
            return Err(Error::bad_param(
                "steps",
                format!(
                    "L = {l} is checked on a sample of sites, whose reference follows each site's cone back to the start: at most {} steps a run (or `--set check=whole`; auto checks fields of at most {} reals, L <= 241, whole)",
                    check::max_sampled_steps(),
                    check::WHOLE_REALS
                ),
            ));
        }
        let vvls: Vec<u32> = r.uints("vvl").into_iter().map(|v| v as u32).collect();
        let base = Params {
            precision: Precision::F32,
            kernel: KernelName::Collide,
            layout: LayoutName::Soa,
            vvl: 1,
            pull: Pull::Load,
            wg: 1,
            l,
            sites,
            steps,
            init: r.choice(),
            check,
        };
        for p in &r.precisions {
            fits(
                &Params {
                    precision: *p,
                    ..base
                },
                caps,
            )?;
        }
        let cases = Grid::new(base)
            .axis(&r.precisions, |c, p| c.precision = p)
            .axis(&r.choices(), |c, k| c.kernel = k)
            .axis(&r.choices(), |c, l| c.layout = l)
            .axis(&vvls, |c, v| c.vvl = v)
            .axis_where(
                |c| c.kernel != KernelName::Collide,
                &r.choices(),
                |c, pull| c.pull = pull,
            )
            .axis(&r.wgs(caps)?, |c, wg| c.wg = wg)
            // `auto` resolved, and the forms it duplicates (auto,rows) once.
            .each(|c| c.pull = c.pull.resolved(c, caps))
            .distinct_points();
        Ok(cases.iter().map(Params::case).collect())
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::LbmGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        let layouts = [LayoutName::Aos, LayoutName::Soa, LayoutName::Aosoa8];
        let mut specs: Vec<ShaderSpec> = layouts
            .into_iter()
            .map(|name| {
                let layout = Groups::whole(Layout::new(name, 512, NVEL as u32));
                Part::all(512).apply(spec(p, 64, [8, 8, 8], &layout, 2, Pull::Load))
            })
            .collect();
        let soa = Layout::new(LayoutName::Soa, 512, NVEL as u32);
        let split = Groups {
            layout: soa,
            per: 5,
        };
        specs.push(Part::all(512).apply(spec(p, 64, [8, 8, 8], &split, 1, Pull::Rows)));
        // The scale-out halo swap of an 8^3 box over a 2 x 2 grid of ranks
        // (8 x 6 x 6 padded boxes), across either axis, and the boundary and
        // interior boxes of a rank's kernels.
        if let Ok(d) = crate::scale::Decomposition::plan_grid(["y", "z"], &[8, 8, 8], 4, 1) {
            // The aosoa field split in four groups, as a large box is.
            for (name, per) in layouts.into_iter().zip([19, 19, 5]) {
                let groups = Groups {
                    layout: Layout::new(name, 288, NVEL as u32),
                    per,
                };
                for axis in [0, 1] {
                    let send = dist::halo_send(axis);
                    specs.push(crate::scale::halo::spec(p, &groups, &d, axis, &send));
                }
            }
            let layout = Groups::whole(Layout::new(LayoutName::Soa, 288, NVEL as u32));
            let parts = d.boundary().into_iter().chain(d.interior());
            specs.extend(parts.map(|b| b.apply(spec(p, 64, [8, 6, 6], &layout, 2, Pull::Load))));
        }
        specs
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        let cpu = Params::try_from(case).map(|p| LbmCpu::new(&p));
        Some(cpu.map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// The module for one box, field layout (split as `groups` says), vector
/// length and pull form; every kernel is an entry point (the rows form's
/// propagating ones as well).
fn spec(p: Precision, wg: u32, n: [u32; 3], groups: &Groups, vvl: u32, pull: Pull) -> ShaderSpec {
    let mut spec = ShaderSpec::new("lbm", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("NX", n[0])
        .with_u32("NY", n[1])
        .with_u32("NZ", n[2])
        .with_u32("SITES", n[0] * n[1] * n[2])
        .with_u32("VVL", vvl)
        .with_include(sources::GRID)
        .with_include(codegen::bindings(groups))
        .with_include(codegen::site_functions(groups));
    // Only the rows form declares the rows' workgroup memory.
    if pull == Pull::Rows {
        spec = spec
            .with_include(codegen::rows_functions(groups))
            .with_include(ROWS_SOURCE);
    }
    groups.layout.apply(spec)
}

/// What one case sets up: its start, kernel and how long it runs.
struct Setup {
    kernel: KernelName,
    steps: u64,
    start: Arc<Start>,
}

impl Setup {
    fn new(params: &Params, p: Precision) -> Setup {
        let l = params.l as usize;
        Setup::on([l, l, l], params, p, &mut fresh_rng())
    }

    /// The case on a box of extents `n` (a scale-out run's global lattice),
    /// its random start drawn from `rng`.
    fn on(n: [usize; 3], params: &Params, p: Precision, rng: &mut rand_pcg::Pcg64) -> Setup {
        Setup::from_start(params, Arc::new(Start::on(n, params, p, rng)))
    }

    /// The case of `params` from a shared start.
    fn from_start(params: &Params, start: Arc<Start>) -> Setup {
        Setup {
            kernel: params.kernel,
            steps: params.steps,
            start,
        }
    }

    /// The f64 reference after `steps` steps of the case's kernel.
    fn expected(&self) -> Arc<Vec<f64>> {
        let b = &self.start.lattice;
        let mut f = self.start.first_step(self.kernel);
        for _ in 1..self.steps {
            f = Arc::new(step(self.kernel, b, &f));
        }
        f
    }

    /// Collisions per step (each adds the body force to the momentum).
    fn collides(&self) -> bool {
        self.kernel != KernelName::Propagate
    }

    /// Element-wise tolerance after the case's steps (relative, floor 0.01:
    /// distributions are of order 1/36 to 1/3).
    fn tolerance(&self, p: Precision) -> f64 {
        // Measured on lavapipe: 4.4e-7 (f32), 6.3e-16 (f64) and 2.7e-14
        // (df64) after one step; 2.8e-6, 2.9e-15 and 5.6e-14 after 100.
        let per_step = match p {
            Precision::F32 => 2e-6,
            Precision::F64 => 1e-14,
            Precision::Df64 => 5e-13,
        };
        per_step * self.steps as f64
    }

    /// Checks `got` (logical order) against the reference, mass and momentum
    /// against the conservation laws, and a long enough shear wave against
    /// its viscous decay.
    fn check(&self, got: &[f64], want: &[f64], p: Precision) -> Validation {
        self.check_totals((got, want), p, d3q19::totals(got), None)
    }

    /// [`Setup::check`] given the whole field's mass and momentum (a
    /// caller that needs them too computes them once), with `got` and
    /// `want` the whole field or, as `sample` describes, a sample of it.
    fn check_totals(
        &self,
        (got, want): (&[f64], &[f64]),
        p: Precision,
        totals: (f64, [f64; 3]),
        sample: Option<String>,
    ) -> Validation {
        let b = &self.start.lattice;
        let on = sample.map(|s| format!(" on {s}")).unwrap_or_default();
        let mut v = Validation::compare(
            got,
            want,
            self.tolerance(p),
            0.01,
            &format!("{} x {} vs f64 reference{on}", self.steps, self.kernel),
        );
        if !v.passed {
            return v;
        }
        let (m0, j0) = self.start.f0_totals;
        let (m1, j1) = totals;
        let kicks = if self.collides() {
            (self.steps * b.sites() as u64) as f64
        } else {
            0.0
        };
        let mom_err = (0..3)
            .map(|d| (j1[d] - (j0[d] + kicks * b.force[d])).abs())
            .fold(0.0, f64::max)
            / m0;
        let mass_err = (m1 - m0).abs() / m0;
        v = v.and(Validation {
            reference: false,
            max_error: mass_err.max(mom_err),
            tolerance: self.tolerance(p),
            passed: mass_err.max(mom_err) <= self.tolerance(p),
            detail: format!(
                "mass change {mass_err:.1e}, momentum off the force's {mom_err:.1e} (per unit mass)"
            ),
        });
        if self.start.shear && self.collides() && self.kernel != KernelName::Collide {
            v = v.and(self.decay(got));
        }
        v
    }

    /// The shear wave's measured decay rate against nu k^2 (2%: the lattice
    /// adds O(k^2) corrections at small boxes).
    fn decay(&self, got: &[f64]) -> Validation {
        if self.steps < SHEAR_MIN_STEPS {
            return Validation::fail(format!(
                "shear decay needs at least {SHEAR_MIN_STEPS} steps per run, not {}",
                self.steps
            ));
        }
        let b = &self.start.lattice;
        let a0 = d3q19::shear_amplitude(b, &self.start.f0);
        let a1 = d3q19::shear_amplitude(b, got);
        let k = 2.0 * PI / b.n[1] as f64;
        let rate = -(a1 / a0).ln() / self.steps as f64;
        let want = b.viscosity() * k * k;
        let err = (rate / want - 1.0).abs();
        Validation {
            reference: false,
            max_error: err,
            tolerance: 0.02,
            passed: err <= 0.02,
            detail: format!("shear decay rate {rate:.4e} vs nu k^2 = {want:.4e}"),
        }
    }
}

/// One step of `kernel` from `f` on the host, in f64.
fn step(kernel: KernelName, b: &Box3, f: &[f64]) -> Vec<f64> {
    match kernel {
        KernelName::Collide => d3q19::collide(b, f),
        KernelName::Propagate => d3q19::propagate(b, f),
        KernelName::Fused => d3q19::fused(b, f),
        KernelName::Step => d3q19::propagate(b, &d3q19::collide(b, f)),
    }
}

/// Reals of the `coef` binding: 1/tau, tau, the body force and the three
/// weights.
const COEFFICIENTS: u64 = 8;

/// Bytes one run's loads and stores request: each distribution is loaded
/// once and stored once a pass (pulled from a neighbour or not), so the
/// model's bytes, and each collision loads the 8 coefficients of `coef`.
fn issued_bytes(kernel: KernelName, sites: u64, steps: u64, p: Precision) -> f64 {
    let collisions = match kernel {
        KernelName::Propagate => 0,
        KernelName::Collide | KernelName::Fused | KernelName::Step => 1,
    };
    let coef = (collisions * COEFFICIENTS * p.real_bytes() * sites * steps) as f64;
    model(kernel, sites, steps, p).bytes + coef
}

/// Work and traffic of one run: every kernel reads and writes all 19
/// distributions of every site once per step (`step` twice), and every
/// collision costs [`codegen::collide_flops`].
fn model(kernel: KernelName, sites: u64, steps: u64, p: Precision) -> Model {
    let field = (2 * NVEL as u64 * p.real_bytes()) as f64 * sites as f64;
    let (passes, flops) = match kernel {
        KernelName::Propagate => (1.0, 0.0),
        KernelName::Step => (2.0, codegen::collide_flops() as f64),
        KernelName::Collide | KernelName::Fused => (1.0, codegen::collide_flops() as f64),
    };
    Model {
        flops: flops * (sites * steps) as f64,
        bytes: passes * field * steps as f64,
    }
}
