//! The kernel modules: which WGSL file each split kernel is, what it binds,
//! and the WGSL generated for it: field accessors through targetDP's
//! `tdp_index` for the buffers it binds, and (from [`super::spin`]) the
//! spin projections and reconstructions of every direction.

use std::fmt::Write;

use super::links::Reconstruct;
use super::spin::spin_functions;
use super::wilson::{HALF, LINKS, SPINOR};
use crate::gpu::Bind;
use crate::layout::Layout;
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
    /// Plain reals (scalars, partial sums) or a uniform: no accessors.
    Plain,
}

impl Field {
    /// Reals per site.
    pub fn ncomp(self) -> u32 {
        match self {
            Field::Spinor => SPINOR as u32,
            Field::Half => HALF as u32,
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
            ("hf", Field::Plain, R),
            ("hb", Field::Plain, R),
            ("gf", Field::Plain, RW),
            ("gb", Field::Plain, RW),
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
            ("x", Field::Plain, R),
            ("y", Field::Plain, R),
            ("out", Field::Plain, RW),
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
            ("x", Field::Plain, RW),
            ("p", Field::Plain, RW),
            ("r", Field::Plain, R),
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
            ("a", Field::Plain, R),
            ("b", Field::Plain, R),
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
    let width = b.layout.width;
    let mut acc = bindings(m, width);
    for &(name, field, bind) in m.binds {
        acc.push_str(&accessors(
            name,
            b.stored(field),
            bind == Bind::ReadWrite,
            width,
        ));
    }
    s.with_include(acc)
}

/// The module's binding declarations, from its table: a field with
/// accessors is an array of complex pairs when the layout keeps a complex
/// together (`width` 2), of reals otherwise; the one uniform, `op`, is the
/// `Op` struct its module defines.
pub fn bindings(m: &Module, width: u32) -> String {
    let mut s = String::new();
    for (i, &(name, field, bind)) in m.binds.iter().enumerate() {
        let elem = if field != Field::Plain && width == 2 {
            "ComplexStore"
        } else {
            "RealStore"
        };
        let decl = match bind {
            Bind::Read => format!("var<storage, read> {name}: array<{elem}>"),
            Bind::ReadWrite => format!("var<storage, read_write> {name}: array<{elem}>"),
            Bind::Uniform => format!("var<uniform> {name}: Op"),
        };
        let _ = writeln!(s, "@group(0) @binding({i}) {decl};");
    }
    s
}

/// Getters (and setters when `writable`) of colour vectors, spinors, half
/// spinors or links of the field bound as `name`, through `tdp_index`, or
/// `tdp_elem` a complex at a time where the layout keeps its parts
/// together (`width` 2).
pub fn accessors(name: &str, field: Field, writable: bool, width: u32) -> String {
    let nc = field.ncomp();
    let mut s = String::new();
    if field == Field::Plain {
        return s;
    }
    // Complex `j` (0..3) of the colour vector at `base`: (getter, setter of `v`).
    let complex = |j: u32| -> (String, String) {
        let off = |k: u32| match k {
            0 => String::new(),
            k => format!(" + {k}u"),
        };
        let part = ["c0", "c1", "c2"][j as usize];
        if width == 2 {
            let at = format!("{name}[tdp_elem(site, base{}, {nc}u)]", off(2 * j));
            (
                format!("c_unpack({at})"),
                format!("    {at} = c_pack(v.{part});\n"),
            )
        } else {
            let at = |k: u32| format!("{name}[tdp_index(site, base{}, {nc}u)]", off(k));
            (
                format!("c_load({}, {})", at(2 * j), at(2 * j + 1)),
                format!(
                    "    {} = r_store(v.{part}.re);\n    {} = r_store(v.{part}.im);\n",
                    at(2 * j),
                    at(2 * j + 1)
                ),
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

    #[test]
    fn every_entry_has_one_module_and_accessors_match_the_bindings() {
        for m in MODULES {
            for e in m.entries {
                assert_eq!(module_of(e).map(|x| x.name), Some(m.name));
            }
        }
        let a = accessors("hb", Field::Half, true, 1);
        assert!(a.contains("fn hb_half(site: u32, mu: u32) -> Half"));
        assert!(a.contains("hb[tdp_index(site, base + 5u, 48u)] = r_store(v.c2.im);"));
        assert!(!accessors("links", Field::Links, false, 1).contains("set"));
        // Two rows a link, the third rebuilt.
        let rows = accessors("links", Field::LinkRows, false, 2);
        assert!(
            rows.contains("let r1 = links_v3(site, 12u * mu + 6u);"),
            "{rows}"
        );
        assert!(rows.contains("return Mat3(r0, r1, su3_third_row(r0, r1));"));
        assert!(rows.contains("links[tdp_elem(site, base + 4u, 48u)]"));
        // Pairs: a complex a load or store, and the field bound as pairs.
        let a = accessors("hb", Field::Half, true, 2);
        assert!(a.contains("hb[tdp_elem(site, base + 4u, 48u)] = c_pack(v.c2);"));
        assert!(a.contains("c_unpack(hb[tdp_elem(site, base + 2u, 48u)])"));
        let insert = module_of("insert_mul").expect("insert_mul");
        let b = bindings(insert, 2);
        assert!(b.contains("@group(0) @binding(1) var<storage, read> links: array<ComplexStore>;"));
        let axpy = module_of("axpy").expect("axpy");
        assert!(bindings(axpy, 2).contains("@group(0) @binding(4) var<uniform> op: Op;"));
        assert!(bindings(axpy, 2).contains("var<storage, read> x: array<RealStore>;"));
    }
}
