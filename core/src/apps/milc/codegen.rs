//! The kernel modules: which WGSL file each split kernel is, what it binds,
//! and the WGSL generated for it: field accessors through targetDP's
//! `tdp_index` for the buffers it binds, and (from [`super::spin`]) the
//! spin projections and reconstructions of every direction.

use std::fmt::Write;

use super::access;
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
    /// Whether it is a site-local kernel that a rank runs over its own
    /// sites only (`PART_COUNT` and `part_site` give them, every site on
    /// one device): nothing reads the halos of what it writes before a
    /// swap refills them.
    pub own: bool,
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
        own: false,
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
        own: false,
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
        own: false,
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
        own: false,
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
        own: false,
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
        own: false,
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
        own: false,
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
        own: true,
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
        own: true,
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
        own: true,
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
        own: false,
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
    /// The sites the site-local kernels (`own` modules) cover: a rank's
    /// own, every site on one device.
    pub own: Part,
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
    } else if m.own {
        s = b.own.apply(s);
    }
    let mut acc = access::bindings(m, b);
    for &(name, field, bind) in m.binds {
        if let Some(g) = b.groups(field) {
            acc.push_str(&access::accessors(
                name,
                &g,
                b.stored(field),
                bind == Bind::ReadWrite,
            ));
        }
    }
    s.with_include(acc)
}
