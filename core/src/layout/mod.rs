//! targetDP's data layouts for lattice fields (AoS, SoA, AoSoA with a short
//! array length SAL) and its virtual vector length (sites per invocation),
//! shared by the lattice apps. The host side mirrors the shader's
//! `tdp_index` (`shaders/common/targetdp.wgsl`) so uploads and readbacks go
//! through the same function the kernels use.

use crate::app::{ParamKind, ParamSpec};
use crate::choice;
use crate::params::Choice;
use crate::precision::Precision;
use crate::shader::ShaderSpec;

mod groups;
pub use groups::Groups;

/// Every layout as one comma list: the layout sweep.
pub const ALL_LAYOUTS: &str = "aos,soa,aosoa-2,aosoa-4,aosoa-8,aosoa-16,aosoa-32";

choice! {
    /// Layout names a user can pick; `aosoa-N` is AoSoA with SAL = N.
    pub enum LayoutName("layout") {
        /// Array of structures: a site's components together.
        Aos = "aos",
        /// Structure of arrays: each component contiguous over the sites.
        Soa = "soa",
        /// Blocks of 2 sites.
        Aosoa2 = "aosoa-2",
        /// Blocks of 4 sites.
        Aosoa4 = "aosoa-4",
        /// Blocks of 8 sites.
        Aosoa8 = "aosoa-8",
        /// Blocks of 16 sites.
        Aosoa16 = "aosoa-16",
        /// Blocks of 32 sites.
        Aosoa32 = "aosoa-32",
    }
}

impl LayoutName {
    /// The short-array length over `sites` sites.
    pub fn sal(self, sites: u32) -> u32 {
        match self {
            LayoutName::Aos => 1,
            LayoutName::Soa => sites,
            LayoutName::Aosoa2 => 2,
            LayoutName::Aosoa4 => 4,
            LayoutName::Aosoa8 => 8,
            LayoutName::Aosoa16 => 16,
            LayoutName::Aosoa32 => 32,
        }
    }
}

/// The layout x vector length study of `skylight sweep` for a lattice app:
/// every layout, every vector length.
pub fn sweep_defaults() -> Vec<(&'static str, &'static str)> {
    vec![("layout", ALL_LAYOUTS), ("vvl", "1,2,4,8")]
}

/// WGSL of `tdp_index`, included by every lattice kernel.
pub const INDEX_WGSL: &str = include_str!("../../../shaders/common/targetdp.wgsl");

/// The `layout` parameter of a lattice app.
pub fn layout_param(default: &'static str) -> ParamSpec {
    ParamSpec {
        name: "layout",
        help: "field layout: aos, soa, or aosoa-SAL (blocks of SAL sites); a comma list sweeps",
        kind: ParamKind::Choice(LayoutName::NAMES),
        default,
    }
}

/// The `vvl` parameter: targetDP's virtual vector length.
pub fn vvl_param() -> ParamSpec {
    ParamSpec {
        name: "vvl",
        help: "virtual vector length: consecutive sites per invocation (1, 2, 4, 8); a comma list sweeps",
        kind: ParamKind::UInt { min: 1, max: 8 },
        default: "1",
    }
}

/// A field layout over `sites` lattice sites of `ncomp` reals each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Short-array length: 1 for AoS, `sites` for SoA.
    pub sal: u32,
    /// Lattice sites.
    pub sites: u32,
    /// Reals per site.
    pub ncomp: u32,
    /// Reals laid out side by side as one element of the short arrays: 1
    /// (targetDP's layouts, real by real), or 2 (a complex number's parts
    /// adjacent, so a kernel moves it as one vector, as CUDA codes store
    /// `float2`). With 1 or in AoS the two agree.
    pub width: u32,
}

impl Layout {
    /// The layout `name` of a field of `sites` x `ncomp` reals, real by real.
    pub fn new(name: LayoutName, sites: u32, ncomp: u32) -> Layout {
        Layout {
            sal: name.sal(sites),
            sites,
            ncomp,
            width: 1,
        }
    }

    /// The same layout with `width` reals to an element (`ncomp` must be a
    /// multiple of it).
    pub fn with_width(self, width: u32) -> Layout {
        debug_assert!(self.ncomp.is_multiple_of(width));
        Layout { width, ..self }
    }

    /// The same layout over a field of `ncomp` reals a site.
    pub fn with_ncomp(self, ncomp: u32) -> Layout {
        Layout { ncomp, ..self }
    }

    /// Reals the field occupies (the last AoSoA block is padded to SAL sites).
    pub fn reals(&self) -> u64 {
        u64::from(self.sites.div_ceil(self.sal)) * u64::from(self.sal) * u64::from(self.ncomp)
    }

    /// The shader's `tdp_index`.
    pub fn index(&self, site: u32, comp: u32) -> usize {
        let (sal, w) = (self.sal as usize, self.width as usize);
        let (s, c, elems) = (
            site as usize,
            comp as usize,
            (self.ncomp / self.width) as usize,
        );
        (((s / sal) * elems + c / w) * sal + s % sal) * w + c % w
    }

    /// The logical-order position (site-major, `ncomp` per site) of buffer
    /// slot `j`, `None` for padding: the inverse of [`Layout::index`], so
    /// a field is laid out by gathering, in parallel.
    fn source(&self, j: usize) -> Option<usize> {
        let (sal, w, nc) = (self.sal as usize, self.width as usize, self.ncomp as usize);
        let (e, part) = (j / w, j % w);
        let elems = nc / w;
        let (block, rest) = (e / (elems * sal), e % (elems * sal));
        let site = block * sal + rest % sal;
        (site < self.sites as usize).then(|| site * nc + (rest / sal) * w + part)
    }

    /// A field in logical order (site-major, `ncomp` per site) laid out
    /// and encoded for upload in one pass; padding holds `fill`.
    pub fn encode(&self, p: Precision, logical: &[f64], fill: f64) -> Vec<u8> {
        p.encode_with(self.reals() as usize, |j| {
            self.source(j).map_or(fill, |i| logical[i])
        })
    }

    /// The logical-order field from a buffer's bytes, decoded and gathered
    /// in one pass (a buffer too short for the layout reads as NaN where
    /// it ends).
    pub fn decode(&self, p: Precision, bytes: &[u8]) -> Vec<f64> {
        let nc = self.ncomp as usize;
        let width = p.real_bytes() as usize;
        crate::parallel::par_map(self.sites as usize * nc, |i| {
            let at = self.index((i / nc) as u32, (i % nc) as u32) * width;
            bytes.get(at..at + width).map_or(f64::NAN, |c| p.get(c))
        })
    }

    /// Adds the `SAL` and `ELEM` (`width`) constants and the index
    /// functions to a kernel.
    pub fn apply(&self, spec: ShaderSpec) -> ShaderSpec {
        spec.with_u32("SAL", self.sal)
            .with_u32("ELEM", self.width)
            .with_include(INDEX_WGSL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_families_index_as_targetdp_does() {
        let aos = Layout::new(LayoutName::Aos, 10, 3);
        assert_eq!(aos.index(4, 2), 14);
        let soa = Layout::new(LayoutName::Soa, 10, 3);
        assert_eq!(soa.index(4, 2), 24);
        let a4 = Layout::new(LayoutName::Aosoa4, 10, 3);
        // Site 5 is lane 1 of block 1; block 1 starts after 4 x 3 reals.
        assert_eq!(a4.index(5, 2), 12 + 2 * 4 + 1);
        assert_eq!(a4.reals(), 12 * 3);
        assert!(LayoutName::parse("aosoa-3").is_err());
        assert!(LayoutName::parse("soaa").is_err());
    }

    #[test]
    fn the_sweep_covers_every_layout() {
        assert_eq!(sweep_defaults()[0].1, LayoutName::NAMES.join(","));
    }

    #[test]
    fn the_sweep_list_names_every_layout() {
        assert_eq!(ALL_LAYOUTS, LayoutName::NAMES.join(","));
    }

    #[test]
    fn encode_and_decode_are_inverse_and_every_slot_is_distinct() {
        let logical: Vec<f64> = (0..13 * 19).map(f64::from).collect();
        for &name in LayoutName::ALL {
            for (ncomp, width) in [(19, 1), (18, 2)] {
                let logical = &logical[..13 * ncomp as usize];
                let l = Layout::new(name, 13, ncomp).with_width(width);
                let bytes = l.encode(Precision::F64, logical, -1.0);
                let raw = Precision::F64.decode(&bytes);
                let written = raw.iter().filter(|v| **v >= 0.0).count();
                assert_eq!(
                    written,
                    logical.len(),
                    "{name}/{width}: two sites share a slot"
                );
                assert_eq!(l.decode(Precision::F64, &bytes), logical, "{name}/{width}");
            }
        }
    }

    #[test]
    fn pairs_keep_a_complex_together_and_agree_with_reals_in_aos() {
        let soa = Layout::new(LayoutName::Soa, 10, 4).with_width(2);
        // Complex 1 of site 3: after complex 0 of all 10 sites, 3 pairs in.
        assert_eq!(soa.index(3, 2), 20 + 6);
        assert_eq!(soa.index(3, 3), 20 + 7);
        let a4 = Layout::new(LayoutName::Aosoa4, 10, 4).with_width(2);
        // Site 5 is lane 1 of block 1 (16 reals a block); complex 1 of it.
        assert_eq!(a4.index(5, 3), 16 + 8 + 2 + 1);
        let (aos, aos2) = (
            Layout::new(LayoutName::Aos, 10, 4),
            Layout::new(LayoutName::Aos, 10, 4).with_width(2),
        );
        for site in 0..10 {
            for c in 0..4 {
                assert_eq!(aos.index(site, c), aos2.index(site, c));
            }
        }
    }
}
