//! Domain decomposition of a lattice over ranks: pure planning, no device
//! and no communication, so every rank computes the same plan and rank 0
//! can refuse a bad one before any rank allocates.

use serde::{Deserialize, Serialize};

pub use crate::error::{DecompError, NoGrid};

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

/// The most square grid of `ranks`: (along the slowest axis, along the
/// second), with the larger part along the slowest.
pub fn square_grid(ranks: usize) -> [usize; 2] {
    let r2 = (1..=ranks)
        .filter(|r| ranks.is_multiple_of(*r) && r * r <= ranks)
        .max()
        .unwrap_or(1);
    [ranks / r2.max(1), r2]
}

/// A lattice split along its slowest (last) axis into equal slabs, one per
/// rank, each padded with `halo` planes per side for its neighbours' data;
/// or, with `second`, over a grid of ranks along its two slowest axes, each
/// rank's box padded along both. Neighbours wrap around (periodic
/// lattices). Ranks are numbered along the second axis fastest, so a slab
/// split numbers them along the slowest axis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decomposition {
    /// Name of the slowest split axis (`z`, `t`).
    pub axis: String,
    /// Global extents, fastest axis first; the last one is split.
    pub global: Vec<usize>,
    /// Ranks.
    pub ranks: usize,
    /// Planes each rank owns along the slowest axis.
    pub local: usize,
    /// Halo planes per side.
    pub halo: usize,
    /// The next slowest axis, when it is split too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<SecondAxis>,
}

/// The planes across one split axis of a rank's padded field: plane `k`'s
/// `i`-th site is `i % inner + inner * (k + extent * (i / inner))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Along {
    /// Sites of the faster axes (padded).
    pub inner: usize,
    /// Padded extent of the axis.
    pub extent: usize,
    /// Sites in one plane.
    pub plane: usize,
    /// Planes a rank owns along it.
    pub owned: usize,
}

/// The second split axis of a grid decomposition (the one before the last).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondAxis {
    /// Its name (`y`, `z`).
    pub axis: String,
    /// Ranks along it.
    pub ranks: usize,
    /// Planes each rank owns along it.
    pub local: usize,
}

/// Checks that `ranks` split an axis of `extent` sites into parts of at
/// least `halo` planes; gives the planes per rank.
fn split_axis(
    axis: &'static str,
    extent: usize,
    ranks: usize,
    halo: usize,
) -> Result<usize, DecompError> {
    if ranks == 0 {
        return Err(DecompError::NoRanks);
    }
    if !extent.is_multiple_of(ranks) {
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
    Ok(local)
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
        let extent = global.last().copied().unwrap_or(0);
        let local = split_axis(axis, extent, ranks, halo)?;
        Ok(Decomposition {
            axis: axis.to_string(),
            global: global.to_vec(),
            ranks,
            local,
            halo,
            second: None,
        })
    }

    /// The split of a problem of `extents` (fastest axis first) over
    /// `ranks` ranks, along its slowest axis (`axes` 1) or over a grid
    /// along its two slowest (`axes` 2), named `names` (the second slowest,
    /// the slowest), the lattice growing with the ranks as `scaling` says
    /// (weak scaling grows each split axis by its ranks).
    pub fn for_problem<const D: usize>(
        names: [&'static str; 2],
        extents: [usize; D],
        ranks: usize,
        halo: usize,
        scaling: Scaling,
        axes: usize,
    ) -> Result<Decomposition, DecompError> {
        if axes < 2 || D < 2 {
            return Decomposition::plan(names[1], &scaling.global(extents, ranks), ranks, halo);
        }
        let mut global = extents;
        if scaling == Scaling::Weak {
            let [r1, r2] = square_grid(ranks);
            global[D - 1] *= r1;
            global[D - 2] *= r2;
        }
        Decomposition::plan_grid(names, &global, ranks, halo)
    }

    /// Splits `global` over a grid of `ranks` along its two slowest axes,
    /// named `names` (the second slowest, the slowest): as square a grid as
    /// divides both (more ranks along the slowest axis when it cannot be
    /// square), which keeps the halos, and so the swap, smallest. A grid
    /// of one rank along the second axis is a slab split.
    pub fn plan_grid(
        names: [&'static str; 2],
        global: &[usize],
        ranks: usize,
        halo: usize,
    ) -> Result<Decomposition, DecompError> {
        let n = global.len();
        if ranks == 0 {
            return Err(DecompError::NoRanks);
        }
        if n < 2 {
            return Decomposition::plan(names[1], global, ranks, halo);
        }
        let (e2, e1) = (global[n - 2], global[n - 1]);
        let second = (1..=ranks)
            .rev()
            .filter(|r| ranks.is_multiple_of(*r) && r * r <= ranks);
        for r2 in second {
            let (Ok(l1), Ok(l2)) = (
                split_axis(names[1], e1, ranks / r2, halo),
                split_axis(names[0], e2, r2, halo),
            ) else {
                continue;
            };
            return Ok(Decomposition {
                axis: names[1].to_string(),
                global: global.to_vec(),
                ranks,
                local: l1,
                halo,
                second: (r2 > 1).then(|| SecondAxis {
                    axis: names[0].to_string(),
                    ranks: r2,
                    local: l2,
                }),
            });
        }
        Err(NoGrid {
            ranks,
            second: names[0],
            slowest: names[1],
            extents: [e2, e1],
            halo,
        }
        .into())
    }

    /// Ranks along the slowest axis and along the second (1 for a slab split).
    pub fn grid(&self) -> [usize; 2] {
        let r2 = self.second.as_ref().map_or(1, |s| s.ranks);
        [self.ranks / r2, r2]
    }

    /// Split axes: 1 (slabs) or 2 (a grid).
    pub fn split_axes(&self) -> usize {
        1 + usize::from(self.second.is_some())
    }

    /// Extents of a rank's padded field as (inner, second, slowest): sites
    /// of the axes below the second, then the padded second and slowest
    /// axes.
    pub(super) fn padded3(&self) -> [usize; 3] {
        let n = self.global.len();
        let inner = self.global[..n.saturating_sub(2)].iter().product();
        let second = match (&self.second, n) {
            (_, 0 | 1) => 1,
            (Some(s), _) => s.local + 2 * self.halo,
            (None, _) => self.global[n - 2],
        };
        [inner, second, self.local + 2 * self.halo]
    }

    /// Global extents as (inner, second, slowest), as [`Self::padded3`].
    pub(super) fn global3(&self) -> [usize; 3] {
        let n = self.global.len();
        let inner = self.global[..n.saturating_sub(2)].iter().product();
        let second = if n >= 2 { self.global[n - 2] } else { 1 };
        [inner, second, self.global[n - 1]]
    }

    /// How the planes across split axis `axis` (0: the slowest, 1: the
    /// second) lie in a rank's padded field.
    pub fn along(&self, axis: usize) -> Along {
        let [inner, p2, p1] = self.padded3();
        match (axis, &self.second) {
            (1, Some(s)) => Along {
                inner,
                extent: p2,
                plane: inner * p1,
                owned: s.local,
            },
            _ => Along {
                inner: inner * p2,
                extent: p1,
                plane: inner * p2,
                owned: self.local,
            },
        }
    }

    /// Sites in one plane of a rank's padded field across the slowest axis.
    pub fn plane_sites(&self) -> usize {
        let [inner, second, _] = self.padded3();
        inner * second
    }

    /// Sites of a rank's padded field.
    pub fn padded_sites(&self) -> usize {
        self.padded3().iter().product()
    }

    /// Sites a rank owns (halos excluded).
    pub fn owned_sites(&self) -> usize {
        let l2 = self.second.as_ref().map_or(self.global3()[1], |s| s.local);
        self.global3()[0] * l2 * self.local
    }

    /// A rank's place in the grid: (along the slowest axis, along the second).
    pub fn coords(&self, rank: usize) -> [usize; 2] {
        let r2 = self.grid()[1];
        [rank / r2, rank % r2]
    }

    /// A rank's extents with its halo planes (what it allocates).
    pub fn padded(&self) -> Vec<usize> {
        let mut e = self.global.clone();
        let n = e.len();
        if let Some(s) = &self.second {
            e[n - 2] = s.local + 2 * self.halo;
        }
        if let Some(last) = e.last_mut() {
            *last = self.local + 2 * self.halo;
        }
        e
    }

    /// The first global plane `rank` owns along the slowest axis.
    pub fn first_plane(&self, rank: usize) -> usize {
        self.coords(rank)[0] * self.local
    }

    /// The ranks below and above `rank` along the slowest axis (periodic).
    pub fn neighbours(&self, rank: usize) -> (usize, usize) {
        self.neighbours_along(rank, 0)
    }

    /// The ranks below and above `rank` along split axis `axis` (0: the
    /// slowest, 1: the second), periodic.
    pub fn neighbours_along(&self, rank: usize, axis: usize) -> (usize, usize) {
        let grid = self.grid();
        let [c1, c2] = self.coords(rank);
        let at = |c1: usize, c2: usize| c1 * grid[1] + c2;
        match axis {
            0 => (
                at((c1 + grid[0] - 1) % grid[0], c2),
                at((c1 + 1) % grid[0], c2),
            ),
            _ => (
                at(c1, (c2 + grid[1] - 1) % grid[1]),
                at(c1, (c2 + 1) % grid[1]),
            ),
        }
    }

    /// Short label for tables and records, e.g. `z/4 x 8 planes, halo 1`
    /// or `y,z/2x2 x 8x8 planes, halo 1`.
    pub fn label(&self) -> String {
        match &self.second {
            None => format!(
                "{}/{} x {} planes, halo {}",
                self.axis, self.ranks, self.local, self.halo
            ),
            Some(s) => format!(
                "{},{}/{}x{} x {}x{} planes, halo {}",
                s.axis,
                self.axis,
                s.ranks,
                self.grid()[0],
                s.local,
                self.local,
                self.halo
            ),
        }
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
        assert_eq!(d.split_axes(), 1);
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
    fn a_grid_is_as_square_as_the_extents_allow() {
        let d = Decomposition::plan_grid(["y", "z"], &[4, 8, 8], 4, 1).expect("2x2");
        assert_eq!(d.grid(), [2, 2]);
        assert_eq!((d.local, d.second.as_ref().map(|s| s.local)), (4, Some(4)));
        assert_eq!(d.padded(), [4, 6, 6]);
        assert_eq!(
            (d.plane_sites(), d.padded_sites(), d.owned_sites()),
            (24, 144, 64)
        );
        assert_eq!(d.label(), "y,z/2x2 x 4x4 planes, halo 1");
        // 8 ranks: 4 along the slowest axis, 2 along the second.
        let d = Decomposition::plan_grid(["y", "z"], &[4, 8, 8], 8, 1).expect("4x2");
        assert_eq!(d.grid(), [4, 2]);
        // 2 ranks make no square: a slab split.
        let d = Decomposition::plan_grid(["y", "z"], &[4, 8, 8], 2, 1).expect("slabs");
        assert_eq!((d.grid(), d.split_axes()), ([2, 1], 1));
        // Neither 2 nor 4 ranks fit an axis of 3 sites with a halo of 2.
        let e = Decomposition::plan_grid(["y", "z"], &[4, 3, 3], 4, 2).expect_err("no grid");
        assert!(e.to_string().contains("no grid of 4 ranks"), "{e}");
    }

    #[test]
    fn planes_across_either_axis_are_strided_runs() {
        let d = Decomposition::plan_grid(["y", "z"], &[3, 4, 6], 4, 1).expect("grid");
        // Padded 3 x 4 x 5: across z, whole planes of 12; across y, rows of
        // 3 in each of the 5 planes.
        assert_eq!(
            d.along(0),
            Along {
                inner: 12,
                extent: 5,
                plane: 12,
                owned: 3
            }
        );
        assert_eq!(
            d.along(1),
            Along {
                inner: 3,
                extent: 4,
                plane: 15,
                owned: 2
            }
        );
        let slabs = Decomposition::plan("z", &[3, 4, 6], 2, 1).expect("slabs");
        assert_eq!(
            slabs.along(0),
            Along {
                inner: 12,
                extent: 5,
                plane: 12,
                owned: 3
            }
        );
    }

    #[test]
    fn grid_neighbours_wrap_along_each_axis() {
        let d = Decomposition::plan_grid(["y", "z"], &[2, 6, 9], 6, 1).expect("3x2");
        assert_eq!(d.grid(), [3, 2]);
        // Rank 3 is at (1, 1): ranks 1 and 5 along z, 2 and 2 along y.
        assert_eq!(d.coords(3), [1, 1]);
        assert_eq!(d.neighbours_along(3, 0), (1, 5));
        assert_eq!(d.neighbours_along(3, 1), (2, 2));
        assert_eq!(d.neighbours(0), (4, 2));
    }

    #[test]
    fn weak_scaling_on_a_grid_grows_both_split_axes() {
        assert_eq!(square_grid(8), [4, 2]);
        assert_eq!(square_grid(9), [3, 3]);
        assert_eq!(square_grid(7), [7, 1]);
        let d = Decomposition::for_problem(["y", "z"], [4, 4, 4], 8, 1, Scaling::Weak, 2)
            .expect("weak grid");
        assert_eq!((d.global.clone(), d.grid()), (vec![4, 8, 16], [4, 2]));
        assert_eq!((d.local, d.second.expect("grid").local), (4, 4));
        let d = Decomposition::for_problem(["y", "z"], [4, 4, 4], 8, 1, Scaling::Weak, 1)
            .expect("weak slabs");
        assert_eq!((d.global, d.local), (vec![4, 4, 32], 4));
    }

    #[test]
    fn weak_scaling_grows_the_split_axis_only() {
        assert_eq!(Scaling::Weak.global([8, 8, 8], 4), [8, 8, 32]);
        assert_eq!(Scaling::Strong.global([8, 8, 8], 4), [8, 8, 8]);
        assert_eq!(Scaling::parse("weak"), Ok(Scaling::Weak));
        assert!(Scaling::parse("wide").is_err());
    }
}
