//! `lbm`: Ludwig's hydrodynamics core, D3Q19 lattice Boltzmann on an L^3
//! periodic box (the targetDP paper's first application). Kernels: BGK
//! `collide` (with a body force), pull `propagate`, the two `fused`, and a
//! `step` (collide then propagate, as Ludwig runs them). Every field access
//! goes through targetDP's index function, so one generated kernel serves
//! AoS, SoA and AoSoA layouts and every virtual vector length.

pub mod codegen;
pub mod d3q19;

use std::collections::BTreeMap;
use std::f64::consts::PI;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Timestamps, Validation,
    check_wg, wg_param,
};
use crate::apps::common::{fresh_rng, parse_size, quantize, random_reals};
use crate::apps::targetdp::{self, Layout};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Pipeline, dispatch_shape};
use crate::gpu::{Capabilities, Gpu};
use crate::params::Resolved;
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};
use d3q19::{Box3, NVEL};

const SOURCE: &str = include_str!("../../../../shaders/lbm/lbm.wgsl");

/// Kernels, named as the entry points (`step` runs `collide` then `propagate`).
const KERNELS: &[&str] = &["collide", "propagate", "fused", "step"];

/// Initial conditions.
const INITS: &[&str] = &["random", "shear"];

/// BGK relaxation time (viscosity 0.1 in lattice units).
const TAU: f64 = 0.8;

/// Body force of the random initial condition (the shear wave runs force-free).
const FORCE: [f64; 3] = [1e-5, -5e-6, 2.5e-6];

/// Amplitude of the shear wave's u_x.
const SHEAR_AMPLITUDE: f64 = 0.01;

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

    fn about(&self) -> &'static str {
        "Ludwig-style D3Q19 lattice Boltzmann (collide, propagate, fused) over targetDP layouts and vector lengths"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "collide (BGK + body force), propagate (pull), fused, step (collide + propagate)",
                kind: ParamKind::Choice(KERNELS),
                default: "collide,propagate,fused,step",
            },
            targetdp::layout_param("soa"),
            targetdp::vvl_param(),
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
                kind: ParamKind::Choice(INITS),
                default: "random",
            },
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        targetdp::sweep_defaults()
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let l = parse_size("size", r.text("size"), SIZES)?;
        // Indices are u32 in the shader: every (site, velocity) slot must fit.
        let sites = l
            .checked_pow(3)
            .filter(|s| s * NVEL as u64 <= u32::MAX as u64)
            .ok_or_else(|| Error::bad_param("size", format!("L = {l} is too large")))?;
        let steps = r.uints("steps").first().copied().unwrap_or(1);
        let init = r.list("init").first().cloned().unwrap_or_default();
        let mut cases = Vec::new();
        for &p in &r.precisions {
            for kernel in r.list("kernel") {
                for layout in r.list("layout") {
                    for vvl in r.uints("vvl") {
                        for wg in r.uints("wg") {
                            let wg = check_wg(wg, caps)?;
                            cases.push(
                                Case::new(
                                    self.name(),
                                    kernel,
                                    &format!("{layout}/vvl{vvl}/wg{wg}"),
                                    p,
                                )
                                .param("layout", layout)
                                .param("vvl", vvl)
                                .param("wg", wg)
                                .param("L", l)
                                .param("sites", sites)
                                .param("steps", steps)
                                .param("init", &init),
                            );
                        }
                    }
                }
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(LbmGpu::new(gpu, case)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        ["aos", "soa", "aosoa-8"]
            .iter()
            .filter_map(|name| Layout::new(name, 512, NVEL as u32).ok())
            .map(|layout| spec(p, 64, [8, 8, 8], &layout, 2))
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(LbmCpu::new(case).map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// The module for one box, layout and vector length; every kernel is an entry point.
fn spec(p: Precision, wg: u32, n: [u32; 3], layout: &Layout, vvl: u32) -> ShaderSpec {
    let spec = ShaderSpec::new("lbm", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("NX", n[0])
        .with_u32("NY", n[1])
        .with_u32("NZ", n[2])
        .with_u32("SITES", n[0] * n[1] * n[2])
        .with_u32("VVL", vvl)
        .with_include(sources::GRID)
        .with_include(codegen::site_functions());
    layout.apply(spec)
}

/// What one case sets up: the box, its initial field and how long it runs.
struct Setup {
    kernel: String,
    lattice: Box3,
    steps: u64,
    shear: bool,
    /// Initial distributions, logical order, rounded to the case's precision.
    f0: Vec<f64>,
}

impl Setup {
    fn new(case: &Case, p: Precision) -> Result<Setup> {
        let l = case.uint("L")? as usize;
        let shear = case.text("init") == "shear";
        let lattice = Box3 {
            n: [l, l, l],
            tau: TAU,
            force: if shear { [0.0; 3] } else { FORCE },
        };
        let f0 = if shear {
            quantize(p, &d3q19::shear_wave(&lattice, SHEAR_AMPLITUDE))
        } else {
            random_field(&lattice, p)
        };
        Ok(Setup {
            kernel: case.kernel.clone(),
            lattice,
            steps: case.uint("steps")?,
            shear,
            f0,
        })
    }

    /// The f64 reference after `steps` steps of the case's kernel.
    fn expected(&self) -> Vec<f64> {
        let b = &self.lattice;
        let mut f = self.f0.clone();
        for _ in 0..self.steps {
            f = match self.kernel.as_str() {
                "collide" => d3q19::collide(b, &f),
                "propagate" => d3q19::propagate(b, &f),
                "fused" => d3q19::fused(b, &f),
                _ => d3q19::propagate(b, &d3q19::collide(b, &f)),
            };
        }
        f
    }

    /// Collisions per step (each adds the body force to the momentum).
    fn collides(&self) -> bool {
        self.kernel != "propagate"
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
        let b = &self.lattice;
        let mut v = Validation::compare(
            got,
            want,
            self.tolerance(p),
            0.01,
            &format!("{} x {} vs f64 reference", self.steps, self.kernel),
        );
        if !v.passed {
            return v;
        }
        let (m0, j0) = d3q19::totals(&self.f0);
        let (m1, j1) = d3q19::totals(got);
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
            max_error: mass_err.max(mom_err),
            tolerance: self.tolerance(p),
            passed: mass_err.max(mom_err) <= self.tolerance(p),
            detail: format!(
                "mass change {mass_err:.1e}, momentum off the force's {mom_err:.1e} (per unit mass)"
            ),
        });
        if self.shear && self.collides() && self.kernel != "collide" {
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
        let b = &self.lattice;
        let a0 = d3q19::shear_amplitude(b, &self.f0);
        let a1 = d3q19::shear_amplitude(b, got);
        let k = 2.0 * PI / b.n[1] as f64;
        let rate = -(a1 / a0).ln() / self.steps as f64;
        let want = b.viscosity() * k * k;
        let err = (rate / want - 1.0).abs();
        Validation {
            max_error: err,
            tolerance: 0.02,
            passed: err <= 0.02,
            detail: format!("shear decay rate {rate:.4e} vs nu k^2 = {want:.4e}"),
        }
    }
}

/// Distributions near equilibrium at random density (1 +- 5%) and velocity
/// (|u_d| < 0.05), with a small random non-equilibrium part.
fn random_field(b: &Box3, p: Precision) -> Vec<f64> {
    let mut rng = fresh_rng();
    let n = b.sites();
    let rho = random_reals(&mut rng, n, 0.95, 1.05, Precision::F64);
    let u = random_reals(&mut rng, 3 * n, -0.05, 0.05, Precision::F64);
    let noise = random_reals(&mut rng, n * NVEL, -1e-3, 1e-3, Precision::F64);
    let mut f = Vec::with_capacity(n * NVEL);
    for s in 0..n {
        let feq = d3q19::equilibrium(rho[s], [u[3 * s], u[3 * s + 1], u[3 * s + 2]]);
        for q in 0..NVEL {
            f.push(feq[q] * (1.0 + noise[s * NVEL + q]));
        }
    }
    quantize(p, &f)
}

/// Work and traffic of one run: every kernel reads and writes all 19
/// distributions of every site once per step (`step` twice), and every
/// collision costs [`codegen::collide_flops`].
fn model(kernel: &str, sites: u64, steps: u64, p: Precision) -> Model {
    let field = (2 * NVEL as u64 * p.real_bytes()) as f64 * sites as f64;
    let (passes, flops) = match kernel {
        "propagate" => (1.0, 0.0),
        "step" => (2.0, codegen::collide_flops() as f64),
        _ => (1.0, codegen::collide_flops() as f64),
    };
    Model {
        flops: flops * (sites * steps) as f64,
        bytes: passes * field * steps as f64,
    }
}

struct LbmGpu {
    setup: Setup,
    precision: Precision,
    layout: Layout,
    buffers: [wgpu::Buffer; 2],
    /// The kernel's pipeline(s): `step` has collide then propagate.
    pipes: Vec<Pipeline>,
    /// Bind groups reading field 0 into 1, and 1 into 0.
    groups: [wgpu::BindGroup; 2],
    dispatch: (u32, u32),
}

impl LbmGpu {
    fn new(gpu: &Gpu, case: &Case) -> Result<LbmGpu> {
        let p = case.precision;
        let sites = case.uint("sites")? as u32;
        let (vvl, wg) = (case.uint("vvl")? as u32, case.uint("wg")? as u32);
        let layout = Layout::new(case.text("layout"), sites, NVEL as u32)?;
        let bytes = layout.reals() * p.real_bytes();
        gpu.check_size(bytes)?;
        let dispatch = dispatch_shape(
            u64::from(sites.div_ceil(vvl)),
            wg,
            gpu.caps.max_workgroups_per_dim,
        )?;
        let setup = Setup::new(case, p)?;
        let n = setup.lattice.n.map(|v| v as u32);
        let module = spec(p, wg, n, &layout, vvl);
        let binds = [Bind::Read, Bind::ReadWrite, Bind::Read];
        let entries: &[&str] = match case.kernel.as_str() {
            "step" => &["collide", "propagate"],
            k => &[k][..],
        };
        let entries: Vec<&str> = entries.to_vec();
        let pipes = entries
            .iter()
            .map(|e| gpu.pipeline(&module, e, &binds))
            .collect::<Result<Vec<_>>>()?;
        let a = gpu.storage_init("lbm-f0", &p.encode(&layout.pack(&setup.f0, 0.0)))?;
        let b = gpu.storage_poisoned("lbm-f1", bytes, &p.poison_pattern())?;
        let b3 = &setup.lattice;
        let coef = [
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
        let groups = [
            gpu.bind(&pipes[0], &[&a, &b, &coef]),
            gpu.bind(&pipes[0], &[&b, &a, &coef]),
        ];
        Ok(LbmGpu {
            setup,
            precision: p,
            layout,
            buffers: [a, b],
            pipes,
            groups,
            dispatch,
        })
    }

    /// Which buffer holds the result after one run.
    fn result_index(&self) -> usize {
        if self.pipes.len() == 2 {
            0
        } else {
            (self.setup.steps % 2) as usize
        }
    }
}

impl Kernel for LbmGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        // One pass: WebGPU orders the dispatches' storage accesses.
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("lbm"),
            timestamp_writes: ts.pass(true, true),
        });
        let mut from = 0;
        for _ in 0..self.setup.steps {
            for pipe in &self.pipes {
                pipe.set(&mut pass, &self.groups[from]);
                pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
                from = 1 - from;
            }
        }
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.buffers[self.result_index()]]
    }

    fn validate(&self, outputs: &[Vec<u8>]) -> Validation {
        let raw = self.precision.decode(&outputs[0]);
        if raw.len() as u64 != self.layout.reals() {
            return Validation::fail(format!(
                "{} reals read back, {} expected",
                raw.len(),
                self.layout.reals()
            ));
        }
        let got = self.layout.unpack(&raw);
        self.setup
            .check(&got, &self.setup.expected(), self.precision)
    }

    fn model(&self) -> Model {
        model(
            &self.setup.kernel,
            self.layout.sites as u64,
            self.setup.steps,
            self.precision,
        )
    }

    fn metrics(&self, outputs: &[Vec<u8>]) -> BTreeMap<String, f64> {
        let got = self.layout.unpack(&self.precision.decode(&outputs[0]));
        let (m0, _) = d3q19::totals(&self.setup.f0);
        let (m1, _) = d3q19::totals(&got);
        let mut m = BTreeMap::from([("mass_relative_change".to_string(), (m1 - m0) / m0)]);
        if self.setup.shear {
            let b = &self.setup.lattice;
            let a = d3q19::shear_amplitude(b, &got) / d3q19::shear_amplitude(b, &self.setup.f0);
            m.insert("shear_amplitude_ratio".into(), a);
        }
        m
    }
}

/// The same steps on the CPU in f64.
struct LbmCpu {
    setup: Setup,
    f: Vec<f64>,
    checked: Option<Vec<f64>>,
}

impl LbmCpu {
    fn new(case: &Case) -> Result<LbmCpu> {
        let setup = Setup::new(case, Precision::F64)?;
        Ok(LbmCpu {
            f: setup.f0.clone(),
            setup,
            checked: None,
        })
    }
}

impl CpuKernel for LbmCpu {
    fn run(&mut self) {
        let b = &self.setup.lattice;
        for _ in 0..self.setup.steps {
            self.f = match self.setup.kernel.as_str() {
                "collide" => d3q19::collide(b, &self.f),
                "propagate" => d3q19::propagate(b, &self.f),
                "fused" => d3q19::fused(b, &self.f),
                _ => d3q19::propagate(b, &d3q19::collide(b, &self.f)),
            };
        }
        if self.checked.is_none() {
            self.checked = Some(self.f.clone());
        }
    }

    /// Conservation and (for a shear wave) decay of the first run; the
    /// element-wise comparison is with the same arithmetic, so it is exact.
    fn validate(&self) -> Validation {
        match &self.checked {
            Some(f) => self.setup.check(f, &self.setup.expected(), Precision::F64),
            None => Validation::fail("not run".into()),
        }
    }

    fn model(&self) -> Model {
        model(
            &self.setup.kernel,
            self.setup.lattice.sites() as u64,
            self.setup.steps,
            Precision::F64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(kernel: &str, l: u64, steps: u64, init: &str) -> Case {
        Case::new("lbm", kernel, "soa", Precision::F64)
            .param("layout", "soa")
            .param("vvl", 1)
            .param("wg", 64)
            .param("L", l)
            .param("sites", l.pow(3))
            .param("steps", steps)
            .param("init", init)
    }

    #[test]
    fn cpu_reference_conserves_and_decays() {
        for kernel in KERNELS {
            let mut k = LbmCpu::new(&case(kernel, 4, 3, "random")).expect("cpu");
            k.run();
            let v = k.validate();
            assert!(v.passed, "{kernel}: {}", v.detail);
        }
        let mut k = LbmCpu::new(&case("fused", 16, 60, "shear")).expect("cpu");
        k.run();
        let v = k.validate();
        assert!(v.passed && v.detail.contains("shear decay"), "{}", v.detail);
    }

    #[test]
    fn a_wrong_or_unwritten_value_fails() {
        let s = Setup::new(&case("fused", 4, 1, "random"), Precision::F64).expect("setup");
        let want = s.expected();
        let mut got = want.clone();
        assert!(s.check(&got, &want, Precision::F64).passed);
        got[7] = f64::NAN;
        assert!(!s.check(&got, &want, Precision::F64).passed);
        got[7] = want[7] * (1.0 + 1e-9);
        assert!(!s.check(&got, &want, Precision::F64).passed);
    }

    #[test]
    fn model_counts_each_pass_over_the_field() {
        let m = model("step", 1000, 2, Precision::F32);
        assert_eq!(m.bytes, 2.0 * 2.0 * 2.0 * 19.0 * 4.0 * 1000.0);
        assert_eq!(m.flops, 225.0 * 2000.0);
        assert_eq!(model("propagate", 10, 1, Precision::F64).flops, 0.0);
    }

    #[test]
    fn sizes_and_layouts_are_checked() {
        let caps = Capabilities {
            max_workgroup_invocations: 256,
            ..Default::default()
        };
        let ok = Request::default()
            .set("size", "small")
            .set("layout", "aos,aosoa-4");
        assert_eq!(Lbm.cases(&ok, &caps).expect("cases").len(), 3 * 4 * 2);
        assert!(
            Lbm.cases(&Request::default().set("size", "700"), &caps)
                .is_err()
        );
        assert!(
            Lbm.cases(&Request::default().set("layout", "aosoa-3"), &caps)
                .is_err()
        );
    }
}
