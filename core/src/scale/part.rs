//! The sites a kernel is dispatched over: a whole lattice, or the interior
//! or boundary planes of a rank's slab. A rank updates its interior while
//! its halos travel and its boundary (the planes that read the halos) once
//! they have arrived, so the swap hides behind the interior's update
//! (`exec`'s [`Op::Swap`](super::exec::Op::Swap) with work `during` it).

use super::Decomposition;
use crate::shader::{ShaderSpec, sources};

/// `count` sites: `split` from `first`, then the rest `gap` sites further
/// on (a slab's two boundary runs). `shaders/common/part.wgsl` maps an
/// index of the part to its site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Part {
    /// The first site.
    pub first: u32,
    /// Sites in the first run.
    pub split: u32,
    /// Sites skipped after the first run.
    pub gap: u32,
    /// Sites in all.
    pub count: u32,
}

impl Part {
    /// Every one of `sites` sites.
    pub fn all(sites: u32) -> Part {
        Part::run(0, sites)
    }

    /// `count` consecutive sites from `first`.
    fn run(first: u32, count: u32) -> Part {
        Part {
            first,
            split: count,
            gap: 0,
            count,
        }
    }

    /// `spec` with the part's constants and `part_site`.
    pub fn apply(self, spec: ShaderSpec) -> ShaderSpec {
        spec.with_u32("PART_FIRST", self.first)
            .with_u32("PART_SPLIT", self.split)
            .with_u32("PART_GAP", self.gap)
            .with_u32("PART_COUNT", self.count)
            .with_include(sources::PART)
    }

    /// The sites in order (for tests and host-side checks).
    pub fn sites(self) -> impl Iterator<Item = u32> {
        (0..self.count).map(move |i| self.first + i + if i >= self.split { self.gap } else { 0 })
    }
}

impl Decomposition {
    /// A rank's owned planes that read no halo plane (a kernel reaching
    /// `halo` planes), as sites of its padded slab; `None` when every owned
    /// plane is within reach of a halo.
    pub fn interior(&self) -> Option<Part> {
        let (p, h) = (self.plane_sites() as u32, self.halo as u32);
        let local = self.local as u32;
        (local > 2 * h).then(|| Part::run(2 * h * p, (local - 2 * h) * p))
    }

    /// A rank's owned planes within reach of a halo plane: the lowest and
    /// highest `halo` owned planes (all of them on a thin slab).
    pub fn boundary(&self) -> Part {
        let (p, h) = (self.plane_sites() as u32, self.halo as u32);
        let local = self.local as u32;
        if local <= 2 * h {
            return Part::run(h * p, local * p);
        }
        Part {
            first: h * p,
            split: h * p,
            gap: (local - 2 * h) * p,
            count: 2 * h * p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_and_boundary_cover_the_owned_planes_once() {
        for (ranks, halo) in [(1, 1), (2, 1), (4, 1), (8, 1), (2, 2), (4, 2)] {
            let d = Decomposition::plan("z", &[3, 2, 8], ranks, halo).expect("plan");
            let mut sites: Vec<u32> = d.boundary().sites().collect();
            sites.extend(d.interior().into_iter().flat_map(Part::sites));
            sites.sort_unstable();
            let p = d.plane_sites() as u32;
            let owned: Vec<u32> = (halo as u32 * p..(halo + d.local) as u32 * p).collect();
            assert_eq!(sites, owned, "{ranks} ranks, halo {halo}");
        }
    }

    #[test]
    fn the_boundary_is_the_planes_next_to_the_halos() {
        let d = Decomposition::plan("z", &[2, 2, 8], 2, 1).expect("plan");
        // Padded planes 0 and 5 are halos; 1 and 4 read them.
        let b: Vec<u32> = d.boundary().sites().collect();
        assert_eq!(b, [4, 5, 6, 7, 16, 17, 18, 19]);
        let i: Vec<u32> = d.interior().expect("interior").sites().collect();
        assert_eq!(i, (8..16).collect::<Vec<_>>());
        // One plane per rank: all boundary, no interior.
        let thin = Decomposition::plan("z", &[2, 2, 8], 8, 1).expect("plan");
        assert_eq!(thin.interior(), None);
        assert_eq!(thin.boundary().sites().collect::<Vec<_>>(), [4, 5, 6, 7]);
        assert_eq!(Part::all(5).sites().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    }
}
