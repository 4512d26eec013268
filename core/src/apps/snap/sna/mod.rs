//! The SNAP force in f64 on the CPU (Thompson et al., J. Comp. Phys. 285,
//! 316 (2015)), written from the method: the validation reference of every
//! GPU kernel and the CPU platform's kernel.
//!
//! Every U-like array (U of one neighbour, its total over the neighbours,
//! dU, Y) keeps only the rows `2 mb <= j` of each layer j ("half" storage):
//! the other rows follow from the inversion symmetry
//! `u[j-mb][j-ma] = (-1)^(ma+mb) conj(u[mb][ma])`, which the self term keeps.
//! The GPU kernels use the same tables and storage.

mod complex;
mod tables;

use std::f64::consts::PI;

pub use complex::C;
pub use tables::{Tables, Term, ncoeff};

/// `rfac0` of the W potential (angle scaling of the Cayley-Klein map).
pub const RFAC0: f64 = 0.99363;
/// `rmin0`: the radial map starts at the atom.
pub const RMIN0: f64 = 0.0;
/// Weight of the self term on the diagonal of every U layer.
pub const WSELF: f64 = 1.0;

/// What one neighbour contributes, from its displacement: the quantities
/// that need transcendental functions, computed once per pair on the host
/// (WGSL has no f64 trigonometry): x, y, z, r, z0, dz0/dr, sfac, dsfac/dr.
pub fn geometry(rij: [f64; 3], rcut: f64) -> [f64; 8] {
    let [x, y, z] = rij;
    let r = (x * x + y * y + z * z).sqrt();
    let rscale0 = RFAC0 * PI / (rcut - RMIN0);
    let theta0 = (r - RMIN0) * rscale0;
    let z0 = r / theta0.tan();
    let dz0dr = z0 / r - (r * rscale0) * (r * r + z0 * z0) / (r * r);
    let (sfac, dsfac) = if r <= RMIN0 {
        (1.0, 0.0)
    } else if r > rcut {
        (0.0, 0.0)
    } else {
        let f = PI / (rcut - RMIN0);
        (
            0.5 * (((r - RMIN0) * f).cos() + 1.0),
            -0.5 * ((r - RMIN0) * f).sin() * f,
        )
    };
    [x, y, z, r, z0, dz0dr, sfac, dsfac]
}

/// Cayley-Klein parameters a, b of a pair and their derivatives along x, y, z.
pub fn cayley_klein(g: &[f64; 8]) -> (C, C, [C; 3], [C; 3]) {
    let [x, y, z, r, z0, dz0dr, _, _] = *g;
    let r0inv = 1.0 / (r * r + z0 * z0).sqrt();
    let a = C::new(z0 * r0inv, -z * r0inv);
    let b = C::new(y * r0inv, -x * r0inv);
    let dr0invdr = -r0inv * r0inv * r0inv * (r + z0 * dz0dr);
    let mut da = [C::default(); 3];
    let mut db = [C::default(); 3];
    for (k, u) in [x / r, y / r, z / r].into_iter().enumerate() {
        let dr0inv = dr0invdr * u;
        da[k] = C::new(dz0dr * u * r0inv + z0 * dr0inv, -z * dr0inv);
        db[k] = C::new(y * dr0inv, -x * dr0inv);
    }
    da[2].im -= r0inv;
    db[0].im -= r0inv;
    db[1].re += r0inv;
    (a, b, da, db)
}

/// A SNAP configuration: every local atom with the same number of neighbours.
#[derive(Clone, Debug)]
pub struct Config {
    /// 2J.
    pub twojmax: u32,
    /// Cutoff (A).
    pub rcut: f64,
    /// `coeff[0]` constant term, then beta.
    pub coeff: Vec<f64>,
    /// Atoms whose energy is summed (owners of the neighbour lists).
    pub nlocal: usize,
    /// Local plus ghost atoms (forces land on all of them).
    pub ntotal: usize,
    /// Neighbours per local atom.
    pub nnbr: usize,
    /// Index of each neighbour, `nlocal * nnbr`.
    pub jlist: Vec<u32>,
    /// Displacement to each neighbour, `nlocal * nnbr` vectors.
    pub rij: Vec<[f64; 3]>,
}

/// Intermediate arrays of one atom (for the per-kernel validations).
#[derive(Clone, Debug)]
pub struct AtomState {
    /// U of each neighbour, before the switching function.
    pub ulist: Vec<Vec<C>>,
    /// Total U with the self term.
    pub utot: Vec<C>,
    /// The adjoint Y.
    pub y: Vec<C>,
}

impl Config {
    /// The tables of this configuration.
    pub fn tables(&self) -> Tables {
        Tables::new(self.twojmax, &self.coeff[1..])
    }

    /// Neighbour pairs (`nlocal * nnbr`).
    pub fn pairs(&self) -> usize {
        self.nlocal * self.nnbr
    }

    /// Per-pair geometry (see [`geometry`]).
    pub fn geometries(&self) -> Vec<[f64; 8]> {
        self.rij.iter().map(|&r| geometry(r, self.rcut)).collect()
    }

    /// compute_U of local atom `i`: U of every neighbour and the total.
    pub fn atom_u(&self, t: &Tables, geo: &[[f64; 8]], i: usize) -> (Vec<Vec<C>>, Vec<C>) {
        let mut utot = vec![C::default(); t.ny()];
        for (e, &[_, mb, ma]) in t.elems.iter().enumerate() {
            if mb == ma {
                utot[e] = C::new(WSELF, 0.0);
            }
        }
        let mut ulist = Vec::with_capacity(self.nnbr);
        for g in &geo[i * self.nnbr..(i + 1) * self.nnbr] {
            let (a, b, _, _) = cayley_klein(g);
            let u = t.ulist(a, b);
            for (s, v) in utot.iter_mut().zip(&u) {
                *s = *s + v.scale(g[6]);
            }
            ulist.push(u);
        }
        (ulist, utot)
    }

    /// compute_U and compute_Y of every local atom.
    pub fn states(&self, t: &Tables, geo: &[[f64; 8]]) -> Vec<AtomState> {
        crate::parallel::collect(self.nlocal, |i| {
            let (ulist, utot) = self.atom_u(t, geo, i);
            let y = t.ylist(&utot);
            AtomState { ulist, utot, y }
        })
    }

    /// compute_dU of one pair: dU/dr_k (k = x, y, z) with the switching
    /// function applied, from the pair's U.
    pub fn pair_du(t: &Tables, g: &[f64; 8], u: &[C]) -> [Vec<C>; 3] {
        let (a, b, da, db) = cayley_klein(g);
        let (r, sfac, dsfac) = (g[3], g[6], g[7]);
        std::array::from_fn(|k| {
            let du = t.dulist(u, a, b, da[k], db[k]);
            du.iter()
                .zip(u)
                .map(|(d, u)| u.scale(dsfac * g[k] / r) + d.scale(sfac))
                .collect()
        })
    }

    /// compute_dE of every pair from the atom states: fij = dE_i/dr_j, 3 per pair.
    pub fn pair_forces(&self, t: &Tables, geo: &[[f64; 8]], states: &[AtomState]) -> Vec<f64> {
        let per_pair = crate::parallel::collect(self.pairs(), |pair| {
            let s = &states[pair / self.nnbr];
            let du = Self::pair_du(t, &geo[pair], &s.ulist[pair % self.nnbr]);
            du.map(|d| t.de(&d, &s.y))
        });
        per_pair.into_iter().flatten().collect()
    }

    /// Forces on all `ntotal` atoms from the pair terms: f[i] += fij, f[j] -= fij.
    pub fn assemble(&self, fij: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; 3 * self.ntotal];
        for (pair, &j) in self.jlist.iter().enumerate() {
            let i = pair / self.nnbr;
            for k in 0..3 {
                f[3 * i + k] += fij[3 * pair + k];
                f[3 * j as usize + k] -= fij[3 * pair + k];
            }
        }
        f
    }

    /// Forces on all atoms (3 per atom).
    pub fn forces(&self) -> Vec<f64> {
        let t = self.tables();
        let geo = self.geometries();
        let states = self.states(&t, &geo);
        self.assemble(&self.pair_forces(&t, &geo, &states))
    }

    /// Total SNAP energy of the local atoms, bzero subtracted.
    pub fn energy(&self) -> f64 {
        let t = self.tables();
        let geo = self.geometries();
        let bzero = |j: u32| WSELF.powi(3) * (j + 1) as f64;
        crate::parallel::sum(self.nlocal, |i| {
            let (_, utot) = self.atom_u(&t, &geo, i);
            let b = t.bispectrum(&utot);
            self.coeff[0]
                + b.iter()
                    .zip(&t.bispectrum)
                    .zip(&self.coeff[1..])
                    .map(|((b, jjj), beta)| beta * (b - bzero(jjj[2])))
                    .sum::<f64>()
        })
    }
}

/// `sqrt(sum over atoms |f - want|^2 / atoms)`, TestSNAP's RMS |F| deviation.
pub fn rms_deviation(f: &[f64], want: &[f64]) -> f64 {
    let n = (f.len() / 3).max(1) as f64;
    let s: f64 = f.iter().zip(want).map(|(a, b)| (a - b) * (a - b)).sum();
    (s / n).sqrt()
}
