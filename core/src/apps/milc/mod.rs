//! `milc`: the UEABS MILC benchmark's inner loop (the targetDP paper's
//! second application): the Wilson-Dirac operator on an L^3 x T lattice
//! with random SU(3) links, and conjugate gradient on the normal equations,
//! with MILC's kernel split. The operator (see [`wilson`]) is
//!
//! `M = 1 - kappa D`, `D psi(x) = sum_mu [(1 - gamma_mu) U_mu(x) psi(x + mu) + (1 + gamma_mu) U_mu^dagger(x - mu) psi(x - mu)]`,
//!
//! gamma matrices in the DeGrand-Rossi basis, periodic boundaries. One
//! application of `D` (`dslash`) is five kernels, as MILC's
//! `dslash_w_site` runs it: `extract` (project psi to the forward half
//! spinors), `extract-mul` (project to the backward ones and multiply by
//! `U^dagger`), `shift` (gather from the 8 neighbours), `insert-mul`
//! (multiply by `U`, rebuild the spinors, sum) and `insert` (rebuild the
//! backward ones and add); `dslash-fused` is the same operator in one
//! kernel. `axpy` is the scalar multiply-add, `dot` CG's
//! deterministic reduction, and `cg` solves `M^dagger M x = M^dagger b`
//! with every scalar kept on the GPU. Every field goes through targetDP's
//! index function, so one kernel source serves every layout and virtual
//! vector length.

pub mod codegen;
mod gpu;
pub mod wilson;

use std::collections::BTreeMap;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Validation, check_wg,
    wg_param,
};
use crate::apps::common::{fresh_rng, parse_size, quantize, random_reals};
use crate::apps::targetdp::{self, Layout};
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::Resolved;
use crate::precision::Precision;
use crate::shader::ShaderSpec;
use wilson::{HALF, LINKS, Lattice, SPINOR};

/// Kernels: the split of one Dslash, the scalar ones of CG, the whole
/// operator and the solve.
const KERNELS: &[&str] = &[
    "extract",
    "extract-mul",
    "shift",
    "insert-mul",
    "insert",
    "axpy",
    "dot",
    "dslash",
    "dslash-fused",
    "cg",
];

/// How CG applies D: MILC's five split kernels, or `dslash-fused`.
const OPERATORS: &[&str] = &["split", "fused"];

/// MILC's `isign`: `plus` applies D, `minus` D^dagger (gamma_mu negated).
const SIGNS: &[&str] = &["plus", "minus"];

/// Kernels whose result depends on the sign.
const SIGNED: &[&str] = &[
    "extract",
    "extract-mul",
    "insert-mul",
    "insert",
    "dslash",
    "dslash-fused",
];

/// Lattice sizes (L, T): the CI preset and the default for a large GPU
/// (2^21 sites: 4.4 GB of fields for a CG solve in f32, 8.9 GB in f64).
const SIZES: &[(&str, (u64, u64))] = &[("small", (4, 8)), ("default", (32, 64))];

/// Default hopping parameter: below the free-field critical 1/8, so
/// `M^dagger M` is well conditioned for any gauge field.
const KAPPA: &str = "0.12";

/// The `milc` app.
pub struct Milc;

impl App for Milc {
    fn name(&self) -> &'static str {
        "milc"
    }

    /// The problem is the lattice size.
    fn problem(&self) -> &'static [&'static str] {
        &["L", "T"]
    }

    fn about(&self) -> &'static str {
        "MILC Wilson-Dirac operator (extract, shift, insert split) and CG on the normal equations over targetDP layouts and vector lengths"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "extract, extract-mul, shift, insert-mul, insert (MILC's Dslash split), axpy, dot, dslash (the five split kernels), dslash-fused (one kernel), cg (the solve)",
                kind: ParamKind::Choice(KERNELS),
                default: "extract,extract-mul,shift,insert-mul,insert,axpy,dot,dslash,dslash-fused,cg",
            },
            targetdp::layout_param("soa"),
            targetdp::vvl_param(),
            wg_param("128"),
            ParamSpec {
                name: "size",
                help: "lattice L^3 x T: default (32^3 x 64), small (4^3 x 8), L (T = 2L) or LxT",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "kappa",
                help: "hopping parameter of M = 1 - kappa D, in (0, 0.125)",
                kind: ParamKind::Text,
                default: KAPPA,
            },
            ParamSpec {
                name: "tol",
                help: "CG tolerance |r| / |r0| on the normal equations: auto (1e-6 in f32, 1e-12 in f64 and df64) or a number",
                kind: ParamKind::Text,
                default: "auto",
            },
            ParamSpec {
                name: "sign",
                help: "plus applies D, minus D^dagger (MILC's isign), for the split kernels and both dslash; a comma list sweeps",
                kind: ParamKind::Choice(SIGNS),
                default: "plus",
            },
            ParamSpec {
                name: "operator",
                help: "how cg applies D: split (MILC's five kernels) or fused (dslash-fused); a comma list sweeps",
                kind: ParamKind::Choice(OPERATORS),
                default: "split",
            },
            ParamSpec {
                name: "iterations",
                help: "CG iterations recorded per solve (the solve freezes once converged; not converging within them fails)",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 10_000,
                },
                default: "100",
            },
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        targetdp::sweep_defaults()
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let (l, t) = parse_lattice(r.text("size"))?;
        // Indices are u32 in the shaders: every (site, real) slot of the links must fit.
        let sites = l
            .checked_pow(3)
            .and_then(|s| s.checked_mul(t))
            .filter(|s| s * LINKS as u64 <= u32::MAX as u64)
            .ok_or_else(|| Error::bad_param("size", format!("{l}^3 x {t} is too large")))?;
        let kappa = parse_number("kappa", r.text("kappa"))?;
        if !(kappa > 0.0 && kappa < 0.125) {
            return Err(Error::bad_param(
                "kappa",
                format!("{kappa} is outside (0, 0.125), where M is invertible for any gauge field"),
            ));
        }
        let tol_text = r.text("tol");
        let tol = match tol_text {
            "auto" => None,
            text => {
                let v = parse_number("tol", text)?;
                if !(v > 0.0 && v < 1.0) {
                    return Err(Error::bad_param("tol", format!("{v} is outside (0, 1)")));
                }
                Some(v)
            }
        };
        let iterations = r.uints("iterations").first().copied().unwrap_or(100);
        let mut shapes = Vec::new();
        for layout in r.list("layout") {
            for vvl in r.uints("vvl") {
                for wg in r.uints("wg") {
                    let wg = check_wg(wg, caps)?;
                    if !wg.is_power_of_two() {
                        return Err(Error::bad_param(
                            "wg",
                            format!("the reductions need a power-of-two workgroup size, not {wg}"),
                        ));
                    }
                    shapes.push((layout, vvl, wg));
                }
            }
        }
        let (split, plus) = ([OPERATORS[0].to_string()], [SIGNS[0].to_string()]);
        let mut cases = Vec::new();
        for &p in &r.precisions {
            let tol = tol.unwrap_or(default_tol(p));
            for kernel in r.list("kernel") {
                // Only a solve applies D through a choice of kernels, and
                // only the kernels that project or rebuild spinors have a sign.
                let operators = match kernel.as_str() {
                    "cg" => r.list("operator"),
                    _ => &split[..],
                };
                let signs = match SIGNED.contains(&kernel.as_str()) {
                    true => r.list("sign"),
                    false => &plus[..],
                };
                let extras = operators
                    .iter()
                    .flat_map(|o| signs.iter().map(move |s| (o, s)));
                for (operator, sign) in extras {
                    for &(layout, vvl, wg) in &shapes {
                        let mut variant = format!("{layout}/vvl{vvl}/wg{wg}");
                        for (value, default) in [(operator, OPERATORS[0]), (sign, SIGNS[0])] {
                            if value.as_str() != default {
                                variant.push_str(&format!("/{value}"));
                            }
                        }
                        cases.push(
                            Case::new(self.name(), kernel, &variant, p)
                                .param("layout", layout)
                                .param("vvl", vvl)
                                .param("wg", wg)
                                .param("operator", operator)
                                .param("sign", sign)
                                .param("L", l)
                                .param("T", t)
                                .param("sites", sites)
                                .param("kappa", kappa)
                                .param("tol", tol)
                                .param("iterations", iterations),
                        );
                    }
                }
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::MilcGpu::new(gpu, case)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        let mut specs = Vec::new();
        for name in ["aos", "soa", "aosoa-8"] {
            let Ok(layout) = Layout::new(name, 512, 1) else {
                continue;
            };
            let b = codegen::Build {
                precision: p,
                wg: 64,
                l: 4,
                t: 8,
                vvl: 2,
                layout,
            };
            for m in codegen::MODULES {
                specs.push(codegen::spec(m, &b, 1));
                if m.spin {
                    specs.push(codegen::spec(m, &b, -1));
                }
            }
        }
        specs
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(MilcCpu::new(case).map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// `small`, `default`, `L` (T = 2L) or `LxT`.
fn parse_lattice(text: &str) -> Result<(u64, u64)> {
    if let Some((_, lt)) = SIZES.iter().find(|(k, _)| *k == text) {
        return Ok(*lt);
    }
    let (l, t) = match text.split_once(['x', 'X']) {
        Some((l, t)) => (parse_size("size", l, &[])?, parse_size("size", t, &[])?),
        None => {
            let l = parse_size("size", text, &[])?;
            // Saturating: a huge L is rejected as too large, later, not here.
            (l, l.saturating_mul(2))
        }
    };
    // An extent of 1 would make a site its own neighbour.
    if l < 2 || t < 2 {
        return Err(Error::bad_param(
            "size",
            format!("{l}^3 x {t}: every extent must be at least 2"),
        ));
    }
    Ok((l, t))
}

fn parse_number(name: &str, text: &str) -> Result<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Error::bad_param(name, format!("`{text}` is not a number")))
}

/// CG's tolerance when the user sets none.
fn default_tol(p: Precision) -> f64 {
    match p {
        Precision::F32 => 1e-6,
        Precision::F64 | Precision::Df64 => 1e-12,
    }
}

/// Element-wise tolerance of the split kernels and of one Dslash, relative
/// with a floor of 1 (entries are of order 1: random spinors in [-1, 1),
/// SU(3) links).
fn tolerance(kernel: &str, p: Precision) -> f64 {
    if kernel == "shift" {
        // A copy: exact.
        return 0.0;
    }
    // Measured on lavapipe (4^3 x 8, largest of the split kernels and the
    // whole Dslash): 6.3e-7 (f32), 1.6e-15 (f64), 3.2e-14 (df64).
    match p {
        Precision::F32 => 4e-6,
        Precision::F64 => 1e-14,
        Precision::Df64 => 2e-13,
    }
}

/// Reals moved and FLOPs per site of one split kernel, as MILC's kernels
/// move and compute them: a projection is 6 complex additions per
/// direction (the gamma entries are powers of i), a half-spinor times a
/// link 2 x 66, a reconstruction and accumulation 12 complex additions.
pub fn per_site(entry: &str) -> (u64, u64) {
    let (s, h, u) = (SPINOR as u64, HALF as u64, LINKS as u64);
    match entry {
        "extract" => (s + h, 4 * 12),
        "extract_mul" => (s + u + h, 4 * (12 + 2 * 66)),
        "shift" => (2 * h + 2 * h, 0),
        "insert_mul" => (h + u + s, 4 * (2 * 66 + 24)),
        "insert" => (h + 2 * s, 4 * 24),
        // The fewest bytes: every spinor and link read once, one spinor
        // out. The 8 neighbours' spinors and the backward links are other
        // sites' data, re-read from cache (counting them put the H200 at
        // 7.8 TB/s, past its HBM); the split's FLOPs.
        "dslash_fused" => (2 * s + u, 8 * (12 + 2 * 66 + 24)),
        "axpy" => (3 * s, 2 * s),
        "dot" => (2 * s, 2 * s),
        "zero" => (s, 0),
        _ => (0, 0),
    }
}

/// What one case sets up: the lattice, its random inputs (rounded to the
/// case's precision) and the parameters of the solve.
struct Setup {
    kernel: String,
    /// Whether a solve applies D with `dslash-fused`.
    fused: bool,
    /// 1 for D, -1 for D^dagger.
    isign: f64,
    lat: Lattice,
    kappa: f64,
    tol: f64,
    iterations: u64,
    /// Links (empty for kernels that do not read them).
    u: Vec<f64>,
    /// The kernel's input fields, logical order, in binding order.
    inputs: Vec<Vec<f64>>,
}

impl Setup {
    fn new(case: &Case, p: Precision) -> Result<Setup> {
        let lat = Lattice {
            l: case.uint("L")? as usize,
            t: case.uint("T")? as usize,
        };
        let kappa = parse_number("kappa", case.text("kappa"))?;
        let tol = parse_number("tol", case.text("tol"))?;
        let n = lat.sites();
        let mut rng = fresh_rng();
        let mut field = |reals: usize| random_reals(&mut rng, n * reals, -1.0, 1.0, p);
        let (needs_links, shapes): (bool, &[usize]) = match case.kernel.as_str() {
            "extract" => (false, &[SPINOR]),
            "extract-mul" | "dslash" | "dslash-fused" | "cg" => (true, &[SPINOR]),
            "shift" => (false, &[HALF, HALF]),
            "insert-mul" => (true, &[HALF]),
            "insert" => (false, &[HALF, SPINOR]),
            "axpy" | "dot" => (false, &[SPINOR, SPINOR]),
            other => {
                return Err(Error::bad_param(
                    "kernel",
                    format!("`{other}` is not one of {}", KERNELS.join(", ")),
                ));
            }
        };
        let inputs = shapes.iter().map(|&reals| field(reals)).collect();
        let u = if needs_links {
            quantize(p, &wilson::random_links(&mut fresh_rng(), n))
        } else {
            Vec::new()
        };
        Ok(Setup {
            kernel: case.kernel.clone(),
            fused: case.text("operator") == "fused",
            isign: if case.text("sign") == "minus" {
                -1.0
            } else {
                1.0
            },
            lat,
            kappa,
            tol,
            iterations: case.uint("iterations")?,
            u,
            inputs,
        })
    }

    /// The f64 reference of the kernel's outputs (D itself for `dslash`,
    /// from the definition, not the split); `dot` gives one value; `cg` none.
    fn expected(&self) -> Vec<Vec<f64>> {
        let (lat, u, x, s) = (&self.lat, &self.u, &self.inputs, self.isign);
        match self.kernel.as_str() {
            "extract" => vec![wilson::extract(lat, &x[0], s)],
            "extract-mul" => vec![wilson::extract_mul(lat, u, &x[0], s)],
            "shift" => {
                let (gf, gb) = wilson::shift(lat, &x[0], &x[1]);
                vec![gf, gb]
            }
            "insert-mul" => vec![wilson::insert_mul(lat, u, &x[0], s)],
            "insert" => vec![wilson::insert(lat, &x[0], &x[1], s)],
            "axpy" => vec![wilson::axpy(-self.kappa, &x[0], &x[1])],
            "dot" => vec![vec![wilson::dot(&x[0], &x[1])]],
            "dslash" | "dslash-fused" => vec![wilson::dslash(lat, u, &x[0], s)],
            _ => Vec::new(),
        }
    }

    /// Checks field outputs (logical order) against [`Setup::expected`].
    fn check_fields(&self, got: &[Vec<f64>], p: Precision) -> Validation {
        let want = self.expected();
        if self.kernel == "dot" {
            let (a, b) = (&self.inputs[0], &self.inputs[1]);
            // Relative to sum |a_i b_i|: the sum of random-signed products
            // cancels, and its rounding scales with the terms, not the sum.
            let scale = crate::parallel::sum(a.len(), |i| (a[i] * b[i]).abs());
            let n = a.len() as f64;
            return Validation::compare(
                &got[0],
                &want[0],
                100.0 * p.epsilon() * n.log2(),
                scale,
                "Re <a, b> vs f64 sum (relative to sum |a b|)",
            );
        }
        let tol = tolerance(&self.kernel, p);
        let mut v: Option<Validation> = None;
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let what = format!("{} output {i} vs f64 reference", self.kernel);
            let c = Validation::compare(g, w, tol, 1.0, &what);
            v = Some(match v {
                None => c,
                Some(prev) => prev.and(c),
            });
        }
        v.unwrap_or_else(|| Validation::fail("no output compared".into()))
    }

    /// A solve: the GPU's recursive residual reached the tolerance within
    /// the iterations, and `|M x - b| / |b|` checked here in f64 is within
    /// 10 x the tolerance (M is well conditioned at kappa < 1/8 with random
    /// links: measured on lavapipe 1.4 x the tolerance in f32, 1.3 x in f64).
    fn check_solve(
        &self,
        x: &[f64],
        iterations: f64,
        residual: f64,
        converged: bool,
    ) -> Validation {
        let true_res = wilson::true_residual(&self.lat, &self.u, x, &self.inputs[0], self.kappa);
        let bound = 10.0 * self.tol;
        let conv = Validation {
            max_error: residual,
            tolerance: self.tol,
            passed: converged && residual <= self.tol,
            detail: format!(
                "CG: |r|/|r0| = {residual:.3e} after {iterations} iterations (tol {:.1e}{})",
                self.tol,
                if converged {
                    String::new()
                } else {
                    format!(", not converged within {}", self.iterations)
                }
            ),
        };
        conv.and(Validation {
            max_error: true_res,
            tolerance: bound,
            passed: true_res <= bound,
            detail: format!("|M x - b| / |b| = {true_res:.3e} in f64 (bound {bound:.1e})"),
        })
    }
}

/// The same kernels on the CPU in f64.
struct MilcCpu {
    setup: Setup,
    result: Vec<Vec<f64>>,
    solve: Option<wilson::Solve>,
}

impl MilcCpu {
    fn new(case: &Case) -> Result<MilcCpu> {
        Ok(MilcCpu {
            setup: Setup::new(case, Precision::F64)?,
            result: Vec::new(),
            solve: None,
        })
    }
}

impl CpuKernel for MilcCpu {
    fn run(&mut self) {
        let s = &self.setup;
        if s.kernel == "cg" {
            let sol = wilson::cg(&s.lat, &s.u, &s.inputs[0], s.kappa, s.tol, s.iterations);
            self.solve = Some(sol);
        } else {
            self.result = s.expected();
        }
    }

    fn validate(&self) -> Validation {
        match &self.solve {
            Some(sol) => self.setup.check_solve(
                &sol.x,
                sol.iterations as f64,
                sol.residual,
                sol.residual <= self.setup.tol,
            ),
            None if self.result.is_empty() => Validation::fail("not run".into()),
            None => self.setup.check_fields(&self.result, Precision::F64),
        }
    }

    fn model(&self) -> Model {
        let s = &self.setup;
        case_model(
            &s.kernel,
            s.fused,
            s.lat.sites() as u64,
            s.iterations,
            Precision::F64,
        )
    }
}

/// Work and traffic of one split kernel over the lattice.
fn site_model(entry: &str, sites: u64, p: Precision) -> Model {
    let (reals, flops) = per_site(entry);
    Model {
        flops: (flops * sites) as f64,
        bytes: (reals * sites * p.real_bytes()) as f64,
    }
}

/// Work and traffic of one run of `kernel`: its dispatches' per-site
/// figures (a Dslash is its five split kernels, or `dslash_fused` in a
/// solve with the `fused` operator; a solve is one Dslash, two
/// multiply-adds, a zero fill and a dot to start, then per iteration two
/// Dslash, five multiply-adds and two dots). The second pass of a dot and
/// CG's scalar updates touch a few reals and are left out.
fn case_model(kernel: &str, fused: bool, sites: u64, iterations: u64, p: Precision) -> Model {
    let times = |entry: &str, n: u64| {
        let m = site_model(entry, sites, p);
        Model {
            flops: m.flops * n as f64,
            bytes: m.bytes * n as f64,
        }
    };
    let split = |n: u64| {
        ["extract", "extract_mul", "shift", "insert_mul", "insert"]
            .iter()
            .map(|e| times(e, n))
            .fold(Model::default(), add_models)
    };
    let dslash = |n: u64| match fused {
        true => times("dslash_fused", n),
        false => split(n),
    };
    match kernel {
        "dslash" => split(1),
        "cg" => [
            dslash(1 + 2 * iterations),
            times("axpy", 2 + 5 * iterations),
            times("zero", 1),
            times("dot", 1 + 2 * iterations),
        ]
        .into_iter()
        .fold(Model::default(), add_models),
        k => times(&k.replace('-', "_"), 1),
    }
}

fn add_models(a: Model, b: Model) -> Model {
    Model {
        flops: a.flops + b.flops,
        bytes: a.bytes + b.bytes,
    }
}

/// The figures a solve reports.
fn solve_metrics(iterations: f64, residual: f64, true_residual: f64) -> BTreeMap<String, f64> {
    BTreeMap::from([
        ("cg_iterations".to_string(), iterations),
        ("cg_residual".to_string(), residual),
        ("true_residual".to_string(), true_residual),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(kernel: &str) -> Case {
        Case::new("milc", kernel, "soa", Precision::F64)
            .param("layout", "soa")
            .param("vvl", 1)
            .param("wg", 64)
            .param("L", 3)
            .param("T", 4)
            .param("sites", 108)
            .param("kappa", 0.12)
            .param("tol", 1e-12)
            .param("iterations", 200)
            .param("operator", "split")
            .param("sign", "minus")
    }

    #[test]
    fn cpu_reference_validates_every_kernel() {
        for kernel in KERNELS {
            let mut k = MilcCpu::new(&case(kernel)).expect("cpu");
            k.run();
            let v = k.validate();
            assert!(v.passed, "{kernel}: {}", v.detail);
            assert!(k.model().bytes > 0.0, "{kernel}");
        }
    }

    #[test]
    fn a_wrong_or_unwritten_value_fails() {
        let s = Setup::new(&case("insert"), Precision::F64).expect("setup");
        let mut got = s.expected();
        assert!(s.check_fields(&got, Precision::F64).passed);
        got[0][5] = f64::NAN;
        assert!(!s.check_fields(&got, Precision::F64).passed);
        got[0][5] = s.expected()[0][5] + 1e-9;
        assert!(!s.check_fields(&got, Precision::F64).passed);
        let cg = Setup::new(&case("cg"), Precision::F64).expect("setup");
        let zero = vec![0.0; cg.inputs[0].len()];
        assert!(!cg.check_solve(&zero, 5.0, 1e-13, true).passed);
    }

    #[test]
    fn model_of_dslash_is_the_sum_of_its_split() {
        let m = case_model("dslash", false, 10, 1, Precision::F32);
        // 648 reals and 1344 FLOPs per site (MILC counts 1320); the fused kernel's
        // minimum traffic is 120 reals.
        assert_eq!(m.bytes, 648.0 * 4.0 * 10.0);
        assert_eq!(m.flops, 1344.0 * 10.0);
        let f = case_model("dslash-fused", false, 10, 1, Precision::F32);
        assert_eq!((f.bytes, f.flops), (120.0 * 4.0 * 10.0, m.flops));
        let (split, fused) = (
            case_model("cg", false, 10, 3, Precision::F32),
            case_model("cg", true, 10, 3, Precision::F32),
        );
        // 7 operator applications, 17 multiply-adds, a zero fill and 7 dots.
        let rest = (17.0 * 72.0 + 24.0 + 7.0 * 48.0) * 40.0;
        assert_eq!(split.bytes, 7.0 * m.bytes + rest);
        assert_eq!(fused.bytes, 7.0 * f.bytes + rest);
    }

    #[test]
    fn sizes_kappa_and_layouts_are_checked() {
        let caps = Capabilities {
            max_workgroup_invocations: 256,
            ..Default::default()
        };
        let ok = Request::default()
            .set("size", "small")
            .set("kernel", "dslash,cg")
            .set("layout", "aos,aosoa-4");
        let cases = Milc.cases(&ok, &caps).expect("cases");
        assert_eq!(cases.len(), 3 * 2 * 2);
        let both = ok.clone().set("operator", "split,fused");
        // Only the solve is swept over the operator, only dslash over the sign.
        assert_eq!(Milc.cases(&both, &caps).expect("cases").len(), 3 * 3 * 2);
        let signs = both.set("sign", "plus,minus");
        let cases = Milc.cases(&signs, &caps).expect("cases");
        assert_eq!(cases.len(), 3 * 4 * 2);
        assert!(cases.iter().any(|c| c.variant == "aos/vvl1/wg128/minus"));
        assert_eq!(cases[0].text("sites"), "512");
        assert_eq!(parse_lattice("6x12").ok(), Some((6, 12)));
        assert_eq!(parse_lattice("5").ok(), Some((5, 10)));
        for (k, v) in [
            ("size", "1x8"),
            ("size", "9223372036854775807"),
            ("size", "100000"),
            ("size", "big"),
            ("kappa", "0.2"),
            ("kappa", "x"),
            ("tol", "2"),
            ("wg", "96"),
            ("layout", "aosoa-3"),
        ] {
            assert!(
                Milc.cases(&Request::default().set(k, v), &caps).is_err(),
                "{k}={v}"
            );
        }
    }
}
