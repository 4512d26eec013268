//! The index and coefficient tables of SNAP at one 2J: half-storage
//! elements, Clebsch-Gordan coefficients and the Y terms, shared by the
//! host reference and the GPU kernels.

use super::complex::C;

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

    /// Elements of a fully stored U-like array: (j + 1)^2 a layer.
    pub fn nu(&self) -> usize {
        (0..=self.twojmax as usize).map(|j| (j + 1) * (j + 1)).sum()
    }

    /// A half-stored array written out whole, layer by layer, row by row
    /// (the GPU's layout of the total U).
    pub fn full(&self, half: &[C]) -> Vec<C> {
        let mut v = Vec::with_capacity(self.nu());
        for j in 0..=self.twojmax {
            for mb in 0..=j {
                v.extend((0..=j).map(|ma| self.get(half, j, mb, ma)));
            }
        }
        v
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
