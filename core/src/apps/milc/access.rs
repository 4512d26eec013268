//! The WGSL that declares a module's bindings and reaches its fields:
//! typed accessors (colour vectors, spinors, half spinors, links) through
//! targetDP's `tdp_index`, or `tdp_elem` a complex at a time, and real
//! accessors for kernels that treat every real alike; a field split over
//! buffers (`Build::groups`) is reached through a switch over its groups.

use std::fmt::Write;

use super::codegen::{Build, Field, Module};
use crate::gpu::Bind;
use crate::layout::Groups;

/// The module's binding declarations, from its table and `b`'s split: a
/// field read through typed accessors is an array of complex pairs when the
/// layout keeps a complex together (width 2), of reals otherwise; a field
/// split over buffers is declared as `{name}_0`, `{name}_1`, ... at
/// consecutive bindings; the one uniform, `op`, is the `Op` struct its
/// module defines.
pub fn bindings(m: &Module, b: &Build) -> String {
    let mut s = String::new();
    let mut binding = 0;
    for &(name, field, bind) in m.binds {
        let typed = !matches!(field, Field::Plain | Field::SpinorReals | Field::HalfReals);
        let elem = match typed && b.layout.width == 2 {
            true => "ComplexStore",
            false => "RealStore",
        };
        let count = b.count(field);
        for g in 0..count {
            let var = match count {
                1 => name.to_string(),
                _ => format!("{name}_{g}"),
            };
            let decl = match bind {
                Bind::Read => format!("var<storage, read> {var}: array<{elem}>"),
                Bind::ReadWrite => format!("var<storage, read_write> {var}: array<{elem}>"),
                Bind::Uniform => format!("var<uniform> {var}: Op"),
            };
            let _ = writeln!(s, "@group(0) @binding({binding}) {decl};");
            binding += 1;
        }
    }
    s
}

/// How generated code reaches the reals of a field bound as `name` split as
/// `g`: `read(comp)` an expression, `write(comp, value)` a statement, for
/// the site `site` (a pair of reals a time, `comp` its first, where the
/// layout keeps them together). A whole field is indexed in place; a split
/// one through the switch of [`Groups::accessors_as`], whose functions
/// `access_fns` returns.
struct Access<'a> {
    name: &'a str,
    g: &'a Groups,
}

impl Access<'_> {
    fn pairs(&self) -> bool {
        self.g.layout.width == 2
    }

    fn split(&self) -> bool {
        self.g.count() > 1
    }

    fn slot(&self, comp: &str) -> String {
        let (name, nc) = (self.name, self.g.layout.ncomp);
        match self.pairs() {
            true => format!("{name}[tdp_elem(site, {comp}, {nc}u)]"),
            false => format!("{name}[tdp_index(site, {comp}, {nc}u)]"),
        }
    }

    fn read(&self, comp: &str) -> String {
        match self.split() {
            true => format!("{}_ld(site, {comp})", self.name),
            false => self.slot(comp),
        }
    }

    fn write(&self, comp: &str, value: &str) -> String {
        match self.split() {
            true => format!("    {}_st(site, {comp}, {value});\n", self.name),
            false => format!("    {} = {value};\n", self.slot(comp)),
        }
    }

    /// The switch functions of a split field (none for a whole one).
    fn access_fns(&self, writable: bool) -> String {
        let ty = match self.pairs() {
            true => ("ComplexStore", "tdp_elem"),
            false => ("RealStore", "tdp_index"),
        };
        match self.split() {
            true => self.g.accessors_as(self.name, ["ld", "st"], ty, writable),
            false => String::new(),
        }
    }
}

/// `{name}_ld(site, k)` and (when `writable`) `{name}_st(site, k, v)` of a
/// field bound as reals (`k` its real, whatever the layout's width).
fn real_accessors(name: &str, g: &Groups, writable: bool) -> String {
    if g.count() > 1 {
        return g.accessors_as(name, ["ld", "st"], ("RealStore", "tdp_index"), writable);
    }
    let nc = g.layout.ncomp;
    let mut s = format!(
        "fn {name}_ld(site: u32, k: u32) -> RealStore {{ return {name}[tdp_index(site, k, {nc}u)]; }}\n"
    );
    if writable {
        let _ = writeln!(
            s,
            "fn {name}_st(site: u32, k: u32, v: RealStore) {{ {name}[tdp_index(site, k, {nc}u)] = v; }}"
        );
    }
    s
}

/// Getters (and setters when `writable`) of colour vectors, spinors, half
/// spinors or links of the field bound as `name` and split as `g`, through
/// `tdp_index`, or `tdp_elem` a complex at a time where the layout keeps
/// its parts together (width 2); a field bound as reals gets
/// `{name}_ld`/`{name}_st` only.
pub fn accessors(name: &str, g: &Groups, field: Field, writable: bool) -> String {
    if matches!(field, Field::SpinorReals | Field::HalfReals) {
        return real_accessors(name, g, writable);
    }
    if let Some(s) = by_direction(name, g, field, writable) {
        return s;
    }
    let a = Access { name, g };
    let mut s = a.access_fns(writable);
    // Complex `j` (0..3) of the colour vector at `base`: (getter, setter of `v`).
    let complex = |j: u32| -> (String, String) {
        let off = |k: u32| match k {
            0 => "base".to_string(),
            k => format!("base + {k}u"),
        };
        let part = ["c0", "c1", "c2"][j as usize];
        if a.pairs() {
            let at = off(2 * j);
            (
                format!("c_unpack({})", a.read(&at)),
                a.write(&at, &format!("c_pack(v.{part})")),
            )
        } else {
            let (re, im) = (off(2 * j), off(2 * j + 1));
            (
                format!("c_load({}, {})", a.read(&re), a.read(&im)),
                a.write(&re, &format!("r_store(v.{part}.re)"))
                    + &a.write(&im, &format!("r_store(v.{part}.im)")),
            )
        }
    };
    let (gets, sets): (Vec<String>, Vec<String>) = (0..3).map(complex).unzip();
    let _ = writeln!(
        s,
        "fn {name}_v3(site: u32, base: u32) -> Vec3 {{\n    return Vec3({});\n}}",
        gets.join(", ")
    );
    if writable {
        let _ = write!(
            s,
            "fn {name}_set_v3(site: u32, base: u32, v: Vec3) {{\n{}}}\n",
            sets.concat()
        );
    }
    let (ty, args, parts, stride) = match field {
        Field::Spinor => ("Spinor", "", 4, None),
        Field::Half => ("Half", ", mu: u32", 2, Some(12)),
        Field::LinkRows => ("Mat3", ", mu: u32", 2, Some(12)),
        _ => ("Mat3", ", mu: u32", 3, Some(18)),
    };
    let fname = match field {
        Field::Spinor => "spinor",
        Field::Half => "half",
        _ => "link",
    };
    let base = |i: usize| match stride {
        Some(st) => format!("{st}u * mu + {}u", 6 * i),
        None => format!("{}u", 6 * i),
    };
    let gets: Vec<String> = (0..parts)
        .map(|i| format!("{name}_v3(site, {})", base(i)))
        .collect();
    if field == Field::LinkRows {
        let _ = writeln!(
            s,
            "fn {name}_{fname}(site: u32{args}) -> {ty} {{\n    let r0 = {};\n    let r1 = {};\n    return Mat3(r0, r1, su3_third_row(r0, r1));\n}}",
            gets[0], gets[1]
        );
        return s;
    }
    let _ = writeln!(
        s,
        "fn {name}_{fname}(site: u32{args}) -> {ty} {{\n    return {ty}({});\n}}",
        gets.join(", ")
    );
    if writable && !matches!(field, Field::Links | Field::LinkRows) {
        let members = if field == Field::Spinor {
            &["s0", "s1", "s2", "s3"][..]
        } else {
            &["h0", "h1"][..]
        };
        let _ = writeln!(s, "fn {name}_set_{fname}(site: u32{args}, v: {ty}) {{");
        for (i, m) in members.iter().enumerate() {
            let _ = writeln!(s, "    {name}_set_v3(site, {}, v.{m});", base(i));
        }
        s.push_str("}\n");
    }
    s
}

/// Accessors of a split link or half-spinor field whose every group holds
/// whole directions (links split one direction a buffer, as at 64^3 x 128
/// on an H200): each group's buffer gets the accessors of a whole field,
/// and one switch over `mu` a link or half spinor picks the group, where
/// the real-at-a-time accessors switch once a real (18 a link): the CG
/// 4.5% faster at 64^3 x 128 on an H200 (docs/notebook/benchmarks.md,
/// 2026-11-29 x). `None` when the field is whole or a group boundary cuts
/// a direction.
fn by_direction(name: &str, g: &Groups, field: Field, writable: bool) -> Option<String> {
    let (stride, fname, ty) = match field {
        Field::Links => (18, "link", "Mat3"),
        Field::LinkRows => (12, "link", "Mat3"),
        Field::Half => (12, "half", "Half"),
        _ => return None,
    };
    if g.count() < 2 || !g.per.is_multiple_of(stride) {
        return None;
    }
    let dirs = g.per / stride;
    let mut s = String::new();
    let (mut get, mut set) = (String::new(), String::new());
    for k in 0..g.count() {
        let part = format!("{name}_{k}");
        s.push_str(&accessors(
            &part,
            &Groups::whole(g.group(k)),
            field,
            writable,
        ));
        let label = match k + 1 == g.count() {
            true => "default".to_string(),
            false => format!("case {k}u"),
        };
        let mu = format!("mu - {}u", k * dirs);
        let _ = writeln!(
            get,
            "        {label}: {{ v = {part}_{fname}(site, {mu}); }}"
        );
        let _ = writeln!(
            set,
            "        {label}: {{ {part}_set_{fname}(site, {mu}, v); }}"
        );
    }
    let _ = write!(
        s,
        "fn {name}_{fname}(site: u32, mu: u32) -> {ty} {{\n    var v: {ty};\n    switch (mu / {dirs}u) {{\n{get}    }}\n    return v;\n}}\n"
    );
    if writable && field == Field::Half {
        let _ = write!(
            s,
            "fn {name}_set_{fname}(site: u32, mu: u32, v: {ty}) {{\n    switch (mu / {dirs}u) {{\n{set}    }}\n}}\n"
        );
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::super::wilson::LINKS;
    use super::*;
    use crate::apps::milc::codegen::{MODULES, module_of};
    use crate::apps::milc::links::Reconstruct;
    use crate::layout::Layout;
    use crate::precision::Precision;
    use crate::scale::Part;

    fn whole(nc: u32, width: u32) -> Groups {
        Groups::whole(Layout::new(crate::layout::LayoutName::Soa, 64, nc).with_width(width))
    }

    #[test]
    fn every_entry_has_one_module_and_accessors_match_the_bindings() {
        for m in MODULES {
            for e in m.entries {
                assert_eq!(module_of(e).map(|x| x.name), Some(m.name));
            }
        }
        let a = accessors("hb", &whole(48, 1), Field::Half, true);
        assert!(a.contains("fn hb_half(site: u32, mu: u32) -> Half"));
        assert!(a.contains("hb[tdp_index(site, base + 5u, 48u)] = r_store(v.c2.im);"));
        assert!(!accessors("links", &whole(72, 1), Field::Links, false).contains("set"));
        // Two rows a link, the third rebuilt.
        let rows = accessors("links", &whole(48, 2), Field::LinkRows, false);
        assert!(
            rows.contains("let r1 = links_v3(site, 12u * mu + 6u);"),
            "{rows}"
        );
        assert!(rows.contains("return Mat3(r0, r1, su3_third_row(r0, r1));"));
        assert!(rows.contains("links[tdp_elem(site, base + 4u, 48u)]"));
        // Pairs: a complex a load or store.
        let a = accessors("hb", &whole(48, 2), Field::Half, true);
        assert!(a.contains("hb[tdp_elem(site, base + 4u, 48u)] = c_pack(v.c2);"));
        assert!(a.contains("c_unpack(hb[tdp_elem(site, base + 2u, 48u)])"));
        // Bound as reals: one real a load or store.
        let x = accessors("x", &whole(24, 2), Field::SpinorReals, true);
        assert!(x.contains(
            "fn x_st(site: u32, k: u32, v: RealStore) { x[tdp_index(site, k, 24u)] = v; }"
        ));
    }

    fn build(bind_bytes: u64) -> Build {
        let layout = Layout::new(crate::layout::LayoutName::Soa, 4096, LINKS as u32).with_width(2);
        Build {
            precision: Precision::F32,
            wg: 64,
            l: 8,
            lz: 8,
            t: 8,
            vvl: 1,
            layout,
            bind_bytes,
            reconstruct: Reconstruct::Rows,
            halo: [0, 0],
            part: (Part::planes(64, 8, 8), 0),
            own: Part::planes(64, 8, 8),
        }
    }

    #[test]
    fn bindings_follow_the_split() {
        let insert = module_of("insert_mul").expect("insert_mul");
        let b = bindings(insert, &build(u64::MAX));
        assert!(b.contains("@group(0) @binding(1) var<storage, read> links: array<ComplexStore>;"));
        let axpy = module_of("axpy").expect("axpy");
        let b = bindings(axpy, &build(u64::MAX));
        assert!(b.contains("@group(0) @binding(4) var<uniform> op: Op;"));
        assert!(b.contains("var<storage, read> x: array<RealStore>;"));
        // 4096 sites: a spinor is 384 KiB in f32, two rows of links 768 KiB.
        let split = build(200 << 10);
        assert_eq!(split.count(Field::Spinor), 2);
        assert_eq!(split.count(Field::Links), 4);
        assert_eq!(split.count(Field::Half), 4);
        assert_eq!(split.binds(insert).len(), 4 + 4 + 2);
        let b = bindings(insert, &split);
        assert!(b.contains("@binding(7) var<storage, read> links_3: array<ComplexStore>;"));
        assert!(b.contains("@binding(9) var<storage, read_write> out_1: array<ComplexStore>;"));
        // One direction a buffer: one switch a link, on mu.
        let g = split.groups(Field::Links).expect("links");
        let a = accessors("links", &g, Field::LinkRows, false);
        assert!(
            a.contains("c_unpack(links_2[tdp_elem(site, base + 2u, 12u)])"),
            "{a}"
        );
        assert!(
            a.contains("case 2u: { v = links_2_link(site, mu - 2u); }"),
            "{a}"
        );
        assert!(a.contains("switch (mu / 1u)"), "{a}");
        assert!(!a.contains("links_ld"), "{a}");
        let g = split.groups(Field::Half).expect("half");
        let a = accessors("hb", &g, Field::Half, true);
        assert!(
            a.contains("default: { hb_3_set_half(site, mu - 3u, v); }"),
            "{a}"
        );
        // Three buffers of 16 reals cut directions: a switch a real.
        let three = Groups { per: 16, ..g };
        let a = accessors("links", &three, Field::LinkRows, false);
        assert!(a.contains("c_unpack(links_ld(site, base + 2u))"), "{a}");
        assert!(
            a.contains("case 1u: { v = links_1[tdp_elem(site, comp - 16u, 16u)]; }"),
            "{a}"
        );
        let g = split.groups(Field::Spinor).expect("spinor");
        let a = accessors("out", &g, Field::Spinor, true);
        assert!(
            a.contains("    out_st(site, base + 4u, c_pack(v.c2));"),
            "{a}"
        );
        let x = accessors("x", &g, Field::SpinorReals, true);
        assert!(
            x.contains("fn x_ld(site: u32, comp: u32) -> RealStore"),
            "{x}"
        );
    }
}
