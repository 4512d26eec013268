//! The D3Q19 velocity set and the f64 host reference of one lattice
//! Boltzmann step: BGK collision with a body force (velocity shift) and
//! pull propagation on a periodic box. Fields are in logical order:
//! `f[site * 19 + q]`, site = x + nx (y + ny z).

use std::f64::consts::PI;

use crate::apps::common::CompensatedSum;
use crate::parallel;

/// Velocities per site.
pub const NVEL: usize = 19;

/// Lattice velocities: rest, the 6 faces, the 12 edges.
pub const C: [[i32; 3]; NVEL] = [
    [0, 0, 0],
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
    [1, 1, 0],
    [-1, -1, 0],
    [1, -1, 0],
    [-1, 1, 0],
    [1, 0, 1],
    [-1, 0, -1],
    [1, 0, -1],
    [-1, 0, 1],
    [0, 1, 1],
    [0, -1, -1],
    [0, 1, -1],
    [0, -1, 1],
];

/// Weight class of each velocity (index into [`WEIGHTS`]).
pub fn weight_class(q: usize) -> usize {
    match q {
        0 => 0,
        1..=6 => 1,
        _ => 2,
    }
}

/// The three D3Q19 weights: 1/3 (rest), 1/18 (faces), 1/36 (edges).
pub const WEIGHTS: [f64; 3] = [1.0 / 3.0, 1.0 / 18.0, 1.0 / 36.0];

/// Box extents and the relaxation time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Box3 {
    /// Sites along x, y, z.
    pub n: [usize; 3],
    /// BGK relaxation time (viscosity (tau - 1/2) / 3).
    pub tau: f64,
    /// Body force per unit volume.
    pub force: [f64; 3],
}

impl Box3 {
    /// Lattice sites.
    pub fn sites(&self) -> usize {
        self.n[0] * self.n[1] * self.n[2]
    }

    /// Kinematic viscosity of the BGK model.
    pub fn viscosity(&self) -> f64 {
        (self.tau - 0.5) / 3.0
    }

    /// The site a pull propagation reads velocity `q` from: `x - c_q`, periodic.
    pub fn upwind(&self, site: usize, q: usize) -> usize {
        let [nx, ny, nz] = self.n;
        let (x, y, z) = (site % nx, (site / nx) % ny, site / (nx * ny));
        let w = |v: usize, c: i32, n: usize| (v as i64 - c as i64).rem_euclid(n as i64) as usize;
        w(x, C[q][0], nx) + nx * (w(y, C[q][1], ny) + ny * w(z, C[q][2], nz))
    }
}

/// Equilibrium distributions for density `rho` and velocity `u`.
pub fn equilibrium(rho: f64, u: [f64; 3]) -> [f64; NVEL] {
    let usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    std::array::from_fn(|q| {
        let cu = C[q][0] as f64 * u[0] + C[q][1] as f64 * u[1] + C[q][2] as f64 * u[2];
        WEIGHTS[weight_class(q)] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq)
    })
}

/// Density and momentum of one site's distributions.
pub fn moments(f: &[f64]) -> (f64, [f64; 3]) {
    let mut rho = 0.0;
    let mut j = [0.0; 3];
    for (q, &v) in f.iter().enumerate().take(NVEL) {
        rho += v;
        for d in 0..3 {
            j[d] += C[q][d] as f64 * v;
        }
    }
    (rho, j)
}

/// BGK collision of one site: relax toward the equilibrium at the velocity
/// shifted by tau F / rho (the force adds F to the momentum per step).
pub fn collide_site(b: &Box3, f: &[f64]) -> [f64; NVEL] {
    let (rho, j) = moments(f);
    let u: [f64; 3] = std::array::from_fn(|d| (j[d] + b.tau * b.force[d]) / rho);
    let feq = equilibrium(rho, u);
    std::array::from_fn(|q| f[q] + (feq[q] - f[q]) / b.tau)
}

/// Collision at every site.
pub fn collide(b: &Box3, f: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; f.len()];
    parallel::for_chunks(&mut out, NVEL, |first, chunk| {
        let site = first / NVEL;
        chunk.copy_from_slice(&collide_site(b, &f[site * NVEL..(site + 1) * NVEL]));
    });
    out
}

/// Pull propagation: every velocity moves one link along itself.
pub fn propagate(b: &Box3, f: &[f64]) -> Vec<f64> {
    parallel::par_map(f.len(), |i| {
        let (site, q) = (i / NVEL, i % NVEL);
        f[b.upwind(site, q) * NVEL + q]
    })
}

/// Propagation then collision at the arrival site (the fused kernel).
pub fn fused(b: &Box3, f: &[f64]) -> Vec<f64> {
    collide(b, &propagate(b, f))
}

/// Sites per block of [`totals`]: a fixed block size (not one per thread)
/// keeps the order of the additions, so the totals are the same on any
/// number of cores.
const TOTALS_BLOCK: usize = 4096;

/// Total mass and momentum of a field: compensated sums of fixed blocks of
/// sites, in parallel, then of the blocks' sums in order. (A field at the
/// default size is 40 million reals, and the check takes the totals of
/// the start and the result.)
pub fn totals(f: &[f64]) -> (f64, [f64; 3]) {
    totals_by(f.len() / NVEL, |site, q| f[site * NVEL + q])
}

/// [`totals`] of a field of `sites` sites whose velocity `q` at `site` is
/// `value(site, q)` (a field read straight from the GPU's buffers, in the
/// same order of additions).
pub fn totals_by(
    sites: usize,
    value: impl Fn(usize, usize) -> f64 + Sync + Send,
) -> (f64, [f64; 3]) {
    let parts = crate::parallel::collect(sites.div_ceil(TOTALS_BLOCK), |k| {
        let mut sums = [CompensatedSum::default(); 4];
        for site in k * TOTALS_BLOCK..((k + 1) * TOTALS_BLOCK).min(sites) {
            for (q, c) in C.iter().enumerate() {
                let v = value(site, q);
                sums[0].add(v);
                for d in 0..3 {
                    if c[d] != 0 {
                        sums[d + 1].add(c[d] as f64 * v);
                    }
                }
            }
        }
        sums.map(CompensatedSum::value)
    });
    let mut total = [CompensatedSum::default(); 4];
    for part in &parts {
        for (t, v) in total.iter_mut().zip(part) {
            t.add(*v);
        }
    }
    let [mass, x, y, z] = total.map(CompensatedSum::value);
    (mass, [x, y, z])
}

/// Equilibrium field of a shear wave u_x(y) = amplitude sin(2 pi y / ny) at rho = 1.
pub fn shear_wave(b: &Box3, amplitude: f64) -> Vec<f64> {
    let [nx, ny, _] = b.n;
    let mut f = Vec::with_capacity(b.sites() * NVEL);
    for site in 0..b.sites() {
        let y = (site / nx) % ny;
        let ux = amplitude * (2.0 * PI * y as f64 / ny as f64).sin();
        f.extend_from_slice(&equilibrium(1.0, [ux, 0.0, 0.0]));
    }
    f
}

/// Amplitude of the sin(2 pi y / ny) mode of u_x.
pub fn shear_amplitude(b: &Box3, f: &[f64]) -> f64 {
    let [nx, ny, _] = b.n;
    let mut s = 0.0;
    for (site, dist) in f.chunks_exact(NVEL).enumerate() {
        let y = (site / nx) % ny;
        let (rho, j) = moments(dist);
        s += j[0] / rho * (2.0 * PI * y as f64 / ny as f64).sin();
    }
    2.0 * s / b.sites() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Box3 {
        Box3 {
            n: [4, 5, 3],
            tau: 0.8,
            force: [1e-4, -2e-4, 3e-5],
        }
    }

    #[test]
    fn weights_and_velocities_satisfy_the_lattice_isotropy() {
        let mut w = 0.0;
        let mut second = [[0.0; 3]; 3];
        for q in 0..NVEL {
            let wq = WEIGHTS[weight_class(q)];
            w += wq;
            for a in 0..3 {
                for b in 0..3 {
                    second[a][b] += wq * (C[q][a] * C[q][b]) as f64;
                }
            }
            // Each velocity's opposite is in the set.
            assert!(C.iter().any(|c| (0..3).all(|d| c[d] == -C[q][d])));
        }
        assert!((w - 1.0).abs() < 1e-15);
        for (a, row) in second.iter().enumerate() {
            for (b, v) in row.iter().enumerate() {
                let want = if a == b { 1.0 / 3.0 } else { 0.0 };
                assert!((v - want).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn collision_conserves_mass_and_adds_the_force_to_the_momentum() {
        let b = small();
        let f0: Vec<f64> = (0..b.sites())
            .flat_map(|s| equilibrium(1.0 + 0.01 * s as f64, [0.02, -0.01, 0.005]))
            .map(|v| v * 1.01)
            .collect();
        let (m0, j0) = totals(&f0);
        let (m1, j1) = totals(&collide(&b, &f0));
        assert!((m1 - m0).abs() < 1e-12 * m0);
        for d in 0..3 {
            let want = j0[d] + b.force[d] * b.sites() as f64;
            assert!((j1[d] - want).abs() < 1e-12, "{d}: {} vs {want}", j1[d]);
        }
        let (m2, j2) = totals(&propagate(&b, &f0));
        assert!((m2 - m0).abs() < 1e-12 * m0);
        for d in 0..3 {
            assert!((j2[d] - j0[d]).abs() < 1e-12);
        }
    }

    #[test]
    fn upwind_wraps_periodically() {
        let b = small();
        // Site (0, 0, 0) pulls +x from (3, 0, 0) and -z from (0, 0, 1).
        assert_eq!(b.upwind(0, 1), 3);
        assert_eq!(b.upwind(0, 6), 20);
    }

    #[test]
    fn shear_wave_decays_at_the_bgk_viscosity() {
        let b = Box3 {
            n: [4, 32, 4],
            tau: 0.8,
            force: [0.0; 3],
        };
        let mut f = shear_wave(&b, 0.01);
        let a0 = shear_amplitude(&b, &f);
        let steps = 200;
        for _ in 0..steps {
            f = fused(&b, &f);
        }
        let k = 2.0 * PI / 32.0;
        let rate = -(shear_amplitude(&b, &f) / a0).ln() / steps as f64;
        let want = b.viscosity() * k * k;
        assert!((rate / want - 1.0).abs() < 0.01, "rate {rate} vs {want}");
    }
}
