//! The SNAP force in f64 on the CPU (Thompson et al., J. Comp. Phys. 285,
//! 316 (2015)), written from the method: the validation reference of every
//! GPU kernel and the CPU platform's kernel.
//!
//! Every U-like array (U of one neighbour, its total over the neighbours,
//! dU, Y) keeps only the rows `2 mb <= j` of each layer j ("half" storage):
//! the other rows follow from the inversion symmetry
//! `u[j-mb][j-ma] = (-1)^(ma+mb) conj(u[mb][ma])`, which the self term keeps.
//! The GPU kernels use the same tables and storage.

use std::f64::consts::PI;
use std::ops::{Add, Mul, Sub};

/// `rfac0` of the W potential (angle scaling of the Cayley-Klein map).
pub const RFAC0: f64 = 0.99363;
/// `rmin0`: the radial map starts at the atom.
pub const RMIN0: f64 = 0.0;
/// Weight of the self term on the diagonal of every U layer.
pub const WSELF: f64 = 1.0;

/// A complex number in f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct C {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

impl C {
    /// `re + i im`.
    pub const fn new(re: f64, im: f64) -> C {
        C { re, im }
    }
    /// Complex conjugate.
    pub fn conj(self) -> C {
        C::new(self.re, -self.im)
    }
    /// `self * s` for a real `s`.
    pub fn scale(self, s: f64) -> C {
        C::new(self.re * s, self.im * s)
    }
}

impl Add for C {
    type Output = C;
    fn add(self, o: C) -> C {
        C::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for C {
    type Output = C;
    fn sub(self, o: C) -> C {
        C::new(self.re - o.re, self.im - o.im)
    }
}

impl Mul for C {
    type Output = C;
    fn mul(self, o: C) -> C {
        C::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// One Clebsch-Gordan product `z(j1, j2, j; mb, ma)` contributing to one
/// element of Y, with its summation ranges (the TestSNAP `idxz` entries).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// Layer of the first factor.
    pub j1: u32,
    /// Layer of the second factor.
    pub j2: u32,
    /// Start of the (j1, j2, j) block in [`Tables::cg`].
    pub cg: u32,
    /// First `ma1`; `ma2` starts at `ma2max` and counts down.
    pub ma1min: u32,
    /// See `ma1min`.
    pub ma2max: u32,
    /// Terms of the inner sum.
    pub na: u32,
    /// First `mb1`; `mb2` starts at `mb2max` and counts down.
    pub mb1min: u32,
    /// See `mb1min`.
    pub mb2max: u32,
    /// Terms of the outer sum.
    pub nb: u32,
    /// The beta weight with TestSNAP's multiplicity and (j1+1)/(j+1) factors.
    pub beta: f64,
}

/// Index tables and coefficients of one 2J, built once on the host.
#[derive(Clone, Debug)]
pub struct Tables {
    /// 2J.
    pub twojmax: u32,
    /// First half element of each layer j (length 2J + 2, the last is `ny`).
    pub hblock: Vec<u32>,
    /// (j, mb, ma) of every half element.
    pub elems: Vec<[u32; 3]>,
    /// Weight of each half element in dE and B: 1, 1/2 on the middle row's
    /// diagonal, 0 right of it (those are counted by symmetry).
    pub weight: Vec<f64>,
    /// `rootpq[p * (2J+1) + q] = sqrt(p / q)`.
    pub rootpq: Vec<f64>,
    /// Clebsch-Gordan coefficients, one (j1+1) x (j2+1) block per (j1, j2, j).
    pub cg: Vec<f64>,
    /// Terms of Y element e: `terms[ystart[e]..ystart[e+1]]`.
    pub ystart: Vec<u32>,
    /// Every Y term, grouped by element.
    pub terms: Vec<Term>,
    /// (j1, j2, j) of each bispectrum component, in the order of beta.
    pub bispectrum: Vec<[u32; 3]>,
}

fn factorial(n: i64) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// The (j1, j2, j) triples with j1 >= j2, in TestSNAP's order.
fn triples(twojmax: u32) -> Vec<[u32; 3]> {
    let mut v = Vec::new();
    for j1 in 0..=twojmax {
        for j2 in 0..=j1 {
            let mut j = j1 - j2;
            while j <= twojmax.min(j1 + j2) {
                v.push([j1, j2, j]);
                j += 2;
            }
        }
    }
    v
}

/// Clebsch-Gordan coefficient <j1/2 m1/2, j2/2 m2/2 | j/2 m/2> for the
/// doubled quantum numbers, by the quasi-binomial (Racah) formula.
fn clebsch_gordan(j1: i64, j2: i64, j: i64, aa2: i64, bb2: i64) -> f64 {
    let cc2 = aa2 + bb2;
    if cc2.abs() > j {
        return 0.0;
    }
    let zmin = 0.max(-(j - j2 + aa2) / 2).max(-(j - j1 - bb2) / 2);
    let zmax = ((j1 + j2 - j) / 2).min((j1 - aa2) / 2).min((j2 + bb2) / 2);
    let mut sum = 0.0;
    for z in zmin..=zmax {
        let sign = if z % 2 == 0 { 1.0 } else { -1.0 };
        sum += sign
            / (factorial(z)
                * factorial((j1 + j2 - j) / 2 - z)
                * factorial((j1 - aa2) / 2 - z)
                * factorial((j2 + bb2) / 2 - z)
                * factorial((j - j2 + aa2) / 2 + z)
                * factorial((j - j1 - bb2) / 2 + z));
    }
    let delta = (factorial((j1 + j2 - j) / 2)
        * factorial((j1 - j2 + j) / 2)
        * factorial((-j1 + j2 + j) / 2)
        / factorial((j1 + j2 + j) / 2 + 1))
    .sqrt();
    let norm = (factorial((j1 + aa2) / 2)
        * factorial((j1 - aa2) / 2)
        * factorial((j2 + bb2) / 2)
        * factorial((j2 - bb2) / 2)
        * factorial((j + cc2) / 2)
        * factorial((j - cc2) / 2)
        * (j + 1) as f64)
        .sqrt();
    sum * delta * norm
}

/// Summation ranges of z(j1, j2, j; mb, ma): (first m1, last m2, count).
fn z_range(j1: u32, j2: u32, j: u32, m: u32) -> (u32, u32, u32) {
    let (j1, j2, j, m) = (j1 as i64, j2 as i64, j as i64, m as i64);
    let m1min = 0.max((2 * m - j - j2 + j1) / 2);
    let m2max = (2 * m - j - (2 * m1min - j1) + j2) / 2;
    let n = j1.min((2 * m - j + j2 + j1) / 2) - m1min + 1;
    (m1min as u32, m2max as u32, n.max(0) as u32)
}

/// Number of bispectrum components of 2J.
pub fn ncoeff(twojmax: u32) -> usize {
    triples(twojmax).iter().filter(|t| t[2] >= t[0]).count()
}

impl Tables {
    /// The tables of `twojmax` with the linear coefficients `beta`
    /// (`ncoeff(twojmax)` of them, without the constant term).
    pub fn new(twojmax: u32, beta: &[f64]) -> Tables {
        let jdim = twojmax as usize + 1;
        let mut hblock = vec![0u32];
        let mut elems = Vec::new();
        let mut weight = Vec::new();
        for j in 0..=twojmax {
            for mb in 0..=j / 2 {
                for ma in 0..=j {
                    elems.push([j, mb, ma]);
                    let w = if 2 * mb < j || ma < mb {
                        1.0
                    } else if ma == mb {
                        0.5
                    } else {
                        0.0
                    };
                    weight.push(w);
                }
            }
            hblock.push(elems.len() as u32);
        }
        let mut rootpq = vec![0.0; jdim * jdim];
        for p in 1..jdim {
            for q in 1..jdim {
                rootpq[p * jdim + q] = (p as f64 / q as f64).sqrt();
            }
        }
        let all = triples(twojmax);
        let bispectrum: Vec<[u32; 3]> = all.iter().copied().filter(|t| t[2] >= t[0]).collect();
        let bindex = |t: [u32; 3]| bispectrum.iter().position(|&b| b == t).unwrap_or(0);
        let mut cg = Vec::new();
        let mut per_elem: Vec<Vec<Term>> = vec![Vec::new(); elems.len()];
        for &[j1, j2, j] in &all {
            let block = cg.len() as u32;
            for m1 in 0..=j1 {
                for m2 in 0..=j2 {
                    let aa2 = 2 * m1 as i64 - j1 as i64;
                    let bb2 = 2 * m2 as i64 - j2 as i64;
                    cg.push(clebsch_gordan(j1 as i64, j2 as i64, j as i64, aa2, bb2));
                }
            }
            // Y_j gathers dB/dU_j from every B containing U_j: B(j1,j2,j)
            // directly, and B(j,j2,j1) / B(j2,j,j1) through the symmetry of
            // the coupling, scaled by (j1+1)/(j+1).
            let (jr, jj2) = (j1 as f64 + 1.0, j as f64 + 1.0);
            let b = if j >= j1 {
                let k = beta[bindex([j1, j2, j])];
                if j1 == j {
                    if j2 == j { 3.0 * k } else { 2.0 * k }
                } else {
                    k
                }
            } else if j >= j2 {
                let k = beta[bindex([j, j2, j1])] * jr / jj2;
                if j2 == j { 2.0 * k } else { k }
            } else {
                beta[bindex([j2, j, j1])] * jr / jj2
            };
            for mb in 0..=j / 2 {
                let (mb1min, mb2max, nb) = z_range(j1, j2, j, mb);
                for ma in 0..=j {
                    let (ma1min, ma2max, na) = z_range(j1, j2, j, ma);
                    let e = (hblock[j as usize] + mb * (j + 1) + ma) as usize;
                    per_elem[e].push(Term {
                        j1,
                        j2,
                        cg: block,
                        ma1min,
                        ma2max,
                        na,
                        mb1min,
                        mb2max,
                        nb,
                        beta: b,
                    });
                }
            }
        }
        let mut ystart = vec![0u32];
        let mut terms = Vec::new();
        for t in per_elem {
            terms.extend(t);
            ystart.push(terms.len() as u32);
        }
        Tables {
            twojmax,
            hblock,
            elems,
            weight,
            rootpq,
            cg,
            ystart,
            terms,
            bispectrum,
        }
    }

    /// Half elements per U-like array.
    pub fn ny(&self) -> usize {
        self.elems.len()
    }

    fn h(&self, j: u32, mb: u32, ma: u32) -> usize {
        (self.hblock[j as usize] + mb * (j + 1) + ma) as usize
    }

    /// Element (j, mb, ma) of a half-stored array, any mb.
    pub fn get(&self, half: &[C], j: u32, mb: u32, ma: u32) -> C {
        if 2 * mb <= j {
            half[self.h(j, mb, ma)]
        } else {
            let v = half[self.h(j, j - mb, j - ma)].conj();
            if (mb + ma).is_multiple_of(2) {
                v
            } else {
                v.scale(-1.0)
            }
        }
    }

    fn rootpq(&self, p: u32, q: u32) -> f64 {
        self.rootpq[p as usize * (self.twojmax as usize + 1) + q as usize]
    }

    /// U of one neighbour from its Cayley-Klein parameters (a, b), by the
    /// recursion of layer j from layer j-1.
    pub fn ulist(&self, a: C, b: C) -> Vec<C> {
        let mut u = vec![C::default(); self.ny()];
        u[0] = C::new(1.0, 0.0);
        for j in 1..=self.twojmax {
            for mb in 0..=j / 2 {
                for ma in 0..=j {
                    u[self.h(j, mb, ma)] = self.recur(&u, a, b, j, mb, ma);
                }
            }
        }
        u
    }

    /// `sqrt((j-ma)/(j-mb)) conj(a) u[j-1][mb][ma] - sqrt(ma/(j-mb)) conj(b) u[j-1][mb][ma-1]`.
    fn recur(&self, u: &[C], a: C, b: C, j: u32, mb: u32, ma: u32) -> C {
        let mut v = C::default();
        if ma < j {
            v = v + (a.conj() * self.get(u, j - 1, mb, ma)).scale(self.rootpq(j - ma, j - mb));
        }
        if ma > 0 {
            v = v - (b.conj() * self.get(u, j - 1, mb, ma - 1)).scale(self.rootpq(ma, j - mb));
        }
        v
    }

    /// dU/dr_k of one neighbour (before the switching function): the
    /// recursion differentiated, given U (`u`) and the parameters' derivatives.
    pub fn dulist(&self, u: &[C], a: C, b: C, da: C, db: C) -> Vec<C> {
        let mut du = vec![C::default(); self.ny()];
        for j in 1..=self.twojmax {
            for mb in 0..=j / 2 {
                for ma in 0..=j {
                    let d = self.recur(&du, a, b, j, mb, ma) + self.recur(u, da, db, j, mb, ma);
                    du[self.h(j, mb, ma)] = d;
                }
            }
        }
        du
    }

    /// z(j1, j2, j; mb, ma) of one term from the total U of an atom.
    pub fn z(&self, utot: &[C], t: &Term) -> C {
        let w = t.j2 as usize + 1;
        let cg = &self.cg[t.cg as usize..];
        let mut z = C::default();
        for ib in 0..t.nb {
            let (mb1, mb2) = (t.mb1min + ib, t.mb2max - ib);
            let mut s = C::default();
            for ia in 0..t.na {
                let (ma1, ma2) = (t.ma1min + ia, t.ma2max - ia);
                let p = self.get(utot, t.j1, mb1, ma1) * self.get(utot, t.j2, mb2, ma2);
                s = s + p.scale(cg[ma1 as usize * w + ma2 as usize]);
            }
            z = z + s.scale(cg[mb1 as usize * w + mb2 as usize]);
        }
        z
    }

    /// Y (half storage) of an atom from its total U.
    pub fn ylist(&self, utot: &[C]) -> Vec<C> {
        (0..self.ny())
            .map(|e| {
                let range = self.ystart[e] as usize..self.ystart[e + 1] as usize;
                self.terms[range]
                    .iter()
                    .fold(C::default(), |y, t| y + self.z(utot, t).scale(t.beta))
            })
            .collect()
    }

    /// The bispectrum components of an atom, in beta order.
    pub fn bispectrum(&self, utot: &[C]) -> Vec<f64> {
        self.bispectrum
            .iter()
            .map(|&[j1, j2, j]| {
                let mut sum = 0.0;
                for mb in 0..=j / 2 {
                    let (mb1min, mb2max, nb) = z_range(j1, j2, j, mb);
                    for ma in 0..=j {
                        let (ma1min, ma2max, na) = z_range(j1, j2, j, ma);
                        let e = self.h(j, mb, ma);
                        let cg = self.cg_offset(j1, j2, j);
                        let t = Term {
                            j1,
                            j2,
                            cg,
                            ma1min,
                            ma2max,
                            na,
                            mb1min,
                            mb2max,
                            nb,
                            beta: 1.0,
                        };
                        let z = self.z(utot, &t);
                        sum += self.weight[e] * (utot[e].conj() * z).re;
                    }
                }
                2.0 * sum
            })
            .collect()
    }

    fn cg_offset(&self, j1: u32, j2: u32, j: u32) -> u32 {
        let mut off = 0;
        for t in triples(self.twojmax) {
            if t == [j1, j2, j] {
                break;
            }
            off += (t[0] + 1) * (t[1] + 1);
        }
        off
    }

    /// 2 sum over half elements of weight Re(dU conj(Y)): dE/dr_k of one pair.
    pub fn de(&self, du: &[C], y: &[C]) -> f64 {
        2.0 * du
            .iter()
            .zip(y)
            .zip(&self.weight)
            .map(|((d, y), w)| w * (*d * y.conj()).re)
            .sum::<f64>()
    }
}

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
