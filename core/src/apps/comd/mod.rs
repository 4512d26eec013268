//! `comd`: the Lennard-Jones path of the CoMD proxy app (ECP). FCC copper on
//! a periodic box, link cells no smaller than the cutoff, velocity Verlet:
//! AdvanceVelocity, AdvancePosition, redistribution of the atoms among the
//! link cells, ComputeForce. Variants: the data layout (`aos`, `aos4`,
//! `soa`), the force mapping (`atom`: an invocation per atom; `cell`: a
//! workgroup per link cell with the 27 cells staged in workgroup memory) and
//! the launch shape (workgroup size x workgroup count). Redistribution also
//! gathers the positions into cell order, as CoMD stores its atoms, and both
//! force mappings read that copy.
//!
//! No array is split over buffers (as stream's, su3's, lbm's and milc's
//! are past a binding): at the largest size the app takes, 200 unit cells
//! (32,000,000 atoms in 124^3 link cells of 32 slots), the largest array,
//! the positions gathered into cell order, is 4 reals a slot in `aos4`:
//! 1.95 GB in f64 and df64 (0.98 GB in f32; 3 reals a slot in `aos` and
//! `soa`, 1.46 GB), and a per-atom vector 32 bytes an atom (1.02 GB), all
//! within one binding of 2 GiB (an H200's; AMD's Vulkan and Metal allow
//! more). Only an adapter with a 128 MiB binding (lavapipe, a browser's
//! default) is passed, from 82 unit cells in f64 `aos4` (51^3 cells of 32
//! slots of 32 bytes, 136 MB), and such a case is refused when the cases
//! are made, before the system is built, naming the limit and the largest
//! size that fits (`fit`).

mod cpu;
mod fit;
mod form;
mod gpu;
pub mod md;
mod model;
mod plan;
#[cfg(test)]
mod tests;

use crate::app::{App, Case, CpuKernel, Kernel, ParamKind, ParamSpec, Request, wg_param};
use crate::apps::common::{fresh_rng, parse_size, quantize, random_reals};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ConstValue, ShaderSpec, sources};
use form::{COARSE_MARGIN_BITS, axes_source, cell_form};
use md::System;
use model::{issued_bytes, model};

const SOURCE: &str = include_str!("../../../../shaders/comd/comd.wgsl");

choice! {
    /// Kernels: CoMD's three phases, the redistribution, and a whole step.
    pub enum KernelName("kernel") {
        /// Half a kick: velocities from forces.
        AdvanceVelocity = "advance_velocity",
        /// A drift: positions from velocities.
        AdvancePosition = "advance_position",
        /// The atoms binned into link cells and their positions gathered.
        Redistribute = "redistribute",
        /// Forces and energies from the cell lists.
        Force = "force",
        /// The whole velocity Verlet step.
        Step = "step",
    }
}

impl KernelName {
    /// Whether the kernel computes forces, and so has a force mapping.
    pub fn computes_forces(self) -> bool {
        matches!(self, KernelName::Force | KernelName::Step)
    }
}

choice! {
    /// Force mappings (the entry points `force_atom` and `force_cell`).
    pub enum Mapping("variant") {
        /// An invocation per atom.
        Atom = "atom",
        /// A workgroup per link cell, the 27 cells staged in workgroup memory.
        Cell = "cell",
    }
}

choice! {
    /// Layouts of the per-atom vectors.
    pub enum Layout("layout") {
        /// x, y, z of an atom together.
        Aos = "aos",
        /// x, y, z and a pad.
        Aos4 = "aos4",
        /// Each dimension contiguous.
        Soa = "soa",
    }
}

impl Layout {
    /// Reals per atom (the padding included).
    fn reals_per_atom(self) -> u64 {
        match self {
            Layout::Aos4 => 4,
            Layout::Aos | Layout::Soa => 3,
        }
    }

    /// (atom stride, dimension stride), in reals, of a vector of `atoms` atoms.
    fn stride(self, atoms: u32) -> (u32, u32) {
        match self {
            Layout::Aos4 => (4, 1),
            Layout::Soa => (1, atoms),
            Layout::Aos => (3, 1),
        }
    }
}

choice! {
    /// Initial states: CoMD's (perfect lattice at 600 K), or with every atom
    /// displaced by up to 0.1 A so the first forces are not zero.
    pub enum Init("init") {
        /// The lattice, every atom displaced by up to 0.1 A, at 600 K.
        Displaced = "displaced",
        /// CoMD's perfect lattice at 600 K.
        Comd = "comd",
    }
}

/// Unit cells per dimension: small (864 atoms, 3 link cells a side, for
/// CI), default (32,000 atoms) and large (2,048,000), the study's sizes.
const SIZES: &[(&str, u64)] = &[("small", 6), ("default", 20), ("large", 80)];

/// The fewest unit cells a side: 3 link cells.
const MIN_CELLS: u64 = 6;

/// The most unit cells a side (see the module doc: every array fits one
/// binding of 2 GiB).
const MAX_CELLS: u64 = 200;

/// One comd case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Kernel.
    pub kernel: KernelName,
    /// Layout of the per-atom vectors.
    pub layout: Layout,
    /// Force mapping (`None` for the kernels without forces; `-` in records).
    pub mapping: Option<Mapping>,
    /// Workgroup size.
    pub wg: u32,
    /// Workgroups launched (0: one invocation per atom, or one workgroup per cell).
    pub groups: u32,
    /// Neighbour atoms the cell mapping stages at once (0: a default by
    /// precision, see `plan::stage_atoms`).
    pub stage: u32,
    /// FCC unit cells per side.
    pub cells: u64,
    /// Atoms: 4 per unit cell.
    pub atoms: u64,
    /// Time steps per run of the step kernel (recorded for every kernel).
    pub steps: u64,
    /// Initial state.
    pub init: Init,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every comd result file).
    pub fn case(&self) -> Case {
        let mut variant = format!("{}/wg{}", self.layout, self.wg);
        if let Some(m) = self.mapping {
            variant = format!("{m}/{variant}");
        }
        if self.groups > 0 {
            variant.push_str(&format!("/g{}", self.groups));
        }
        if self.stage > 0 && self.mapping == Some(Mapping::Cell) {
            variant.push_str(&format!("/s{}", self.stage));
        }
        Case::new("comd", self.kernel.name(), &variant, self.precision)
            .param("layout", self.layout)
            .param("variant", self.mapping.map_or("-", Mapping::name))
            .param("wg", self.wg)
            .param("groups", self.groups)
            .param("stage", self.stage)
            .param("cells", self.cells)
            .param("atoms", self.atoms)
            .param("steps", self.steps)
            .param("init", self.init)
    }

    /// Time steps one run makes: `steps` for the step kernel, else one.
    fn run_steps(&self) -> u64 {
        if self.kernel == KernelName::Step {
            self.steps
        } else {
            1
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        let kernel: KernelName = case.kernel_as()?;
        Ok(Params {
            precision: case.precision,
            kernel,
            layout: case.choice()?,
            mapping: match kernel.computes_forces() {
                true => Some(case.choice()?),
                false => None,
            },
            wg: case.u32("wg")?,
            groups: case.u32("groups")?,
            stage: case.u32("stage")?,
            cells: case.uint("cells")?,
            atoms: case.uint("atoms")?,
            steps: case.uint("steps")?,
            init: case.choice()?,
        })
    }
}

/// The `comd` app.
pub struct Comd;

impl App for Comd {
    fn name(&self) -> &'static str {
        "comd"
    }

    /// The problem is the atom count.
    fn problem(&self) -> &'static [&'static str] {
        &["atoms"]
    }

    /// The reference has one force loop: layouts, mappings and launch shapes are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["cells", "steps", "init"]
    }

    fn about(&self) -> &'static str {
        "CoMD Lennard-Jones molecular dynamics: velocity Verlet over link cells, layouts, force mappings, launch shapes"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "advance_velocity, advance_position, redistribute, force, or step (the whole velocity Verlet step)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "advance_velocity,advance_position,redistribute,force,step",
            },
            ParamSpec {
                name: "layout",
                help: "per-atom vectors: aos (x,y,z), aos4 (padded to 4), soa",
                kind: ParamKind::Choice(Layout::NAMES),
                default: "aos,aos4,soa",
            },
            ParamSpec {
                name: "variant",
                help: "force mapping: atom (invocation per atom) or cell (workgroup per link cell, 27 cells staged)",
                kind: ParamKind::Choice(Mapping::NAMES),
                default: "atom,cell",
            },
            wg_param("128"),
            ParamSpec {
                name: "groups",
                help: "workgroups launched (0: enough for one invocation per atom, or one workgroup per cell)",
                kind: ParamKind::UInt {
                    min: 0,
                    max: 1 << 24,
                },
                default: "0",
            },
            ParamSpec {
                name: "stage",
                help: "neighbour atoms the cell mapping stages at once, in rounds of whole cells; at least a cell's slots (0: 256 atoms in f32, 192 in f64, 128 in df64)",
                kind: ParamKind::UInt {
                    min: 0,
                    max: 1 << 16,
                },
                default: "0",
            },
            ParamSpec {
                name: "size",
                help: "FCC unit cells per side: small (6), default (20: 32,000 atoms), large (80: 2,048,000), or a number",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "steps",
                help: "time steps per run of the step kernel",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 100_000,
                },
                default: "1",
            },
            ParamSpec {
                name: "init",
                help: "displaced (lattice + up to 0.1 A, 600 K) or comd (CoMD's perfect lattice at 600 K)",
                kind: ParamKind::Choice(Init::NAMES),
                default: "displaced",
            },
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("kernel", "force"),
            ("variant", "atom"),
            ("wg", "32,64,128,256"),
            ("groups", "0,132,264,528,1056"),
        ]
    }

    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("variant", "atom,cell"),
            ("layout", "aos,aos4,soa"),
            ("wg", "32,64,128,256"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let n = parse_size("size", r.text("size"), SIZES)?;
        if !(MIN_CELLS..=MAX_CELLS).contains(&n) {
            return Err(Error::bad_param(
                "size",
                format!(
                    "{n} unit cells: at least {MIN_CELLS} (3 link cells a side), at most {MAX_CELLS}"
                ),
            ));
        }
        let base = Params {
            precision: Precision::F32,
            kernel: KernelName::AdvanceVelocity,
            layout: Layout::Aos,
            mapping: None,
            wg: 1,
            groups: 0,
            stage: 0,
            cells: n,
            atoms: 4 * n * n * n,
            steps: r.uint("steps"),
            init: r.choice(),
        };
        let mappings: Vec<Option<Mapping>> = r.choices().into_iter().map(Some).collect();
        let groups: Vec<u32> = r.uints("groups").into_iter().map(|g| g as u32).collect();
        let stages: Vec<u32> = r.uints("stage").into_iter().map(|n| n as u32).collect();
        let cases = Grid::new(base)
            .axis(&r.precisions, |c, p| c.precision = p)
            .axis(&r.choices(), |c, k| c.kernel = k)
            .axis(&r.choices(), |c, l| c.layout = l)
            .axis_where(
                |c| c.kernel.computes_forces(),
                &mappings,
                |c, m| c.mapping = m,
            )
            .axis(&r.wgs(caps)?, |c, wg| c.wg = wg)
            .axis(&groups, |c, g| c.groups = g)
            .axis_where(
                |c| c.mapping == Some(Mapping::Cell),
                &stages,
                |c, n| c.stage = n,
            )
            .points();
        for c in &cases {
            fit::fits(c, caps)?;
        }
        Ok(cases.iter().map(Params::case).collect())
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::ComdGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        Layout::ALL
            .iter()
            .map(|&l| spec(p, 64, 864, [3, 3, 3], 32, plan::default_stage(p, 32), l))
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        let cpu = Params::try_from(case).and_then(|p| cpu::ComdCpu::new(&p));
        Some(cpu.map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// The module for `atoms` atoms in `cells` link cells of `cap` slots each,
/// the cell mapping staging up to `stage` neighbour atoms at once.
fn spec(
    p: Precision,
    wg: u32,
    atoms: u32,
    cells: [u32; 3],
    cap: u32,
    stage: u32,
    layout: Layout,
) -> ShaderSpec {
    let s = layout.stride(atoms);
    let slots = cells[0] * cells[1] * cells[2] * cap;
    let form = cell_form(p);
    ShaderSpec::new("comd", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("NATOMS", atoms)
        .with_u32("NCX", cells[0])
        .with_u32("NCY", cells[1])
        .with_u32("NCZ", cells[2])
        .with_u32("NCELLS", cells[0] * cells[1] * cells[2])
        .with_u32("CAP", cap)
        .with_u32("STAGE", stage)
        .with_u32("SCRATCH", plan::scratch_places(stage, wg))
        .with_u32("ATOM_STRIDE", s.0)
        .with_u32("DIM_STRIDE", s.1)
        .with_u32("SLOT_DIM_STRIDE", layout.stride(slots).1)
        .with_include(sources::GRID)
        .with_include(axes_source(p))
        .with_u32("COARSE_MARGIN_BITS", COARSE_MARGIN_BITS)
        .with("COUNT_SHIFTS", ConstValue::Bool(form.count_shifts))
        .with_include(form.test)
        .with_include(form.take)
}

/// The initial system of a case, in f64 (positions and velocities rounded
/// to precision `p` so the reference starts where the kernel does), with
/// its forces computed.
fn initial(params: &Params, p: Precision) -> Result<(System, (u64, u64))> {
    let n = params.cells as usize;
    let (mut pos, l) = md::fcc([n; 3]);
    let mut rng = fresh_rng();
    if params.init != Init::Comd {
        let d = random_reals(&mut rng, pos.len(), -0.1, 0.1, Precision::F64);
        for (x, dx) in pos.iter_mut().zip(&d) {
            *x += dx;
        }
        for (k, x) in pos.iter_mut().enumerate() {
            let len = l[k % 3];
            *x = x.rem_euclid(len);
        }
    }
    let vel = md::thermal_velocities(pos.len() / 3, md::TEMPERATURE, &mut rng);
    let mut s = System::new(l, quantize(p, &pos), quantize(p, &vel))
        .ok_or_else(|| Error::bad_param("size", "fewer than 3 link cells a side"))?;
    let pairs = s.compute_forces();
    s.frc = quantize(p, &s.frc);
    Ok((s, pairs))
}

/// Atom slots per link cell (CoMD's fixed-capacity boxes): 1.6 times the
/// mean occupancy, and at least the fullest cell of the start (a perfect
/// lattice whose planes fall on cell faces crowds the cells the faces round
/// into), to a multiple of 8. A cell that fills up later is reported, never
/// dropped.
pub(super) fn capacity(s: &System) -> u32 {
    let mean = s.atoms() as f64 / s.ncells() as f64;
    let fullest = s.bin().iter().map(Vec::len).max().unwrap_or(0) as f64;
    slots(mean, fullest)
}

/// Slots for cells of `mean` atoms whose fullest holds `fullest` (see
/// [`capacity`]).
fn slots(mean: f64, fullest: f64) -> u32 {
    ((1.6 * mean).max(fullest) / 8.0).ceil() as u32 * 8
}

/// Per-precision tolerances: (relative, for forces, energies and one
/// kick/drift; relative energy drift over a step run). df64 gets f64's bound
/// in its own unit roundoffs (2^-48 against 2^-53: 3.2e-10): a force is a
/// sum of ~74 pair forces that largely cancel, so its error scales with the
/// arithmetic's rounding, not with the result. On the H200 at 2,048,000
/// atoms f64 reached 3.9-4.3e-12 and df64 1.2-1.5e-10 over two runs each,
/// both about 2x inside.
pub(super) fn tolerance(p: Precision) -> (f64, f64) {
    const F64_TOL: f64 = 1e-11;
    match p {
        Precision::F32 => (5e-4, 1e-3),
        Precision::F64 => (F64_TOL, 1e-4),
        Precision::Df64 => (
            F64_TOL * Precision::Df64.unit_roundoff() / Precision::F64.unit_roundoff(),
            1e-4,
        ),
    }
}

/// The layout's vector of `values` (3 per atom).
pub(super) fn pack(values: &[f64], atoms: usize, s: (u32, u32), reals: usize) -> Vec<f64> {
    let mut out = vec![0.0; reals];
    for (i, &v) in values.iter().enumerate() {
        out[(i / 3) * s.0 as usize + (i % 3) * s.1 as usize] = v;
    }
    debug_assert!(values.len() == 3 * atoms);
    out
}

/// The 3 values per atom of a vector in a layout of strides `s`, atom by atom.
pub(super) fn unpack(raw: &[f64], atoms: usize, s: (u32, u32)) -> Vec<f64> {
    (0..3 * atoms)
        .map(|i| raw[(i / 3) * s.0 as usize + (i % 3) * s.1 as usize])
        .collect()
}
