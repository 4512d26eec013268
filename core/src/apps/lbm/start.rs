//! A lattice's start: its box and initial field (random near equilibrium,
//! or a shear wave), drawn once per request and shared by every kernel and
//! variant of it, with the first step's stages made on first use.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::d3q19::{self, Box3, NVEL};
use super::{Init, KernelName, Params};
use crate::apps::common::{quantize, random_reals};
use crate::precision::Precision;

/// BGK relaxation time (viscosity 0.1 in lattice units).
const TAU: f64 = 0.8;

/// Body force of the random initial condition (the shear wave runs force-free).
const FORCE: [f64; 3] = [1e-5, -5e-6, 2.5e-6];

/// Amplitude of the shear wave's u_x.
const SHEAR_AMPLITUDE: f64 = 0.01;

/// A box and its initial field: what every kernel of a request on the same
/// box, start and precision shares (one draw, one set of totals).
pub(super) struct Start {
    /// Tells this draw from any other of the process, so what is made from
    /// it (its encodings) is never taken for another draw's.
    pub(super) id: u64,
    pub(super) lattice: Box3,
    pub(super) shear: bool,
    /// Initial distributions, logical order, rounded to the case's precision.
    pub(super) f0: Vec<f64>,
    /// Mass and momentum of `f0` (every check compares with them).
    pub(super) f0_totals: (f64, [f64; 3]),
    /// One collision and one propagation of `f0`, made on first use: the
    /// first step of every kernel is one of them or starts from one.
    collided: OnceLock<Arc<Vec<f64>>>,
    propagated: OnceLock<Arc<Vec<f64>>>,
}

impl Start {
    /// The start of `params`' init on a box of extents `n` (a scale-out
    /// run's global lattice), its random field drawn from `rng`.
    pub(super) fn on(
        n: [usize; 3],
        params: &Params,
        p: Precision,
        rng: &mut rand_pcg::Pcg64,
    ) -> Start {
        let shear = params.init == Init::Shear;
        let lattice = Box3 {
            n,
            tau: TAU,
            force: if shear { [0.0; 3] } else { FORCE },
        };
        let f0 = if shear {
            quantize(p, &d3q19::shear_wave(&lattice, SHEAR_AMPLITUDE))
        } else {
            random_field(&lattice, p, rng)
        };
        static DRAWS: AtomicU64 = AtomicU64::new(0);
        Start {
            id: DRAWS.fetch_add(1, Ordering::Relaxed),
            lattice,
            shear,
            f0_totals: d3q19::totals(&f0),
            f0,
            collided: OnceLock::new(),
            propagated: OnceLock::new(),
        }
    }

    /// One step of `kernel` from `f0`, in f64, through the shared stages.
    pub(super) fn first_step(&self, kernel: KernelName) -> Arc<Vec<f64>> {
        let b = &self.lattice;
        let collided = || {
            self.collided
                .get_or_init(|| Arc::new(d3q19::collide(b, &self.f0)))
                .clone()
        };
        let propagated = || {
            self.propagated
                .get_or_init(|| Arc::new(d3q19::propagate(b, &self.f0)))
                .clone()
        };
        match kernel {
            KernelName::Collide => collided(),
            KernelName::Propagate => propagated(),
            KernelName::Fused => Arc::new(d3q19::collide(b, &propagated())),
            KernelName::Step => Arc::new(d3q19::propagate(b, &collided())),
        }
    }
}

/// Distributions near equilibrium at random density (1 +- 5%) and velocity
/// (|u_d| < 0.05), with a small random non-equilibrium part.
fn random_field(b: &Box3, p: Precision, rng: &mut rand_pcg::Pcg64) -> Vec<f64> {
    let n = b.sites();
    let rho = random_reals(rng, n, 0.95, 1.05, Precision::F64);
    let u = random_reals(rng, 3 * n, -0.05, 0.05, Precision::F64);
    let noise = random_reals(rng, n * NVEL, -1e-3, 1e-3, Precision::F64);
    let mut f = vec![0.0; n * NVEL];
    crate::parallel::for_chunks(&mut f, NVEL, |first, site_f| {
        let s = first / NVEL;
        let feq = d3q19::equilibrium(rho[s], [u[3 * s], u[3 * s + 1], u[3 * s + 2]]);
        for (q, v) in site_f.iter_mut().enumerate() {
            *v = p.round(feq[q] * (1.0 + noise[first + q]));
        }
    });
    f
}
