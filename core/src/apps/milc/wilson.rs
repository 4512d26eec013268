//! The f64 host reference: lattice geometry, the gamma matrices, random
//! SU(3) links, the Wilson-Dirac operator written directly from its
//! definition, the split kernels written from MILC's `dslash_w_site`, and
//! conjugate gradient on the normal equations.
//!
//! Fields are flat `f64` vectors in logical order, complex numbers as
//! (re, im) pairs, site = x + L (y + L (z + L t)):
//! - spinor: `site * 24 + (spin * 3 + colour) * 2 + reim`;
//! - links: `site * 72 + mu * 18 + (row * 3 + col) * 2 + reim`, the link
//!   `U_mu(x)` from `x` to `x + mu`;
//! - half spinors, one per direction: `site * 48 + mu * 12 + (spin * 3 + colour) * 2 + reim`.
//!
//! The operator is `M = 1 - kappa D` with
//! `D psi(x) = sum_mu [(1 - gamma_mu) U_mu(x) psi(x + mu) + (1 + gamma_mu) U_mu^dagger(x - mu) psi(x - mu)]`
//! on a periodic lattice, gamma matrices in the DeGrand-Rossi basis
//! ([`GAMMA`]). `D^dagger` is the same sum with `gamma_mu` negated, which
//! is how the split kernels apply it (their `isign`, as in MILC).

use rand::{Rng, SeedableRng};

use crate::parallel;

/// Reals per site of a spinor field (4 spins x 3 colours, complex).
pub const SPINOR: usize = 24;
/// Reals per site of a half-spinor field (4 directions x 2 spins x 3 colours, complex).
pub const HALF: usize = 48;
/// Reals per site of the gauge field (4 directions x 3 x 3 complex).
pub const LINKS: usize = 72;

/// A complex number in f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct C64 {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl C64 {
    /// `re + i im`.
    pub const fn new(re: f64, im: f64) -> C64 {
        C64 { re, im }
    }

    /// Complex conjugate.
    pub fn conj(self) -> C64 {
        C64::new(self.re, -self.im)
    }

    /// `|z|^2`.
    pub fn norm2(self) -> f64 {
        self.re * self.re + self.im * self.im
    }

    fn scale(self, s: f64) -> C64 {
        C64::new(self.re * s, self.im * s)
    }
}

impl std::ops::Add for C64 {
    type Output = C64;
    fn add(self, o: C64) -> C64 {
        C64::new(self.re + o.re, self.im + o.im)
    }
}

impl std::ops::Sub for C64 {
    type Output = C64;
    fn sub(self, o: C64) -> C64 {
        C64::new(self.re - o.re, self.im - o.im)
    }
}

impl std::ops::Mul for C64 {
    type Output = C64;
    fn mul(self, o: C64) -> C64 {
        C64::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// A power of i: the only non-zero entries of the gamma matrices here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// 1
    One,
    /// i
    I,
    /// -1
    MinusOne,
    /// -i
    MinusI,
}

impl Phase {
    /// The phase as a complex number.
    pub fn value(self) -> C64 {
        match self {
            Phase::One => C64::new(1.0, 0.0),
            Phase::I => C64::new(0.0, 1.0),
            Phase::MinusOne => C64::new(-1.0, 0.0),
            Phase::MinusI => C64::new(0.0, -1.0),
        }
    }
}

impl std::ops::Neg for Phase {
    type Output = Phase;
    fn neg(self) -> Phase {
        match self {
            Phase::One => Phase::MinusOne,
            Phase::I => Phase::MinusI,
            Phase::MinusOne => Phase::One,
            Phase::MinusI => Phase::I,
        }
    }
}

/// `gamma_mu` (mu = x, y, z, t) in the DeGrand-Rossi basis MILC and Chroma
/// use: row `s` has one non-zero entry, `GAMMA[mu][s] = (column, phase)`.
/// Every gamma_mu couples spins 0, 1 only with spins 2, 3 (the basis is
/// chiral), so `(1 +- gamma_mu) psi` is fixed by its upper two spins: the
/// half spinor the split kernels move.
pub const GAMMA: [[(usize, Phase); 4]; 4] = [
    [
        (3, Phase::I),
        (2, Phase::I),
        (1, Phase::MinusI),
        (0, Phase::MinusI),
    ],
    [
        (3, Phase::MinusOne),
        (2, Phase::One),
        (1, Phase::One),
        (0, Phase::MinusOne),
    ],
    [
        (2, Phase::I),
        (3, Phase::MinusI),
        (0, Phase::MinusI),
        (1, Phase::I),
    ],
    [
        (2, Phase::One),
        (3, Phase::One),
        (0, Phase::One),
        (1, Phase::One),
    ],
];

/// `gamma_mu` as a dense 4 x 4 matrix (the reference multiplies with it
/// rather than using the permutation structure the kernels exploit).
pub fn gamma_dense(mu: usize) -> [[C64; 4]; 4] {
    let mut g = [[C64::default(); 4]; 4];
    for (s, &(col, ph)) in GAMMA[mu].iter().enumerate() {
        g[s][col] = ph.value();
    }
    g
}

/// A colour vector.
pub type Vec3 = [C64; 3];
/// A colour matrix.
pub type Mat3 = [[C64; 3]; 3];
/// A spinor at one site (4 spins).
pub type Spinor = [Vec3; 4];
/// A half spinor (the upper two spins of a projected spinor).
pub type Half = [Vec3; 2];

/// An L^3 x T periodic lattice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lattice {
    /// Spatial extent.
    pub l: usize,
    /// Time extent.
    pub t: usize,
}

impl Lattice {
    /// Lattice sites.
    pub fn sites(&self) -> usize {
        self.l * self.l * self.l * self.t
    }

    /// The neighbouring site one step forward (or backward) along `mu`, periodic.
    pub fn neighbour(&self, site: usize, mu: usize, forward: bool) -> usize {
        let stride = self.l.pow(mu as u32);
        let extent = if mu == 3 { self.t } else { self.l };
        let c = (site / stride) % extent;
        let base = site - c * stride;
        let c = if forward {
            (c + 1) % extent
        } else {
            (c + extent - 1) % extent
        };
        base + c * stride
    }
}

fn get(f: &[f64], complex_index: usize) -> C64 {
    C64::new(f[2 * complex_index], f[2 * complex_index + 1])
}

fn put(out: &mut [f64], complex_index: usize, z: C64) {
    out[2 * complex_index] = z.re;
    out[2 * complex_index + 1] = z.im;
}

fn spinor_at(psi: &[f64], site: usize) -> Spinor {
    std::array::from_fn(|s| std::array::from_fn(|c| get(psi, site * 12 + s * 3 + c)))
}

fn link_at(u: &[f64], site: usize, mu: usize) -> Mat3 {
    std::array::from_fn(|r| std::array::from_fn(|c| get(u, site * 36 + mu * 9 + r * 3 + c)))
}

fn half_at(h: &[f64], site: usize, mu: usize) -> Half {
    std::array::from_fn(|s| std::array::from_fn(|c| get(h, site * 24 + mu * 6 + s * 3 + c)))
}

fn mat_vec(m: &Mat3, v: &Vec3) -> Vec3 {
    std::array::from_fn(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}

fn adj_mat_vec(m: &Mat3, v: &Vec3) -> Vec3 {
    std::array::from_fn(|r| m[0][r].conj() * v[0] + m[1][r].conj() * v[1] + m[2][r].conj() * v[2])
}

fn add3(a: &Vec3, b: &Vec3) -> Vec3 {
    std::array::from_fn(|c| a[c] + b[c])
}

/// `(1 + sigma gamma_mu) psi`, with the dense gamma matrix.
fn one_plus(sigma: f64, mu: usize, psi: &Spinor) -> Spinor {
    let g = gamma_dense(mu);
    std::array::from_fn(|r| {
        std::array::from_fn(|c| {
            let mut z = psi[r][c];
            for (k, row) in psi.iter().enumerate() {
                z = z + (g[r][k] * row[c]).scale(sigma);
            }
            z
        })
    })
}

/// The spinor `(1 + sigma gamma_mu) psi` rebuilt from its upper two spins
/// `h`: since `sigma gamma_mu` leaves it unchanged, its lower spins are
/// `sigma gamma_mu` applied to the upper ones.
fn reconstruct(sigma: f64, mu: usize, h: &Half) -> Spinor {
    let g = gamma_dense(mu);
    let lower = |r: usize| -> Vec3 {
        std::array::from_fn(|c| (g[r][0] * h[0][c] + g[r][1] * h[1][c]).scale(sigma))
    };
    [h[0], h[1], lower(2), lower(3)]
}

fn write_spinor(out: &mut [f64], s: &Spinor) {
    for (spin, v) in s.iter().enumerate() {
        for (c, &z) in v.iter().enumerate() {
            put(out, spin * 3 + c, z);
        }
    }
}

fn write_half(out: &mut [f64], mu: usize, h: &Half) {
    for (spin, v) in h.iter().enumerate() {
        for (c, &z) in v.iter().enumerate() {
            put(out, mu * 6 + spin * 3 + c, z);
        }
    }
}

fn per_site(sites: usize, reals: usize, f: impl Fn(usize, &mut [f64]) + Sync + Send) -> Vec<f64> {
    let mut out = vec![0.0; sites * reals];
    parallel::for_chunks(&mut out, reals, |first, chunk| f(first / reals, chunk));
    out
}

/// `D psi` (`isign = 1`) or `D^dagger psi` (`isign = -1`) from the definition.
pub fn dslash(lat: &Lattice, u: &[f64], psi: &[f64], isign: f64) -> Vec<f64> {
    per_site(lat.sites(), SPINOR, |x, out| {
        let mut acc: Spinor = [[C64::default(); 3]; 4];
        for mu in 0..4 {
            let up = lat.neighbour(x, mu, true);
            let dn = lat.neighbour(x, mu, false);
            let ux = link_at(u, x, mu);
            let ud = link_at(u, dn, mu);
            let fwd = spinor_at(psi, up).map(|v| mat_vec(&ux, &v));
            let bwd = spinor_at(psi, dn).map(|v| adj_mat_vec(&ud, &v));
            let f = one_plus(-isign, mu, &fwd);
            let b = one_plus(isign, mu, &bwd);
            for s in 0..4 {
                acc[s] = add3(&acc[s], &add3(&f[s], &b[s]));
            }
        }
        write_spinor(out, &acc);
    })
}

/// Extract: the forward-hopping half spinors `(1 - isign gamma_mu) psi(x)`, upper spins.
pub fn extract(lat: &Lattice, psi: &[f64], isign: f64) -> Vec<f64> {
    per_site(lat.sites(), HALF, |x, out| {
        let p = spinor_at(psi, x);
        for mu in 0..4 {
            let full = one_plus(-isign, mu, &p);
            write_half(out, mu, &[full[0], full[1]]);
        }
    })
}

/// Extract and multiply: `U_mu^dagger(x) (1 + isign gamma_mu) psi(x)`, upper spins.
pub fn extract_mul(lat: &Lattice, u: &[f64], psi: &[f64], isign: f64) -> Vec<f64> {
    per_site(lat.sites(), HALF, |x, out| {
        let p = spinor_at(psi, x);
        for mu in 0..4 {
            let full = one_plus(isign, mu, &p);
            let m = link_at(u, x, mu);
            write_half(
                out,
                mu,
                &[adj_mat_vec(&m, &full[0]), adj_mat_vec(&m, &full[1])],
            );
        }
    })
}

/// Shift: forward half spinors gathered from `x + mu`, backward ones from `x - mu`.
pub fn shift(lat: &Lattice, hf: &[f64], hb: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let gather = |h: &[f64], forward: bool| {
        per_site(lat.sites(), HALF, |x, out| {
            for mu in 0..4 {
                write_half(out, mu, &half_at(h, lat.neighbour(x, mu, forward), mu));
            }
        })
    };
    (gather(hf, true), gather(hb, false))
}

/// Insert and multiply: `sum_mu` of the spinors rebuilt from `U_mu(x) gf_mu(x)`.
pub fn insert_mul(lat: &Lattice, u: &[f64], gf: &[f64], isign: f64) -> Vec<f64> {
    per_site(lat.sites(), SPINOR, |x, out| {
        let mut acc: Spinor = [[C64::default(); 3]; 4];
        for mu in 0..4 {
            let m = link_at(u, x, mu);
            let h = half_at(gf, x, mu).map(|v| mat_vec(&m, &v));
            let full = reconstruct(-isign, mu, &h);
            for s in 0..4 {
                acc[s] = add3(&acc[s], &full[s]);
            }
        }
        write_spinor(out, &acc);
    })
}

/// Insert: `acc(x)` plus the spinors rebuilt from the backward half spinors.
pub fn insert(lat: &Lattice, gb: &[f64], acc: &[f64], isign: f64) -> Vec<f64> {
    per_site(lat.sites(), SPINOR, |x, out| {
        let mut a = spinor_at(acc, x);
        for mu in 0..4 {
            let full = reconstruct(isign, mu, &half_at(gb, x, mu));
            for s in 0..4 {
                a[s] = add3(&a[s], &full[s]);
            }
        }
        write_spinor(out, &a);
    })
}

/// `y + a x`.
pub fn axpy(a: f64, x: &[f64], y: &[f64]) -> Vec<f64> {
    parallel::par_map(x.len(), |i| y[i] + a * x[i])
}

/// `Re <a, b>`: the sum of products of all real components.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    parallel::sum(a.len(), |i| a[i] * b[i])
}

/// `M psi = psi - kappa D psi` (`isign = 1`) or `M^dagger psi` (`isign = -1`).
pub fn apply_m(lat: &Lattice, u: &[f64], psi: &[f64], kappa: f64, isign: f64) -> Vec<f64> {
    axpy(-kappa, &dslash(lat, u, psi, isign), psi)
}

/// Outcome of a conjugate-gradient solve.
#[derive(Clone, Debug)]
pub struct Solve {
    /// The solution.
    pub x: Vec<f64>,
    /// Iterations run.
    pub iterations: u64,
    /// Final `|r| / |r0|` of the normal equations (the recursively updated residual).
    pub residual: f64,
}

/// Conjugate gradient on `M^dagger M x = M^dagger b` from `x = 0`, until
/// `|r| <= tol |r0|` or `max_iter` iterations.
pub fn cg(lat: &Lattice, u: &[f64], b: &[f64], kappa: f64, tol: f64, max_iter: u64) -> Solve {
    let mut r = apply_m(lat, u, b, kappa, -1.0);
    let mut x = vec![0.0; b.len()];
    let mut p = r.clone();
    let rr0 = dot(&r, &r);
    let mut rr = rr0;
    let mut iterations = 0;
    while iterations < max_iter && rr > tol * tol * rr0 {
        let mp = apply_m(lat, u, &p, kappa, 1.0);
        let ap = apply_m(lat, u, &mp, kappa, -1.0);
        let alpha = rr / dot(&p, &ap);
        x = axpy(alpha, &p, &x);
        r = axpy(-alpha, &ap, &r);
        let rr_new = dot(&r, &r);
        p = axpy(rr_new / rr, &p, &r);
        rr = rr_new;
        iterations += 1;
    }
    Solve {
        x,
        iterations,
        residual: (rr / rr0).sqrt(),
    }
}

/// `|M x - b| / |b|`, in f64.
pub fn true_residual(lat: &Lattice, u: &[f64], x: &[f64], b: &[f64], kappa: f64) -> f64 {
    let mx = apply_m(lat, u, x, kappa, 1.0);
    let d: Vec<f64> = mx.iter().zip(b).map(|(a, b)| a - b).collect();
    (dot(&d, &d) / dot(b, b)).sqrt()
}

/// A random SU(3) matrix: random complex entries, rows 1 and 2
/// orthonormalised by Gram-Schmidt, row 3 the conjugated cross product.
pub fn random_su3(rng: &mut impl Rng) -> Mat3 {
    let mut m: Mat3 = std::array::from_fn(|_| {
        std::array::from_fn(|_| C64::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0)))
    });
    let norm = |v: &Vec3| v.iter().map(|z| z.norm2()).sum::<f64>().sqrt();
    let n0 = norm(&m[0]);
    m[0] = m[0].map(|z| z.scale(1.0 / n0));
    let proj = m[0]
        .iter()
        .zip(&m[1])
        .fold(C64::default(), |acc, (a, b)| acc + a.conj() * *b);
    m[1] = std::array::from_fn(|c| m[1][c] - proj * m[0][c]);
    let n1 = norm(&m[1]);
    m[1] = m[1].map(|z| z.scale(1.0 / n1));
    let (a, b) = (m[0], m[1]);
    m[2] = std::array::from_fn(|c| {
        let (i, j) = ((c + 1) % 3, (c + 2) % 3);
        (a[i] * b[j] - a[j] * b[i]).conj()
    });
    m
}

/// A gauge field of random SU(3) links, logical order.
pub fn random_links(rng: &mut impl Rng, sites: usize) -> Vec<f64> {
    // Chunks of links draw from their own generators (seeded from `rng`) in
    // parallel: the default lattice has 8 million links.
    const CHUNK: usize = 18 * 4096;
    let seed: u64 = rng.random();
    let mut u = vec![0.0; sites * LINKS];
    parallel::for_chunks(&mut u, CHUNK, |first, chunk| {
        let mut r = rand_pcg::Pcg64::seed_from_u64(
            seed ^ (first as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        for out in chunk.chunks_exact_mut(18) {
            let m = random_su3(&mut r);
            for (i, z) in m.iter().flatten().enumerate() {
                put(out, i, *z);
            }
        }
    });
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat4_mul(a: &[[C64; 4]; 4], b: &[[C64; 4]; 4]) -> [[C64; 4]; 4] {
        std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..4).fold(C64::default(), |acc, k| acc + a[i][k] * b[k][j]))
        })
    }

    #[test]
    fn gammas_are_hermitian_and_satisfy_the_clifford_algebra() {
        for (mu, entries) in GAMMA.iter().enumerate() {
            let g = gamma_dense(mu);
            for nu in 0..4 {
                let h = gamma_dense(nu);
                let (a, b) = (mat4_mul(&g, &h), mat4_mul(&h, &g));
                for i in 0..4 {
                    for j in 0..4 {
                        let want = if mu == nu && i == j { 2.0 } else { 0.0 };
                        let s = a[i][j] + b[i][j];
                        assert_eq!((s.re, s.im), (want, 0.0), "{mu}{nu} [{i}][{j}]");
                    }
                }
            }
            for (i, &(col, _)) in entries.iter().enumerate() {
                for (j, row) in g.iter().enumerate() {
                    assert_eq!(g[i][j], row[i].conj());
                }
                // Chiral: upper spins couple only to lower ones.
                assert_eq!(col / 2, 1 - i / 2);
            }
        }
    }

    #[test]
    fn random_links_are_special_unitary() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        for _ in 0..20 {
            let m = random_su3(&mut rng);
            for i in 0..3 {
                for j in 0..3 {
                    let z = (0..3).fold(C64::default(), |a, k| a + m[i][k] * m[j][k].conj());
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((z.re - want).abs() < 1e-14 && z.im.abs() < 1e-14);
                }
            }
            let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
            assert!((det.re - 1.0).abs() < 1e-14 && det.im.abs() < 1e-14);
        }
    }

    fn setup(l: usize, t: usize) -> (Lattice, Vec<f64>, Vec<f64>, Vec<f64>) {
        let lat = Lattice { l, t };
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let u = random_links(&mut rng, lat.sites());
        let psi: Vec<f64> = (0..lat.sites() * SPINOR)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        let chi: Vec<f64> = (0..lat.sites() * SPINOR)
            .map(|_| rng.random_range(-1.0..1.0))
            .collect();
        (lat, u, psi, chi)
    }

    #[test]
    fn neighbours_wrap_and_invert() {
        let lat = Lattice { l: 3, t: 4 };
        assert_eq!(lat.neighbour(2, 0, true), 0);
        assert_eq!(lat.neighbour(0, 3, false), 27 * 3);
        for s in 0..lat.sites() {
            for mu in 0..4 {
                assert_eq!(lat.neighbour(lat.neighbour(s, mu, true), mu, false), s);
            }
        }
    }

    #[test]
    fn the_split_kernels_compose_to_the_operator_for_both_signs() {
        let (lat, u, psi, _) = setup(3, 4);
        for isign in [1.0, -1.0] {
            let (gf, gb) = shift(
                &lat,
                &extract(&lat, &psi, isign),
                &extract_mul(&lat, &u, &psi, isign),
            );
            let split = insert(&lat, &gb, &insert_mul(&lat, &u, &gf, isign), isign);
            let direct = dslash(&lat, &u, &psi, isign);
            for (a, b) in split.iter().zip(&direct) {
                assert!((a - b).abs() < 1e-13, "{a} vs {b}");
            }
        }
    }

    #[test]
    fn the_negated_sign_is_the_adjoint() {
        let (lat, u, psi, chi) = setup(2, 4);
        let complex_dot = |a: &[f64], b: &[f64]| {
            (0..a.len() / 2).fold(C64::default(), |acc, i| acc + get(a, i).conj() * get(b, i))
        };
        let lhs = complex_dot(&chi, &dslash(&lat, &u, &psi, 1.0));
        let rhs = complex_dot(&dslash(&lat, &u, &chi, -1.0), &psi);
        assert!((lhs - rhs).norm2().sqrt() < 1e-12, "{lhs:?} vs {rhs:?}");
    }

    #[test]
    fn cg_solves_the_wilson_system() {
        let (lat, u, b, _) = setup(2, 4);
        let s = cg(&lat, &u, &b, 0.12, 1e-12, 500);
        assert!(s.residual <= 1e-12, "{s:?}");
        assert!(true_residual(&lat, &u, &s.x, &b, 0.12) < 1e-10);
    }
}
