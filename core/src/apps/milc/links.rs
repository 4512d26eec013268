//! How the kernels hold the gauge links: whole (18 reals a link) or as
//! their first two rows (12), the third rebuilt in registers as the
//! conjugated cross product of the two, which an SU(3) matrix allows (the
//! `reconstruct` parameter, as QUDA names it). Rebuilding costs 42 FLOPs a
//! link and saves a third of the links' traffic.

use crate::choice;
use crate::precision::Precision;

use super::wilson::LINKS;

choice! {
    /// How the kernels that read links hold them.
    pub enum Reconstruct("reconstruct") {
        /// 12 in f32 and f64, 18 in df64 (resolved per case: records name
        /// the form run).
        Auto = "auto",
        /// Every link whole, 18 reals.
        Full = "18",
        /// Each link's first two rows, 12 reals; the third rebuilt.
        Rows = "12",
    }
}

impl Reconstruct {
    /// The form `auto` takes in precision `p`. On the H100 two rows made
    /// the one-pass D 19-21% faster in f32 and f64 and the fused CG 11-13%
    /// faster; in df64, whose arithmetic is many f32 operations, the
    /// rebuild made the one-pass D 46% slower (docs/notebook/benchmarks.md, 2026-11-28 q).
    pub fn resolved(self, p: Precision) -> Reconstruct {
        match (self, p) {
            (Reconstruct::Auto, Precision::Df64) => Reconstruct::Full,
            (Reconstruct::Auto, _) => Reconstruct::Rows,
            (r, _) => r,
        }
    }

    /// Reals of the gauge field per site, as stored.
    pub fn reals_per_site(self) -> u64 {
        match self {
            Reconstruct::Rows => LINKS as u64 * 2 / 3,
            _ => LINKS as u64,
        }
    }

    /// FLOPs of rebuilding one link read (three entries, each two complex
    /// products and a difference: 6 + 6 + 2).
    pub fn flops_per_link(self) -> u64 {
        match self {
            Reconstruct::Rows => 3 * (6 + 6 + 2),
            _ => 0,
        }
    }
}

/// The first two rows of every link of a gauge field (logical order: per
/// site, 4 links of 3 x 3 complex, row by row), dropping each third row.
pub fn link_rows(u: &[f64]) -> Vec<f64> {
    u.chunks_exact(18)
        .flat_map(|link| &link[..12])
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::milc::wilson::{C64, random_links};
    use rand::SeedableRng;

    /// The rebuild's premise on the links the app draws: each third row is
    /// the conjugated cross product of the first two (as the shaders'
    /// `su3_third_row` computes it), and `link_rows` keeps exactly those two.
    #[test]
    fn a_links_third_row_follows_from_its_first_two() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let u = random_links(&mut rng, 16);
        let rows = link_rows(&u);
        assert_eq!(rows.len(), 16 * 48);
        for (link, kept) in u.chunks_exact(18).zip(rows.chunks_exact(12)) {
            assert_eq!(&link[..12], kept);
            let z = |i: usize| C64::new(link[2 * i], link[2 * i + 1]);
            for c in 0..3 {
                let (i, j) = ((c + 1) % 3, (c + 2) % 3);
                let rebuilt = (z(i) * z(3 + j) - z(j) * z(3 + i)).conj();
                let d = rebuilt - z(6 + c);
                assert!(d.norm2().sqrt() < 1e-14, "entry {c}: {d:?}");
            }
        }
    }

    #[test]
    fn auto_takes_two_rows_except_in_df64() {
        use Reconstruct::{Auto, Full, Rows};
        for (asked, p, runs) in [
            (Auto, Precision::F32, Rows),
            (Auto, Precision::F64, Rows),
            (Auto, Precision::Df64, Full),
            (Full, Precision::F32, Full),
            (Rows, Precision::Df64, Rows),
        ] {
            assert_eq!(asked.resolved(p), runs, "{asked} in {p}");
        }
        assert_eq!(Rows.reals_per_site(), 48);
    }
}
