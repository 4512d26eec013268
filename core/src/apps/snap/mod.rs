//! `snap`: the TestSNAP proxy app (ECP), the force of the SNAP machine-learned
//! potential (Thompson et al., J. Comp. Phys. 285, 316 (2015)). Per force
//! call: compute_U (Wigner U of every neighbour by the Cayley-Klein
//! recursion, summed with the switching function), compute_Y (the adjoint:
//! beta-weighted Clebsch-Gordan products of the total U), compute_dU and
//! compute_dE per pair, and the force gather. Variants: the seed's
//! baseline, collapse, column-major and reorder cases, and `fused` (the
//! default): reorder with compute_dU and compute_dE one kernel. In reorder
//! and fused compute_U is one kernel too: each workgroup walks U of its
//! atoms' pairs and adds every row over each atom's pairs in workgroup
//! memory as it is made.
//!
//! Inputs: a TestSNAP reference file (`refdata`, validated against its
//! forces) or the synthetic BCC tungsten problem of [`lattice`] (validated
//! against the CPU f64 reference of [`sna`]). WGSL has no f64 (or df64)
//! trigonometry, so the host evaluates the per-pair tan/cos/sin of the
//! Cayley-Klein map and the switching function in f64 with the neighbour
//! list (8 reals per pair, O(pairs) against the kernels' O(pairs x J^3)).
//!
//! Memory of the largest case (2000 atoms x 26 neighbours, 2J = 14, 652 half
//! elements per U-like array): 2.22 GB in f64 and df64 (dU 1.63 GB, U of
//! every pair 0.54 GB, total U 40 MB stored whole, Y 21 MB), 1.11 GB in
//! f32; fused stores no dU (0.6 GB in f64). When the largest scratch array
//! of all atoms passes the binding limit the force kernel runs the atoms in
//! batches (`batch`); a kernel timed alone fails with `OverLimit` instead.

mod cpu;
mod gpu;
pub mod lattice;
mod model;
mod plan;
pub mod refdata;
pub mod sna;
mod stage;

use crate::app::{App, Case, CpuKernel, Kernel, ParamKind, ParamSpec, Request, wg_param};
use crate::apps::common::{fresh_rng, parse_size};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};
use cpu::SnapCpu;
use gpu::SnapGpu;
use model::{issued_bytes, model};
use sna::{Config, Tables};

const SOURCE: &str = include_str!("../../../../shaders/snap/snap.wgsl");
/// The chain walk, a template over where it keeps its row (see the file).
const WALK: &str = include_str!("../../../../shaders/snap/walk.wgsl");

// Bindings of the outputs (0 and 1 are the inputs, 8 the batch uniform).
const ULIST: usize = 2;
const DULIST: usize = 3;
const UTOT: usize = 4;
const YLIST: usize = 5;
const FIJ: usize = 6;
const FORCE: usize = 7;

choice! {
    /// The four kernels of a force call, and the whole call.
    pub enum KernelName("kernel") {
        /// Wigner U of every neighbour, summed with the switching function.
        ComputeU = "compute_U",
        /// Beta-weighted Clebsch-Gordan products of the total U.
        ComputeY = "compute_Y",
        /// dU of every pair.
        ComputeDu = "compute_dU",
        /// dE/dr of every pair.
        ComputeDe = "compute_dE",
        /// The whole force call.
        Force = "force",
    }
}

impl KernelName {
    /// The kernel's position in a force call (the force call itself last).
    fn stage(self) -> usize {
        Self::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }
}

choice! {
    /// The seed's optimisation cases.
    pub enum Variant("variant") {
        /// An invocation per atom.
        Baseline = "baseline",
        /// Atom, neighbour and index loops in the dispatch.
        Collapse = "collapse",
        /// Collapsed, atom fastest in memory.
        ColumnMajor = "column-major",
        /// Column-major, atom fastest among the invocations.
        Reorder = "reorder",
        /// Reorder, with compute_dU and compute_dE one kernel that never
        /// stores dU (its compute_dE is that kernel; it has no compute_dU).
        Fused = "fused",
    }
}

/// BCC unit cells a side: small (54 atoms, for CI) and the seed's 2000 atoms.
const SIZES: &[(&str, u64)] = &[("small", 3), ("default", 10)];

/// One snap case, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Kernel.
    pub kernel: KernelName,
    /// The seed's optimisation case.
    pub variant: Variant,
    /// 2J.
    pub twojmax: u32,
    /// BCC unit cells a side of the synthetic problem (0 with a reference file).
    pub cells: u64,
    /// Atoms.
    pub atoms: u64,
    /// Force calls per run of the force kernel (recorded for every kernel).
    pub steps: u64,
    /// Atoms per batch (0: as many as the binding limit allows).
    pub batch: u64,
    /// TestSNAP reference file, or empty for the synthetic problem.
    pub refdata: String,
    /// Workgroup size.
    pub wg: u32,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every snap result file).
    pub fn case(&self) -> Case {
        let variant = format!("{}/2J{}/wg{}", self.variant, self.twojmax, self.wg);
        Case::new("snap", self.kernel.name(), &variant, self.precision)
            .param("variant", self.variant)
            .param("twojmax", self.twojmax)
            .param("cells", self.cells)
            .param("atoms", self.atoms)
            .param("steps", self.steps)
            .param("batch", self.batch)
            .param("refdata", &self.refdata)
            .param("wg", self.wg)
    }

    /// Force calls one run makes: `steps` for the force kernel, else one.
    fn run_steps(&self) -> u64 {
        if self.kernel == KernelName::Force {
            self.steps
        } else {
            1
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            kernel: case.kernel_as()?,
            variant: case.choice()?,
            twojmax: case.u32("twojmax")?,
            cells: case.uint("cells")?,
            atoms: case.uint("atoms")?,
            steps: case.uint("steps")?,
            batch: case.uint("batch")?,
            refdata: case.text("refdata").to_string(),
            wg: case.u32("wg")?,
        })
    }
}

/// The `snap` app.
pub struct Snap;

impl App for Snap {
    fn name(&self) -> &'static str {
        "snap"
    }

    /// The problem is the atom count and 2J.
    fn problem(&self) -> &'static [&'static str] {
        &["atoms", "twojmax"]
    }

    /// The reference is one per-atom loop: the variants, batches and workgroup sizes are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["cells", "steps", "refdata"]
    }

    fn about(&self) -> &'static str {
        "TestSNAP: the SNAP potential's force (compute_U, compute_Y, compute_dU, compute_dE), seed variants"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "compute_U, compute_Y, compute_dU, compute_dE (each alone, inputs from the CPU reference) or force (the whole force call)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "compute_U,compute_Y,compute_dU,compute_dE,force",
            },
            ParamSpec {
                name: "variant",
                help: "baseline (invocation per atom), collapse (atom, neighbour and index loops in the dispatch), column-major (atom fastest in memory), reorder (column-major, atom fastest among invocations), fused (reorder, compute_dU and compute_dE one kernel that never stores dU: its compute_dE times both, and it has no compute_dU case)",
                kind: ParamKind::Choice(Variant::NAMES),
                default: "fused",
            },
            ParamSpec {
                name: "twojmax",
                help: "2J of the synthetic problem (the seed's 2, 8, 14); a reference file sets its own",
                kind: ParamKind::UInt {
                    min: 0,
                    max: refdata::MAX_TWOJ,
                },
                default: "2,8,14",
            },
            ParamSpec {
                name: "size",
                help: "BCC unit cells a side of the synthetic problem (2 atoms each): small (3: 54 atoms), default (10: 2000 atoms), or a number up to 20",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "steps",
                help: "force calls per run of the force kernel (the seed runs 100)",
                kind: ParamKind::UInt { min: 1, max: 1000 },
                default: "1",
            },
            ParamSpec {
                name: "refdata",
                help: "TestSNAP reference file (JSON, e.g. assets/testsnap/2J2_W.json): run it and report the RMS |F| deviation",
                kind: ParamKind::Text,
                default: "",
            },
            ParamSpec {
                name: "batch",
                help: "atoms per batch of dispatches (0: as many as the binding limit allows)",
                kind: ParamKind::UInt {
                    min: 0,
                    max: 1 << 24,
                },
                default: "0",
            },
            wg_param("64"),
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("kernel", "force"),
            ("variant", "baseline,collapse,column-major,reorder,fused"),
            ("wg", "32,64,128,256"),
        ]
    }

    /// Variants and workgroup sizes (the fused variant's compute_dE also
    /// times compute_dU, so that kernel alone favours the others).
    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("variant", "baseline,collapse,column-major,reorder,fused"),
            ("wg", "32,64,128,256"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let path = r.text("refdata").to_string();
        // A reference file fixes 2J and the atoms; it is checked here, before
        // any device work, so a malformed file is an error up front.
        let (twojs, cells, atoms) = if path.is_empty() {
            let n = parse_size("size", r.text("size"), SIZES)?;
            if !(3..=20).contains(&n) {
                return Err(Error::bad_param(
                    "size",
                    format!(
                        "{n} unit cells a side: at least 3 (cutoff under half the box), at most 20 (16,000 atoms: the neighbour search is all pairs)"
                    ),
                ));
            }
            (r.uints("twojmax"), n, 2 * n * n * n)
        } else {
            let data = refdata::load(&path)?;
            let c = &data.config;
            (vec![c.twojmax as u64], 0, c.nlocal as u64)
        };
        let twojs: Vec<u32> = twojs.into_iter().map(|t| t as u32).collect();
        let base = Params {
            precision: Precision::F32,
            kernel: KernelName::Force,
            variant: Variant::Reorder,
            twojmax: 0,
            cells,
            atoms,
            steps: r.uint("steps"),
            batch: r.uint("batch"),
            refdata: path,
            wg: 1,
        };
        let points: Vec<Params> = Grid::new(base)
            .axis(&r.precisions, |c, p| c.precision = p)
            .axis(&twojs, |c, t| c.twojmax = t)
            .axis(&r.choices(), |c, k| c.kernel = k)
            .axis(&r.choices(), |c, v| c.variant = v)
            .axis(&r.wgs(caps)?, |c, wg| c.wg = wg)
            .points();
        // fused has no compute_dU of its own: the grid drops that pair, and
        // a request of nothing else is an error.
        let cases: Vec<Case> = points
            .iter()
            .filter(|p| !(p.variant == Variant::Fused && p.kernel == KernelName::ComputeDu))
            .map(Params::case)
            .collect();
        if cases.is_empty() && !points.is_empty() {
            return Err(Error::bad_param(
                "variant",
                "fused stores no dU, so it has no compute_dU: time compute_dE (dU and dE together) or force",
            ));
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SnapGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        // TestSNAP's 2J = 2 file: 2 atoms of 8 neighbours among 35.
        let t = Tables::new(2, &[0.1; 5]);
        let dims = Dims::new(&t, 8, 2, 2, 35);
        let usum_wg = plan::usum_shape(8).1;
        let widths =
            ["y_tiles", "u_walks", "u_sums_staged"].map(|e| plan::workgroup_widths(e, usum_wg));
        Variant::ALL
            .iter()
            .flat_map(|&v| widths.map(|w| spec(p, 64, w, &dims, Layout::of(v))))
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        let cpu = Params::try_from(case).and_then(|p| SnapCpu::new(&p));
        Some(cpu.map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// A case's configuration and, for a reference file, its forces.
fn problem(params: &Params) -> Result<(Config, Option<Vec<f64>>)> {
    if params.refdata.is_empty() {
        let cells = params.cells as usize;
        Ok((lattice::bcc(cells, params.twojmax, &mut fresh_rng())?, None))
    } else {
        let d = refdata::load(&params.refdata)?;
        Ok((d.config, Some(d.fj)))
    }
}

/// How a variant maps work and data.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    /// Loops in the dispatch (else one invocation per atom).
    collapsed: bool,
    /// Atom (pair) index fastest in the scratch arrays.
    colmajor: bool,
    /// Atom (pair) index fastest among the invocations of a 2-D loop.
    reorder: bool,
    /// compute_dU and compute_dE one kernel, dU never stored.
    fused: bool,
}

impl Layout {
    fn of(variant: Variant) -> Layout {
        Layout {
            collapsed: variant != Variant::Baseline,
            colmajor: !matches!(variant, Variant::Baseline | Variant::Collapse),
            reorder: matches!(variant, Variant::Reorder | Variant::Fused),
            fused: variant == Variant::Fused,
        }
    }

    /// Index of complex element `e` of item `p` (of `n` items with `ne` elements).
    fn cix(&self, p: usize, e: usize, n: usize, ne: usize) -> usize {
        if self.colmajor { e * n + p } else { p * ne + e }
    }

    /// The (item, element) stored at complex slot `s`: the inverse of
    /// [`Layout::cix`], so an upload fills each slot straight from the
    /// logical arrays (gigabytes at 2J = 14, without a packed copy).
    fn item(&self, s: usize, n: usize, ne: usize) -> (usize, usize) {
        if self.colmajor {
            (s % n, s / n)
        } else {
            (s / ne, s % ne)
        }
    }
}

/// Sizes and table offsets a module is built for.
#[derive(Clone, Debug)]
struct Dims {
    twoj: u32,
    ny: u32,
    nu: u32,
    nnbr: u32,
    batch: u32,
    nlocal: u32,
    ntotal: u32,
    /// Reals: (cg, beta, weight, geometry).
    off_real: [u32; 4],
    /// u32: (ystart, terms, elems, Y slots, reverse lists).
    off_tab: [u32; 5],
    /// compute_Y's element slots (reorder and fused).
    nyp: u32,
}

impl Dims {
    fn new(t: &Tables, nnbr: usize, batch: usize, nlocal: usize, ntotal: usize) -> Dims {
        let jdim = t.twojmax + 1;
        let cg = jdim * jdim;
        let beta = cg + t.cg.len() as u32;
        let weight = beta + t.terms.len() as u32;
        let geo = weight + t.ny() as u32;
        let ystart = t.hblock.len() as u32;
        let terms = ystart + t.ystart.len() as u32;
        let elems = terms + 4 * t.terms.len() as u32;
        let ypairs = elems + t.ny() as u32;
        let nyp = y_slots(t).len() as u32;
        let rev = ypairs + nyp;
        Dims {
            twoj: t.twojmax,
            ny: t.ny() as u32,
            nu: t.nu() as u32,
            nnbr: nnbr as u32,
            batch: batch as u32,
            nlocal: nlocal as u32,
            ntotal: ntotal as u32,
            off_real: [cg, beta, weight, geo],
            off_tab: [ystart, terms, elems, ypairs, rev],
            nyp,
        }
    }
}

/// The snap module for workgroups of `wg` with workgroup arrays of the
/// widths `(rows, sums)` (see `plan::workgroup_widths`).
fn spec(p: Precision, wg: u32, (rows, sums): (u32, u32), d: &Dims, l: Layout) -> ShaderSpec {
    ShaderSpec::new("snap", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("TWOJ", d.twoj)
        .with_u32("NY", d.ny)
        .with_u32("NU", d.nu)
        .with_u32("YTILE_ATOMS", plan::y_tile(wg).0)
        .with_u32("USUM_ATOMS", plan::usum_shape(d.nnbr as usize).0)
        .with_u32("USUM_WG", plan::usum_shape(d.nnbr as usize).1)
        .with_u32("ROWS_WG", rows)
        .with_u32("SUMS_WG", sums)
        .with_u32("NNBR", d.nnbr)
        .with_u32("BATCH", d.batch)
        .with_u32("NPB", d.batch * d.nnbr)
        .with_u32("NLOCAL", d.nlocal)
        .with_u32("NTOTAL", d.ntotal)
        .with_u32("OFF_CG", d.off_real[0])
        .with_u32("OFF_BETA", d.off_real[1])
        .with_u32("OFF_WEIGHT", d.off_real[2])
        .with_u32("OFF_GEO", d.off_real[3])
        .with_u32("OFF_YSTART", d.off_tab[0])
        .with_u32("OFF_TERMS", d.off_tab[1])
        .with_u32("OFF_ELEMS", d.off_tab[2])
        .with_u32("OFF_YPAIRS", d.off_tab[3])
        .with_u32("OFF_REV", d.off_tab[4])
        .with_u32("NYP", d.nyp)
        .with("COLMAJOR", crate::shader::ConstValue::Bool(l.colmajor))
        .with("REORDER", crate::shader::ConstValue::Bool(l.reorder))
        .with(
            "Y_PAD_ZERO",
            crate::shader::ConstValue::Bool(p != Precision::Df64),
        )
        .with(
            "DE_REMAKE_U",
            crate::shader::ConstValue::Bool(p == Precision::F64),
        )
        .with(
            "U_WALK_FLAT",
            crate::shader::ConstValue::Bool(p != Precision::Df64),
        )
        .with_include(sources::GRID)
        .with_include(WALK.replace("ROWS", "shared"))
        .with_include(WALK.replace("ROWS", "private"))
}

/// compute_Y's element slots in reorder and fused: the first element of each
/// (ma, ma + 1) pair of a row, with 1 << 16 when it has the second (a row
/// of odd length ends with a slot of one).
fn y_slots(t: &Tables) -> Vec<u32> {
    t.elems
        .iter()
        .enumerate()
        .filter(|(_, m)| m[2] % 2 == 0)
        .map(|(e, &[j, _, ma])| e as u32 | u32::from(ma < j) << 16)
        .collect()
}

/// The reals (coefficients, then per-pair geometry) and u32 tables the
/// kernels read, laid out as [`Dims`] says.
fn encode_inputs(t: &Tables, c: &Config, geo: &[[f64; 8]]) -> (Vec<f64>, Vec<u32>) {
    let mut inp = t.rootpq.clone();
    inp.extend(&t.cg);
    inp.extend(t.terms.iter().map(|x| x.beta));
    inp.extend(&t.weight);
    inp.extend(geo.iter().flatten());
    let mut tab = t.hblock.clone();
    tab.extend(&t.ystart);
    for x in &t.terms {
        tab.extend([
            x.j1 | x.j2 << 8,
            x.cg,
            x.ma1min | x.ma2max << 8 | x.na << 16,
            x.mb1min | x.mb2max << 8 | x.nb << 16,
        ]);
    }
    tab.extend(t.elems.iter().map(|&[j, mb, ma]| j | mb << 8 | ma << 16));
    tab.extend(y_slots(t));
    // Reverse neighbour lists: the pairs naming each atom as neighbour.
    let mut named: Vec<Vec<u32>> = vec![Vec::new(); c.ntotal];
    for (pair, &j) in c.jlist.iter().enumerate() {
        named[j as usize].push(pair as u32);
    }
    let mut start = 0u32;
    tab.push(0);
    for n in &named {
        start += n.len() as u32;
        tab.push(start);
    }
    tab.extend(named.into_iter().flatten());
    (inp, tab)
}

/// Tolerances: (per-kernel arrays, relative to their largest element; RMS
/// |F| deviation in eV/A, relative to the RMS |F| for f32). f64 and df64
/// take the 1e-9 eV/A. Measured on lavapipe: f64 2.3e-15 (2J2),
/// 1.3e-14 (2J4), under 1.2e-14 on the synthetic 2J = 2 and 6; df64
/// 2.3e-15 and 1.8e-13; per-kernel arrays within 5e-16 (f64). f32: 1.0e-8
/// and 5.2e-6 eV/A (2.6e-7 and 4.7e-7 of the RMS force), at most 3.9e-6 of
/// the RMS force on the synthetic problems and 1e-6 per kernel: the f32
/// bound, 1e-4 of the RMS force, leaves a factor 25.
fn tolerance(p: Precision) -> (f64, f64) {
    match p {
        Precision::F32 => (1e-4, 1e-4),
        Precision::F64 => (1e-11, 1e-9),
        Precision::Df64 => (1e-10, 1e-9),
    }
}

#[cfg(test)]
mod tests;
