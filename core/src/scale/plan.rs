//! Domain decomposition of a lattice over ranks: pure planning, no device
//! and no communication, so every rank computes the same plan and rank 0
//! can refuse a bad one before any rank allocates.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a lattice cannot be split over the ranks asked for.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecompError {
    /// Zero ranks.
    #[error("a decomposition needs at least one rank")]
    NoRanks,
    /// The split axis does not divide evenly.
    #[error(
        "{ranks} ranks do not divide the {axis} axis of {extent} sites: choose a rank count that divides {extent}"
    )]
    Indivisible {
        /// Name of the split axis (`z` for lbm, `t` for milc).
        axis: &'static str,
        /// Its extent in sites.
        extent: usize,
        /// Ranks asked for.
        ranks: usize,
    },
    /// Each rank would own fewer planes than one halo holds.
    #[error(
        "{ranks} ranks leave {local} plane(s) of the {axis} axis per rank, fewer than the {halo}-plane halo: use at most {max} ranks"
    )]
    TooThin {
        /// Name of the split axis.
        axis: &'static str,
        /// Planes per rank.
        local: usize,
        /// Halo depth in planes.
        halo: usize,
        /// Ranks asked for.
        ranks: usize,
        /// The most ranks this axis allows.
        max: usize,
    },
}

/// How the global lattice follows the rank count.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    /// Strong scaling: the global lattice is fixed; each rank gets a slab of it.
    #[default]
    Strong,
    /// Weak scaling: the lattice per rank is fixed; the split axis grows with the ranks.
    Weak,
}

impl Scaling {
    /// Its name on the command line and in records.
    pub fn name(self) -> &'static str {
        match self {
            Scaling::Strong => "strong",
            Scaling::Weak => "weak",
        }
    }

    /// `strong` or `weak`; anything else is an error naming both.
    pub fn parse(s: &str) -> Result<Scaling, String> {
        match s {
            "strong" => Ok(Scaling::Strong),
            "weak" => Ok(Scaling::Weak),
            _ => Err(format!("`{s}` is not a scaling mode (strong, weak)")),
        }
    }

    /// The global extents for `ranks` ranks of a problem whose size
    /// parameter gives `extents`: as given (strong), or with the slowest
    /// (last) axis multiplied by the rank count (weak).
    pub fn global<const D: usize>(self, extents: [usize; D], ranks: usize) -> [usize; D] {
        let mut g = extents;
        if self == Scaling::Weak && D > 0 {
            g[D - 1] *= ranks;
        }
        g
    }
}

/// A lattice split along its slowest (last) axis into equal slabs, one per
/// rank, each padded with `halo` planes per side for its neighbours' data.
/// Neighbours wrap around (periodic lattices).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decomposition {
    /// Name of the split axis (`z`, `t`).
    pub axis: String,
    /// Global extents, fastest axis first; the last one is split.
    pub global: Vec<usize>,
    /// Ranks.
    pub ranks: usize,
    /// Planes each rank owns along the split axis.
    pub local: usize,
    /// Halo planes per side.
    pub halo: usize,
}

impl Decomposition {
    /// Splits `global` (fastest axis first) along its last axis, named
    /// `axis`, over `ranks` ranks with `halo` halo planes per side.
    pub fn plan(
        axis: &'static str,
        global: &[usize],
        ranks: usize,
        halo: usize,
    ) -> Result<Decomposition, DecompError> {
        if ranks == 0 {
            return Err(DecompError::NoRanks);
        }
        let extent = global.last().copied().unwrap_or(0);
        if extent % ranks != 0 {
            return Err(DecompError::Indivisible {
                axis,
                extent,
                ranks,
            });
        }
        let local = extent / ranks;
        if local < halo.max(1) {
            return Err(DecompError::TooThin {
                axis,
                local,
                halo,
                ranks,
                max: extent / halo.max(1),
            });
        }
        Ok(Decomposition {
            axis: axis.to_string(),
            global: global.to_vec(),
            ranks,
            local,
            halo,
        })
    }

    /// Sites in one plane across the split axis.
    pub fn plane_sites(&self) -> usize {
        self.global[..self.global.len() - 1].iter().product()
    }

    /// Sites a rank owns (halos excluded).
    pub fn owned_sites(&self) -> usize {
        self.plane_sites() * self.local
    }

    /// The owned planes' values of a rank's padded field (logical order,
    /// `reals` values a site): what it contributes to the gathered field.
    pub fn owned<'f>(&self, field: &'f [f64], reals: usize) -> &'f [f64] {
        let plane = self.plane_sites() * reals;
        &field[self.halo * plane..(self.halo + self.local) * plane]
    }

    /// A rank's extents with its halo planes (what it allocates).
    pub fn padded(&self) -> Vec<usize> {
        let mut e = self.global.clone();
        if let Some(last) = e.last_mut() {
            *last = self.local + 2 * self.halo;
        }
        e
    }

    /// The first global plane `rank` owns.
    pub fn first_plane(&self, rank: usize) -> usize {
        rank * self.local
    }

    /// The ranks below and above `rank` along the split axis (periodic).
    pub fn neighbours(&self, rank: usize) -> (usize, usize) {
        (
            (rank + self.ranks - 1) % self.ranks,
            (rank + 1) % self.ranks,
        )
    }

    /// Short label for tables and records, e.g. `z/4 x 8 planes, halo 1`.
    pub fn label(&self) -> String {
        format!(
            "{}/{} x {} planes, halo {}",
            self.axis, self.ranks, self.local, self.halo
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_split_gives_each_rank_a_slab_with_halos() {
        let d = Decomposition::plan("z", &[8, 8, 16], 4, 1).expect("plan");
        assert_eq!(d.local, 4);
        assert_eq!(d.plane_sites(), 64);
        assert_eq!(d.owned_sites(), 256);
        assert_eq!(d.padded(), [8, 8, 6]);
        assert_eq!(d.first_plane(3), 12);
        assert_eq!(d.neighbours(0), (3, 1));
        assert_eq!(d.neighbours(3), (2, 0));
        assert_eq!(d.label(), "z/4 x 4 planes, halo 1");
        let field: Vec<f64> = (0..8 * 8 * 6 * 2).map(f64::from).collect();
        assert_eq!(d.owned(&field, 2), &field[128..640]);
    }

    #[test]
    fn one_rank_is_its_own_neighbour() {
        let d = Decomposition::plan("t", &[4, 4, 4, 8], 1, 1).expect("plan");
        assert_eq!((d.local, d.neighbours(0)), (8, (0, 0)));
        assert_eq!(d.padded(), [4, 4, 4, 10]);
    }

    #[test]
    fn bad_splits_are_typed_errors_that_say_what_to_change() {
        assert_eq!(
            Decomposition::plan("z", &[8, 8, 8], 0, 1),
            Err(DecompError::NoRanks)
        );
        let e = Decomposition::plan("z", &[8, 8, 8], 3, 1).expect_err("3 does not divide 8");
        assert_eq!(
            e,
            DecompError::Indivisible {
                axis: "z",
                extent: 8,
                ranks: 3
            }
        );
        assert!(e.to_string().contains("divides 8"), "{e}");
        let e = Decomposition::plan("z", &[8, 8, 8], 8, 2).expect_err("1 plane < halo 2");
        assert!(
            matches!(
                e,
                DecompError::TooThin {
                    local: 1,
                    max: 4,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("at most 4 ranks"), "{e}");
        // One plane per rank is enough for a one-plane halo.
        assert!(Decomposition::plan("z", &[8, 8, 8], 8, 1).is_ok());
    }

    #[test]
    fn weak_scaling_grows_the_split_axis_only() {
        assert_eq!(Scaling::Weak.global([8, 8, 8], 4), [8, 8, 32]);
        assert_eq!(Scaling::Strong.global([8, 8, 8], 4), [8, 8, 8]);
        assert_eq!(Scaling::parse("weak"), Ok(Scaling::Weak));
        assert!(Scaling::parse("wide").is_err());
    }
}
