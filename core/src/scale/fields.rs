//! Fields between the global lattice and the ranks' padded boxes: a
//! rank's box cut from the global field ([`Decomposition::scatter`]), the
//! owned sites it contributes ([`Decomposition::owned`]), and rank 0's
//! global field from every rank's contribution
//! ([`Decomposition::assemble`]).

use super::Decomposition;

impl Decomposition {
    /// The owned sites' values of a rank's padded field (logical order,
    /// `reals` values a site): what it contributes to the gathered field.
    pub fn owned(&self, field: &[f64], reals: usize) -> Vec<f64> {
        let [inner, p2, _] = self.padded3();
        let (lo2, n2) = match &self.second {
            Some(s) => (self.halo, s.local),
            None => (0, p2),
        };
        let mut out = Vec::with_capacity(self.owned_sites() * reals);
        for k in self.halo..self.halo + self.local {
            let row = |j: usize| (k * p2 + j) * inner * reals;
            out.extend_from_slice(&field[row(lo2)..row(lo2 + n2)]);
        }
        out
    }

    /// Where global site `site` lives: the rank that owns it, and its site
    /// in that rank's padded field.
    pub fn locate(&self, site: usize) -> (usize, usize) {
        let [inner, g2, _] = self.global3();
        let [_, p2, _] = self.padded3();
        let (i, j, k) = (site % inner, (site / inner) % g2, site / (inner * g2));
        let (c2, j) = match &self.second {
            Some(s) => (j / s.local, j % s.local + self.halo),
            None => (0, j),
        };
        let rank = k / self.local * self.grid()[1] + c2;
        (rank, ((k % self.local + self.halo) * p2 + j) * inner + i)
    }

    /// The site in a rank's padded field of its `o`-th owned site, in the
    /// order of [`Self::owned`].
    pub fn owned_site(&self, o: usize) -> usize {
        let [inner, p2, _] = self.padded3();
        let (lo2, n2) = match &self.second {
            Some(s) => (self.halo, s.local),
            None => (0, p2),
        };
        let (i, j, k) = (o % inner, (o / inner) % n2, o / (inner * n2));
        ((k + self.halo) * p2 + lo2 + j) * inner + i
    }

    /// The global field (logical order) from every rank's [`Self::owned`]
    /// values concatenated in rank order.
    pub fn assemble(&self, gathered: &[f64], reals: usize) -> Vec<f64> {
        let [inner, g2, g1] = self.global3();
        let l2 = self.second.as_ref().map_or(g2, |s| s.local);
        let row = inner * l2 * reals;
        let mut out = vec![0.0; inner * g2 * g1 * reals];
        for (rank, mine) in gathered
            .chunks_exact(self.owned_sites() * reals)
            .enumerate()
        {
            let [c1, c2] = self.coords(rank);
            for (k, values) in mine.chunks_exact(row).enumerate() {
                let at = ((c1 * self.local + k) * g2 + c2 * l2) * inner * reals;
                out[at..at + row].copy_from_slice(values);
            }
        }
        out
    }

    /// A rank's padded field cut from the global one (periodic): owned
    /// sites, and halo sites too when `halos` (else NaN, so that a missed
    /// swap shows).
    pub fn scatter(&self, global: &[f64], rank: usize, reals: usize, halos: bool) -> Vec<f64> {
        let [inner, p2, p1] = self.padded3();
        let [_, g2, g1] = self.global3();
        let [c1, c2] = self.coords(rank);
        let h = self.halo;
        let (first2, split2) = match &self.second {
            Some(s) => (c2 * s.local, true),
            None => (0, false),
        };
        let own2 = |j: usize| !split2 || (h..p2 - h).contains(&j);
        let mut out = vec![f64::NAN; p1 * p2 * inner * reals];
        for k in 0..p1 {
            let own1 = (h..p1 - h).contains(&k);
            let gk = (c1 * self.local + g1 + k - h) % g1;
            for j in 0..p2 {
                if !(halos || own1 && own2(j)) {
                    continue;
                }
                let gj = if split2 {
                    (first2 + g2 + j - h) % g2
                } else {
                    j
                };
                let src = (gk * g2 + gj) * inner * reals;
                let dst = (k * p2 + j) * inner * reals;
                out[dst..dst + inner * reals].copy_from_slice(&global[src..src + inner * reals]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_owned_and_assemble_round_trip() {
        let global: Vec<f64> = (0..3 * 4 * 6 * 2).map(f64::from).collect();
        for d in [
            Decomposition::plan("z", &[3, 4, 6], 3, 1).expect("slabs"),
            Decomposition::plan_grid(["y", "z"], &[3, 4, 6], 4, 1).expect("grid"),
            Decomposition::plan_grid(["y", "z"], &[3, 4, 6], 6, 1).expect("grid"),
        ] {
            let mut gathered = Vec::new();
            for rank in 0..d.ranks {
                let padded = d.scatter(&global, rank, 2, false);
                assert_eq!(padded.len(), d.padded_sites() * 2);
                let owned = d.owned(&padded, 2);
                assert!(owned.iter().all(|v| !v.is_nan()), "{}", d.label());
                assert_eq!(padded.iter().filter(|v| !v.is_nan()).count(), owned.len());
                gathered.extend(owned);
            }
            assert_eq!(d.assemble(&gathered, 2), global, "{}", d.label());
            // Every global site is found where its rank's field holds it,
            // and the owned sites in the order `owned` gives them.
            for rank in 0..d.ranks {
                let padded = d.scatter(&global, rank, 2, false);
                for site in 0..global.len() / 2 {
                    let (owner, at) = d.locate(site);
                    if owner == rank {
                        assert_eq!(padded[2 * at + 1], global[2 * site + 1], "{}", d.label());
                    }
                }
                let owned = d.owned(&padded, 2);
                for o in 0..d.owned_sites() {
                    assert_eq!(padded[2 * d.owned_site(o)], owned[2 * o], "{}", d.label());
                }
            }
        }
        // With halos: the site below rank 0's first owned plane wraps to
        // the last global plane; along y too on a grid.
        let d = Decomposition::plan_grid(["y", "z"], &[1, 4, 4], 4, 1).expect("grid");
        let global: Vec<f64> = (0..16).map(f64::from).collect();
        let padded = d.scatter(&global, 0, 1, true);
        // Padded 4 x 4 (y, z), rank 0 owns y, z in {0, 1}: row z = -1 is
        // global z = 3: y = 3, 0, 1, 2 there.
        assert_eq!(&padded[..4], &[15.0, 12.0, 13.0, 14.0]);
        assert_eq!(&padded[4..8], &[3.0, 0.0, 1.0, 2.0]);
    }
}
