//! The host side of milc: what a case sets up (lattice, random inputs,
//! solve parameters), the f64 reference of every kernel, the checks, and
//! the kernels on the CPU reference platform.

use std::sync::{Arc, OnceLock};

use super::links::Reconstruct;
use super::wilson::{self, HALF, Lattice, SPINOR};
use super::{KernelName, Operator, Params, Sign, case_model};
use crate::app::{CpuKernel, Model, Validation};
use crate::apps::common::{fresh_rng, quantize, random_reals};
use crate::precision::Precision;

/// Element-wise tolerance of the split kernels and of one Dslash, relative
/// with a floor of 1 (entries are of order 1: random spinors in [-1, 1),
/// SU(3) links).
pub(super) fn tolerance(kernel: KernelName, p: Precision) -> f64 {
    if kernel == KernelName::Shift {
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

/// Random inputs of one lattice in one precision, each drawn when a kernel
/// first asks for it and shared by every kernel, layout and workgroup size
/// of a request: drawn per case, the links (8 million SU(3) matrices at the
/// default size) were most of a case's preparation.
pub(super) struct Inputs {
    lat: Lattice,
    p: Precision,
    /// Fixed seed (every rank of a split lattice draws the same fields);
    /// `None` draws from the clock.
    seed: Option<u64>,
    links: OnceLock<Arc<Vec<f64>>>,
    /// Spinors a and b, then half spinors a and b.
    fields: [OnceLock<Arc<Vec<f64>>>; 4],
}

/// Indices of [`Inputs`]' fields.
const SPINOR_A: usize = 0;
const SPINOR_B: usize = 1;
const HALF_A: usize = 2;
const HALF_B: usize = 3;

impl Inputs {
    /// Nothing drawn yet for lattice `lat` in precision `p`.
    pub(super) fn new(lat: Lattice, p: Precision) -> Inputs {
        Inputs::seeded(lat, p, None)
    }

    /// As [`Inputs::new`], drawn from `seed` when it is set.
    pub(super) fn seeded(lat: Lattice, p: Precision, seed: Option<u64>) -> Inputs {
        Inputs {
            lat,
            p,
            seed,
            links: OnceLock::new(),
            fields: Default::default(),
        }
    }

    /// The generator of draw `i` (0: links, then the fields).
    fn rng(&self, i: u64) -> rand_pcg::Pcg64 {
        match self.seed {
            Some(seed) => rand::SeedableRng::seed_from_u64(seed.wrapping_add(i)),
            None => fresh_rng(),
        }
    }

    /// The links, random SU(3) rounded to the precision.
    pub(super) fn links(&self) -> Arc<Vec<f64>> {
        let draw = || {
            quantize(
                self.p,
                &wilson::random_links(&mut self.rng(0), self.lat.sites()),
            )
        };
        self.links.get_or_init(|| Arc::new(draw())).clone()
    }

    /// Field `i`, uniform in [-1, 1) and rounded to the precision.
    fn field(&self, i: usize) -> Arc<Vec<f64>> {
        let reals = if i < HALF_A { SPINOR } else { HALF };
        let n = self.lat.sites() * reals;
        let draw = || random_reals(&mut self.rng(1 + i as u64), n, -1.0, 1.0, self.p);
        self.fields[i].get_or_init(|| Arc::new(draw())).clone()
    }
}

/// The lattice of `params`.
pub(super) fn lattice(params: &Params) -> Lattice {
    Lattice {
        l: params.l as usize,
        t: params.t as usize,
    }
}

/// What one case sets up: the lattice, its random inputs (rounded to the
/// case's precision) and the parameters of the solve.
#[derive(Clone)]
pub(super) struct Setup {
    pub(super) kernel: KernelName,
    /// Whether a solve applies M in one pass (`m_fused`).
    pub(super) fused: bool,
    /// 1 for D, -1 for D^dagger.
    pub(super) isign: f64,
    pub(super) lat: Lattice,
    pub(super) kappa: f64,
    pub(super) tol: f64,
    pub(super) iterations: u64,
    /// Links (empty for kernels that do not read them).
    pub(super) u: Arc<Vec<f64>>,
    /// The kernel's input fields, logical order, in binding order.
    pub(super) inputs: Vec<Arc<Vec<f64>>>,
}

impl Setup {
    /// The lattice of `params` and fresh inputs, rounded to precision `p`.
    pub(super) fn new(params: &Params, p: Precision) -> Setup {
        Setup::with(params, &Inputs::new(lattice(params), p))
    }

    /// The case of `params` on the shared `inputs` (of its lattice).
    pub(super) fn with(params: &Params, inputs: &Inputs) -> Setup {
        let fields: &[usize] = match params.kernel {
            KernelName::Extract
            | KernelName::ExtractMul
            | KernelName::Dslash
            | KernelName::DslashFused
            | KernelName::Cg => &[SPINOR_A],
            KernelName::Shift => &[HALF_A, HALF_B],
            KernelName::InsertMul => &[HALF_A],
            KernelName::Insert => &[HALF_A, SPINOR_A],
            KernelName::Axpy | KernelName::Dot => &[SPINOR_A, SPINOR_B],
        };
        Setup {
            kernel: params.kernel,
            fused: params.operator == Operator::Fused,
            isign: match params.sign {
                Sign::Minus => -1.0,
                Sign::Plus => 1.0,
            },
            lat: inputs.lat,
            kappa: params.kappa,
            tol: params.tol,
            iterations: params.iterations,
            u: if params.kernel.reads_links() {
                inputs.links()
            } else {
                Arc::default()
            },
            inputs: fields.iter().map(|&i| inputs.field(i)).collect(),
        }
    }

    /// The f64 reference of the kernel's outputs (D itself for `dslash`,
    /// from the definition, not the split); `dot` gives one value; `cg` none.
    pub(super) fn expected(&self) -> Vec<Vec<f64>> {
        let (lat, u, x, s) = (&self.lat, &self.u, &self.inputs, self.isign);
        match self.kernel {
            KernelName::Extract => vec![wilson::extract(lat, &x[0], s)],
            KernelName::ExtractMul => vec![wilson::extract_mul(lat, u, &x[0], s)],
            KernelName::Shift => {
                let (gf, gb) = wilson::shift(lat, &x[0], &x[1]);
                vec![gf, gb]
            }
            KernelName::InsertMul => vec![wilson::insert_mul(lat, u, &x[0], s)],
            KernelName::Insert => vec![wilson::insert(lat, &x[0], &x[1], s)],
            KernelName::Axpy => vec![wilson::axpy(-self.kappa, &x[0], &x[1])],
            KernelName::Dot => vec![vec![wilson::dot(&x[0], &x[1])]],
            KernelName::Dslash | KernelName::DslashFused => {
                vec![wilson::dslash(lat, u, &x[0], s)]
            }
            KernelName::Cg => Vec::new(),
        }
    }

    /// Checks field outputs (logical order) against [`Setup::expected`].
    pub(super) fn check_fields(&self, got: &[Vec<f64>], p: Precision) -> Validation {
        let want = self.expected();
        if self.kernel == KernelName::Dot {
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
        let tol = tolerance(self.kernel, p);
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
    pub(super) fn check_solve(
        &self,
        x: &[f64],
        iterations: f64,
        residual: f64,
        converged: bool,
    ) -> Validation {
        self.judge_solve(self.true_residual(x), iterations, residual, converged)
    }

    /// `|M x - b| / |b|` of a solution `x`, in f64.
    pub(super) fn true_residual(&self, x: &[f64]) -> f64 {
        wilson::true_residual(&self.lat, &self.u, x, &self.inputs[0], self.kappa)
    }

    /// [`Setup::check_solve`] given the solution's true residual.
    pub(super) fn judge_solve(
        &self,
        true_res: f64,
        iterations: f64,
        residual: f64,
        converged: bool,
    ) -> Validation {
        let bound = 10.0 * self.tol;
        let conv = Validation {
            reference: false,
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
            reference: false,
            max_error: true_res,
            tolerance: bound,
            passed: true_res <= bound,
            detail: format!("|M x - b| / |b| = {true_res:.3e} in f64 (bound {bound:.1e})"),
        })
    }
}

/// The same kernels on the CPU in f64.
pub(super) struct MilcCpu {
    setup: Setup,
    result: Vec<Vec<f64>>,
    solve: Option<wilson::Solve>,
}

impl MilcCpu {
    /// The setup of `params` in f64.
    pub(super) fn new(params: &Params) -> MilcCpu {
        MilcCpu {
            setup: Setup::new(params, Precision::F64),
            result: Vec::new(),
            solve: None,
        }
    }
}

impl CpuKernel for MilcCpu {
    fn run(&mut self) {
        let s = &self.setup;
        if s.kernel == KernelName::Cg {
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
        // The reference reads every link whole.
        case_model(
            s.kernel,
            s.fused,
            Reconstruct::Full,
            s.lat.sites() as u64,
            s.iterations,
            Precision::F64,
        )
    }
}
