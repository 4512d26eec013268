//! The kernel modules: which WGSL file each split kernel is, what it binds,
//! and the WGSL generated for it: field accessors through targetDP's
//! `tdp_index` for the buffers it binds, and (from [`super::spin`]) the
//! spin projections and reconstructions of every direction.

use std::fmt::Write;

use super::links::Reconstruct;
use super::spin::spin_functions;
use super::wilson::{HALF, LINKS, SPINOR};
use crate::gpu::Bind;
use crate::layout::{Groups, Layout};
use crate::precision::Precision;
use crate::scale::Part;
use crate::shader::{ShaderSpec, sources};

const LATTICE: &str = include_str!("../../../../shaders/milc/lattice.wgsl");
/// D's hopping sum at one site, shared by the one-pass D and M kernels.
const HOP: &str = include_str!("../../../../shaders/milc/hop.wgsl");

/// What a binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A spinor field (24 reals per site).
    Spinor,
    /// Four half spinors per site (48 reals).
    Half,
    /// The gauge links (72 reals per site).
    Links,
    /// The gauge links as their first two rows (48 reals per site), the
    /// form a build with [`Reconstruct::Rows`] stores and reads `Links` in.
    LinkRows,
    /// A spinor field bound as reals: `{name}_ld(site, k)` and
    /// `{name}_st(site, k, v)` only (kernels that treat each real alike).
    SpinorReals,
    /// Half spinors bound as reals, likewise.
    HalfReals,
    /// Plain reals (scalars, partial sums) or a uniform: no accessors.
    Plain,
}

impl Field {
    /// Reals per site.
    pub fn ncomp(self) -> u32 {
        match self {
            Field::Spinor | Field::SpinorReals => SPINOR as u32,
            Field::Half | Field::HalfReals => HALF as u32,
            Field::Links => LINKS as u32,
            Field::LinkRows => Reconstruct::Rows.reals_per_site() as u32,
            Field::Plain => 1,
        }
    }
}

/// One WGSL module of the app: its source, entry points and bindings (in
/// binding order).
pub struct Module {
    /// Label and file stem.
    pub name: &'static str,
    /// The kernel's WGSL.
    pub source: &'static str,
    /// Entry points.
    pub entries: &'static [&'static str],
    /// (name in WGSL, what it holds, how it is bound), binding 0 first: the
    /// module's declarations are generated from it (`bindings`).
    pub binds: &'static [(&'static str, Field, Bind)],
    /// Whether it uses the generated spin functions (and so depends on `isign`).
    pub spin: bool,
    /// Whether it uses the workgroup reduction.
    pub reduce: bool,
    /// Whether it uses the one-pass hopping sum `hop.wgsl` (and so binds
    /// `psi` and `links`).
    pub hop: bool,
}

macro_rules! wgsl {
    ($f:literal) => {
        include_str!(concat!("../../../../shaders/milc/", $f))
    };
}

use Bind::{Read as R, ReadWrite as RW, Uniform as U};

/// Every module of the app.
pub static MODULES: &[Module] = &[
    Module {
        name: "extract",
        source: wgsl!("extract.wgsl"),
        entries: &["extract"],
        binds: &[("psi", Field::Spinor, R), ("hf", Field::Half, RW)],
        spin: true,
        reduce: false,
        hop: false,
    },
    Module {
        name: "extract_mul",
        source: wgsl!("extract_mul.wgsl"),
        entries: &["extract_mul"],
        binds: &[
            ("psi", Field::Spinor, R),
            ("links", Field::Links, R),
            ("hb", Field::Half, RW),
        ],
        spin: true,
        reduce: false,
        hop: false,
    },
    Module {
        name: "shift",
        source: wgsl!("shift.wgsl"),
        entries: &["shift"],
        binds: &[
            ("hf", Field::HalfReals, R),
            ("hb", Field::HalfReals, R),
            ("gf", Field::HalfReals, RW),
            ("gb", Field::HalfReals, RW),
        ],
        spin: false,
        reduce: false,
        hop: false,
    },
    Module {
        name: "insert_mul",
        source: wgsl!("insert_mul.wgsl"),
        entries: &["insert_mul"],
        binds: &[
            ("gf", Field::Half, R),
            ("links", Field::Links, R),
            ("out", Field::Spinor, RW),
        ],
        spin: true,
        reduce: false,
        hop: false,
    },
    Module {
        name: "insert",
        source: wgsl!("insert.wgsl"),
        entries: &["insert"],
        binds: &[
            ("gb", Field::Half, R),
            ("acc", Field::Spinor, R),
            ("out", Field::Spinor, RW),
        ],
        spin: true,
        reduce: false,
        hop: false,
    },
    Module {
        name: "dslash_fused",
        source: wgsl!("dslash_fused.wgsl"),
        entries: &["dslash_fused"],
        binds: &[
            ("psi", Field::Spinor, R),
            ("links", Field::Links, R),
            ("out", Field::Spinor, RW),
        ],
        spin: true,
        reduce: false,
        hop: true,
    },
    Module {
        name: "m_fused",
        source: wgsl!("m_fused.wgsl"),
        entries: &["m_fused", "m_fused_norm"],
        binds: &[
            ("psi", Field::Spinor, R),
            ("links", Field::Links, R),
            ("out", Field::Spinor, RW),
            ("scalars", Field::Plain, R),
            ("partial", Field::Plain, RW),
        ],
        spin: true,
        reduce: true,
        hop: true,
    },
    Module {
        name: "axpy",
        source: wgsl!("axpy.wgsl"),
        entries: &["axpy", "axpy_norm", "zero"],
        binds: &[
            ("x", Field::SpinorReals, R),
            ("y", Field::SpinorReals, R),
            ("out", Field::SpinorReals, RW),
            ("scalars", Field::Plain, R),
            ("op", Field::Plain, U),
            ("partial", Field::Plain, RW),
        ],
        spin: false,
        reduce: true,
        hop: false,
    },
    Module {
        name: "update",
        source: wgsl!("update.wgsl"),
        entries: &["update_xp"],
        binds: &[
            ("x", Field::SpinorReals, RW),
            ("p", Field::SpinorReals, RW),
            ("r", Field::SpinorReals, R),
            ("scalars", Field::Plain, R),
        ],
        spin: false,
        reduce: false,
        hop: false,
    },
    Module {
        name: "dot",
        source: wgsl!("dot.wgsl"),
        entries: &["dot"],
        binds: &[
            ("a", Field::SpinorReals, R),
            ("b", Field::SpinorReals, R),
            ("partial", Field::Plain, RW),
        ],
        spin: false,
        reduce: true,
        hop: false,
    },
    Module {
        name: "cg",
        source: wgsl!("cg.wgsl"),
        entries: &["finish", "cg_start", "cg_alpha", "cg_beta"],
        binds: &[
            ("partial", Field::Plain, R),
            ("scalars", Field::Plain, RW),
            ("op", Field::Plain, U),
        ],
        spin: false,
        reduce: true,
        hop: false,
    },
];

/// The module that has entry point `entry`.
pub fn module_of(entry: &str) -> Option<&'static Module> {
    MODULES.iter().find(|m| m.entries.contains(&entry))
}

/// Slots of the GPU's scalar buffer, injected into the kernels as `S_*`.
pub mod slot {
    /// -kappa (the scalar of M = 1 - kappa D).
    pub const MINUS_KAPPA: u32 = 0;
    /// Zero (a copy is `y + 0 x`).
    pub const ZERO: u32 = 1;
    /// The squared relative tolerance of CG.
    pub const TOL2: u32 = 2;
    /// `<r, r>`.
    pub const RR: u32 = 3;
    /// `<p, A p>`.
    pub const PAP: u32 = 4;
    /// `<r', r'>`.
    pub const RR_NEW: u32 = 5;
    /// CG's alpha.
    pub const ALPHA: u32 = 6;
    /// CG's beta.
    pub const BETA: u32 = 7;
    /// `<r0, r0>`.
    pub const RR0: u32 = 8;
    /// Iterations run before convergence.
    pub const ITERS: u32 = 9;
    /// 1 once converged.
    pub const CONVERGED: u32 = 10;
    /// Slots in all.
    pub const COUNT: u32 = 11;

    /// (WGSL name, slot) of every slot a kernel names (injected into
    /// every module that binds `scalars`).
    pub const NAMED: &[(&str, u32)] = &[
        ("S_MINUS_KAPPA", MINUS_KAPPA),
        ("S_TOL2", TOL2),
        ("S_RR", RR),
        ("S_PAP", PAP),
        ("S_RR_NEW", RR_NEW),
        ("S_ALPHA", ALPHA),
        ("S_BETA", BETA),
        ("S_RR0", RR0),
        ("S_ITERS", ITERS),
        ("S_CONVERGED", CONVERGED),
    ];
}

/// Constants of one build: lattice, launch shape, layout and sign.
#[derive(Clone, Copy, Debug)]
pub struct Build {
    /// Arithmetic.
    pub precision: Precision,
    /// Workgroup size.
    pub wg: u32,
    /// Extent of x and y, L.
    pub l: u32,
    /// Extent of z: L on one device, a rank's padded share on a grid of
    /// ranks over z and t.
    pub lz: u32,
    /// Time extent T.
    pub t: u32,
    /// Sites per invocation.
    pub vvl: u32,
    /// The layout (its SAL; the site count is the lattice's).
    pub layout: Layout,
    /// The most bytes one buffer of a field may hold: a field larger than
    /// this is split over buffers by groups of components (see
    /// [`Build::groups`]).
    pub bind_bytes: u64,
    /// How the links are stored and read (never `Auto`).
    pub reconstruct: Reconstruct,
    /// Halo planes at each end of the t axis and of the z axis (a rank's
    /// box of a lattice split over ranks; 0 on one device): reductions
    /// leave them out, because they hold the neighbours' sites.
    pub halo: [u32; 2],
    /// The sites the one-pass operator kernels (`hop` modules) cover, and
    /// the first partial sum their workgroups write (a rank updates its
    /// interior and its boundary in separate dispatches, whose partials
    /// must not overlap).
    pub part: (Part, u32),
}

impl Build {
    /// What a binding declared to hold `field` holds in this build: the
    /// links as their first two rows with [`Reconstruct::Rows`].
    pub fn stored(&self, field: Field) -> Field {
        match (field, self.reconstruct) {
            (Field::Links, Reconstruct::Rows) => Field::LinkRows,
            (f, _) => f,
        }
    }

    /// How a binding of `field` splits over buffers (`None` for plain
    /// reals): as few groups of components as [`Build::bind_bytes`]
    /// allows, the whole field where it fits one.
    pub fn groups(&self, field: Field) -> Option<Groups> {
        if field == Field::Plain {
            return None;
        }
        let layout = self.layout.with_ncomp(self.stored(field).ncomp());
        Some(
            Groups::fitting(layout, self.precision.real_bytes(), self.bind_bytes)
                .unwrap_or(Groups::whole(layout)),
        )
    }

    /// How each binding of module `m` is bound, one entry a buffer (a split
    /// field takes one binding a group).
    pub fn binds(&self, m: &Module) -> Vec<Bind> {
        m.binds
            .iter()
            .flat_map(|&(_, f, b)| std::iter::repeat_n(b, self.count(f) as usize))
            .collect()
    }

    /// Buffers a binding of `field` takes.
    pub fn count(&self, field: Field) -> u32 {
        self.groups(field).map_or(1, |g| g.count())
    }

    /// Sites of the lattice.
    pub fn sites(&self) -> u32 {
        self.l * self.l * self.lz * self.t
    }

    /// `owned(site)`: whether a site is this rank's own rather than a
    /// neighbour's halo (every site on one device). z is tested through
    /// an unsigned wrap: below the halo it wraps past the bound.
    fn owned(&self) -> String {
        let [ht, hz] = self.halo;
        let slice = self.l * self.l * self.lz;
        let mut cond = format!(
            "site >= {}u && site < {}u",
            ht * slice,
            (self.t - ht) * slice
        );
        if hz > 0 {
            let (plane, lz) = (self.l * self.l, self.lz);
            let _ = write!(
                cond,
                " && (site / {plane}u) % {lz}u - {hz}u < {}u",
                lz - 2 * hz
            );
        }
        format!(
            "// Whether a site is this rank's own (not a neighbour's halo).\nfn owned(site: u32) -> bool {{ return {cond}; }}\n"
        )
    }
}

/// Workgroup size of the dot products' second pass (`cg.wgsl`), whatever
/// the case's: the pass is one workgroup adding one partial per workgroup of
/// the first, so the widest size every WebGPU adapter allows keeps each
/// invocation's serial loop short (64 partials at 2^21 sites and WG 128).
pub const FINISH_WG: u32 = 256;

/// The composed module `m` for `build`, with the spin functions of `isign`.
pub fn spec(m: &Module, b: &Build, isign: i32) -> ShaderSpec {
    let mut label = if m.spin {
        format!("milc/{}{}", m.name, if isign > 0 { "+" } else { "-" })
    } else {
        format!("milc/{}", m.name)
    };
    // The two link forms differ in generated code, not in a constant: the
    // label tells their pipelines apart (`skylight stats`).
    if m.binds.iter().any(|b| b.1 == Field::Links) && b.reconstruct == Reconstruct::Rows {
        label.push_str("/r12");
    }
    let wg = if m.name == "cg" { FINISH_WG } else { b.wg };
    let mut s = ShaderSpec::new(label, m.source, b.precision)
        .with_u32("WG", wg)
        .with_u32("LX", b.l)
        .with_u32("LZ", b.lz)
        .with_u32("LT", b.t)
        .with_u32("SITES", b.sites())
        .with_u32("VVL", b.vvl)
        .with_include(sources::GRID)
        .with_include(b.owned());
    s = b.layout.apply(s).with_include(LATTICE);
    if m.reduce {
        s = s.with_include(sources::REDUCE);
    }
    if m.binds.iter().any(|b| b.0 == "scalars") {
        for &(name, v) in slot::NAMED {
            s = s.with_u32(name, v);
        }
    }
    if m.spin {
        s = s.with_include(spin_functions(isign));
    }
    if m.hop {
        s = b
            .part
            .0
            .apply(s.with_include(HOP))
            .with_u32("GROUP0", b.part.1);
    }
    let mut acc = bindings(m, b);
    for &(name, field, bind) in m.binds {
        if let Some(g) = b.groups(field) {
            acc.push_str(&accessors(
                name,
                &g,
                b.stored(field),
                bind == Bind::ReadWrite,
            ));
        }
    }
    s.with_include(acc)
}

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let g = split.groups(Field::Links).expect("links");
        let a = accessors("links", &g, Field::LinkRows, false);
        assert!(a.contains("c_unpack(links_ld(site, base + 2u))"), "{a}");
        assert!(
            a.contains("case 2u: { v = links_2[tdp_elem(site, comp - 24u, 12u)]; }"),
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
