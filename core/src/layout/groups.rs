//! A lattice field split by component group over several buffers, for
//! fields larger than one storage binding (`max_storage_buffer_binding_size`
//! is 2 GiB on an H200 and 128 MiB on lavapipe, where device memory holds
//! far more). Each group of consecutive components is stored as a targetDP
//! field of its own, in the same layout over the group's components, in a
//! buffer (and binding) of its own. A kernel that names its components
//! statically (lbm's generated site code) reads each one from a buffer
//! chosen when the kernel is generated, so the split costs no instruction;
//! code whose component is only known at run time (the halo kernels)
//! selects the buffer through a switch.

use std::fmt::Write;

use super::Layout;
use crate::precision::Precision;

/// A field of [`Groups::layout`] split into groups of [`Groups::per`]
/// consecutive components (the last group holds the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Groups {
    /// The whole field's layout.
    pub layout: Layout,
    /// Components of every group but the last.
    pub per: u32,
}

impl Groups {
    /// The field in one buffer.
    pub fn whole(layout: Layout) -> Groups {
        Groups {
            layout,
            per: layout.ncomp,
        }
    }

    /// The fewest groups, as even as the layout's element width allows,
    /// whose buffers each hold at most `max_bytes` and at most 2^32 reals
    /// (kernels index a buffer with u32); `None` when one element of
    /// components alone is too large.
    pub fn fitting(layout: Layout, real_bytes: u64, max_bytes: u64) -> Option<Groups> {
        let w = layout.width;
        let max_reals = (max_bytes / real_bytes).min(1 << 32);
        let per_comp = layout.with_ncomp(w).reals() / u64::from(w);
        let fit = (max_reals / per_comp.max(1)).min(u64::from(layout.ncomp)) as u32 / w * w;
        if fit == 0 {
            return None;
        }
        let count = layout.ncomp.div_ceil(fit);
        let per = layout.ncomp.div_ceil(count).div_ceil(w) * w;
        Some(Groups { layout, per })
    }

    /// Buffers the field takes.
    pub fn count(&self) -> u32 {
        self.layout.ncomp.div_ceil(self.per)
    }

    /// The layout of group `g`'s buffer.
    pub fn group(&self, g: u32) -> Layout {
        let first = g * self.per;
        self.layout
            .with_ncomp(self.per.min(self.layout.ncomp - first))
    }

    /// The group holding component `comp`, and its index there.
    pub fn locate(&self, comp: u32) -> (u32, u32) {
        (comp / self.per, comp % self.per)
    }

    /// Bytes of each group's buffer.
    pub fn bytes(&self, p: Precision) -> Vec<u64> {
        (0..self.count())
            .map(|g| self.group(g).reals() * p.real_bytes())
            .collect()
    }

    /// A field in logical order (site-major, all components a site) laid
    /// out and encoded for upload, one byte vector a group; padding holds
    /// `fill`.
    pub fn encode(&self, p: Precision, logical: &[f64], fill: f64) -> Vec<Vec<u8>> {
        let nc = self.layout.ncomp as usize;
        (0..self.count())
            .map(|g| {
                let part = self.group(g);
                let (first, n) = ((g * self.per) as usize, part.ncomp as usize);
                p.encode_with(part.reals() as usize, |j| {
                    part.source(j)
                        .map_or(fill, |i| logical[(i / n) * nc + first + i % n])
                })
            })
            .collect()
    }

    /// The logical-order field from the groups' bytes (one slice a group),
    /// decoded and gathered in one pass; a missing or short buffer reads as
    /// NaN where it ends.
    pub fn decode(&self, p: Precision, parts: &[&[u8]]) -> Vec<f64> {
        let nc = self.layout.ncomp as usize;
        let width = p.real_bytes() as usize;
        let layouts: Vec<Layout> = (0..self.count()).map(|g| self.group(g)).collect();
        crate::parallel::par_map(self.layout.sites as usize * nc, |i| {
            let (site, comp) = ((i / nc) as u32, (i % nc) as u32);
            let (g, c) = self.locate(comp);
            let at = layouts[g as usize].index(site, c) * width;
            parts
                .get(g as usize)
                .and_then(|b| b.get(at..at + width))
                .map_or(f64::NAN, |c| p.get(c))
        })
    }

    /// WGSL declarations of the field's buffers, `name_0` .. `name_{G-1}`,
    /// at bindings from `first` of group 0, with storage `access` (`read`
    /// or `read_write`). Returns the declarations; the next free binding
    /// is `first + count()`.
    pub fn declare(&self, name: &str, access: &str, first: u32) -> String {
        let mut s = String::new();
        for g in 0..self.count() {
            let _ = writeln!(
                s,
                "@group(0) @binding({}) var<storage, {access}> {name}_{g}: array<RealStore>;",
                first + g
            );
        }
        s
    }

    /// The WGSL reference to component `comp` (known when generating) of
    /// the site the expression `site` gives, in field `name`.
    pub fn at(&self, name: &str, site: &str, comp: u32) -> String {
        let (g, c) = self.locate(comp);
        let n = self.group(g).ncomp;
        format!("{name}_{g}[tdp_index({site}, {c}u, {n}u)]")
    }

    /// WGSL accessors of field `name` for components known only at run
    /// time: `{name}_get(site, comp) -> RealStore` and `{name}_set(site,
    /// comp, value)`.
    pub fn accessors(&self, name: &str) -> String {
        self.accessors_as(name, ["get", "set"], ("RealStore", "tdp_index"), true)
    }

    /// WGSL accessors of field `name` named `{name}_{fns[0]}(site, comp) ->
    /// ty` and (when `writable`) `{name}_{fns[1]}(site, comp, v: ty)`,
    /// reaching each group's buffer through `index` (`tdp_index` a real at
    /// a time, or `tdp_elem` a pair of reals at a time, whose `comp` is
    /// the pair's first real). A whole field needs no switch.
    pub fn accessors_as(
        &self,
        name: &str,
        fns: [&str; 2],
        (ty, index): (&str, &str),
        writable: bool,
    ) -> String {
        let [get_fn, set_fn] = fns;
        let mut get = String::new();
        let mut set = String::new();
        for g in 0..self.count() {
            let n = self.group(g).ncomp;
            let first = match g {
                0 => String::new(),
                g => format!(" - {}u", g * self.per),
            };
            let slot = format!("{name}_{g}[{index}(site, comp{first}, {n}u)]");
            let label = match g + 1 == self.count() {
                true => "default".to_string(),
                false => format!("case {g}u"),
            };
            let _ = writeln!(get, "        {label}: {{ v = {slot}; }}");
            let _ = writeln!(set, "        {label}: {{ {slot} = v; }}");
        }
        let per = self.per;
        let mut s = format!(
            "fn {name}_{get_fn}(site: u32, comp: u32) -> {ty} {{
    var v: {ty};
    switch (comp / {per}u) {{
{get}    }}
    return v;
}}
"
        );
        if writable {
            let _ = write!(
                s,
                "fn {name}_{set_fn}(site: u32, comp: u32, v: {ty}) {{
    switch (comp / {per}u) {{
{set}    }}
}}
"
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::LayoutName;
    use crate::params::Choice;

    #[test]
    fn the_fewest_even_groups_fit_the_binding() {
        // 1000 sites x 19 f32 reals: 4000 bytes a component.
        let l = Layout::new(LayoutName::Soa, 1000, 19);
        assert_eq!(Groups::fitting(l, 4, 76_000).map(|g| g.count()), Some(1));
        // 16,000 bytes hold 4 components: 5 groups, 4,4,4,4,3.
        let g = Groups::fitting(l, 4, 16_000).expect("fits");
        assert_eq!((g.count(), g.per, g.group(4).ncomp), (5, 4, 3));
        assert!(g.bytes(Precision::F32).iter().all(|&b| b <= 16_000));
        // 7 components fit: 3 groups of 7, 7, 5.
        let g = Groups::fitting(l, 4, 28_000).expect("fits");
        assert_eq!((g.count(), g.per, g.group(2).ncomp), (3, 7, 5));
        assert_eq!(Groups::fitting(l, 4, 3_999), None);
        // Pairs of reals stay together.
        let pairs = Layout::new(LayoutName::Aosoa4, 1000, 24).with_width(2);
        let g = Groups::fitting(pairs, 4, 20_000).expect("fits");
        assert_eq!(g.per % 2, 0);
    }

    #[test]
    fn groups_encode_and_decode_every_layout_as_the_whole_field() {
        let logical: Vec<f64> = (0..13 * 19).map(f64::from).collect();
        for &name in LayoutName::ALL {
            let l = Layout::new(name, 13, 19);
            let g = Groups { layout: l, per: 5 };
            let parts = g.encode(Precision::F64, &logical, -1.0);
            assert_eq!(parts.len(), 4);
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            assert_eq!(g.decode(Precision::F64, &refs), logical, "{name}");
            // Component 12 of site 7 is component 2 of group 2.
            let at = g.group(2).index(7, 2) * 8;
            assert_eq!(
                Precision::F64.get(&parts[2][at..at + 8]),
                (7 * 19 + 12) as f64
            );
            // A group missing reads as NaN.
            assert!(g.decode(Precision::F64, &refs[..3])[18].is_nan());
        }
        let whole = Groups::whole(Layout::new(LayoutName::Aos, 13, 19));
        let parts = whole.encode(Precision::F32, &logical, 0.0);
        assert_eq!(
            parts,
            vec![whole.layout.encode(Precision::F32, &logical, 0.0)]
        );
    }

    #[test]
    fn the_wgsl_names_each_group_statically_or_through_a_switch() {
        let g = Groups {
            layout: Layout::new(LayoutName::Soa, 8, 19),
            per: 8,
        };
        assert_eq!(g.at("src", "s", 17), "src_2[tdp_index(s, 1u, 3u)]");
        let decl = g.declare("dst", "read_write", 3);
        assert!(decl.contains("@binding(5) var<storage, read_write> dst_2"));
        let acc = g.accessors("field");
        assert!(acc.contains("case 1u: { v = field_1[tdp_index(site, comp - 8u, 8u)]; }"));
        assert!(acc.contains("case 0u: { v = field_0[tdp_index(site, comp, 8u)]; }"));
        assert!(acc.contains("default: { field_2[tdp_index(site, comp - 16u, 3u)] = v; }"));
    }
}
