//! The launch plan of a comd case, computed without a device: the strides
//! and sizes of its buffers, the adapter limits they must fit, and the
//! dispatches of one run.

use super::{KernelName, Mapping, Params};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::gpu::dispatch_shape;
use crate::gpu::resources::check_size;
use crate::precision::Precision;

/// Neighbour atoms `force_cell` stages at once where the case leaves
/// `stage` at 0 (or a cell's slots where more): 256 in f32, 192 in f64, 128
/// in df64. Workgroup memory and registers, both of which grow with the
/// stage, limit how many workgroups an H100 SM holds for this kernel (8.5
/// KiB more per workgroup made it 1.8x slower), and the 27 neighbour cells
/// hold about 470 atoms at CoMD's density, so it stages them in two to four
/// rounds of whole cells. On the H100 at 2,048,000 atoms these were the
/// best at wg 128: f32 1.370 ms (docs/notebook/benchmarks.md, 2026-11-26 b), f64 with its
/// hits two a step 1.952 ms (against 2.000 at 128 and 1.989 at 256),
/// df64 with its f32 filter 6.13 ms (6.73 at 256; 2026-11-26 g).
fn default_stage_atoms(p: Precision) -> u32 {
    match p {
        Precision::F32 => 256,
        Precision::F64 => 192,
        Precision::Df64 => 128,
    }
}

/// Neighbour atoms `force_cell` stages at once: `requested`, or where it is
/// 0 the default for `p` (at least `cap`). An explicit stage under a cell's
/// `cap` slots is an error: a round stages whole cells.
pub(super) fn stage_atoms(requested: u32, p: Precision, cap: u32) -> Result<u32> {
    match requested {
        0 => Ok(default_stage(p, cap)),
        n if n < cap => Err(Error::bad_param(
            "stage",
            format!("{n} atoms: the stage must hold a whole cell's {cap} slots"),
        )),
        n => Ok(n),
    }
}

/// The default stage for `p` with cells of `cap` slots (see
/// [`default_stage_atoms`]).
pub(super) fn default_stage(p: Precision, cap: u32) -> u32 {
    default_stage_atoms(p).max(cap)
}

/// Places (three reals each) of `force_cell`'s scratch: the stage and one
/// far place past it during the rounds, then the invocations' partial
/// forces.
pub(super) fn scratch_places(stage: u32, wg: u32) -> u32 {
    (stage + 1).max(wg)
}

/// Buffer shapes and dispatches of one case.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// Reals of each per-atom vector (positions, velocities, forces).
    pub reals: u64,
    /// The layout's (atom, dimension) strides over the atoms.
    pub strides: (u32, u32),
    /// The layout's strides over the cell slots of the gathered positions.
    pub slot_strides: (u32, u32),
    /// Reals of the gathered positions.
    pub slot_reals: u64,
    /// Atom slots per link cell.
    pub cap: u32,
    /// Neighbour atoms the cell mapping stages at once.
    pub stage: u32,
    /// Slots over every cell.
    pub nslots: u32,
    /// (entry point, dispatch shape) in the order one run records them.
    pub passes: Vec<(&'static str, (u32, u32))>,
}

/// Reals of each per-atom vector; `OverLimit` when one would not fit a binding.
/// Cheap: checked before the system is built.
pub(super) fn check_vectors(params: &Params, caps: &Capabilities) -> Result<u64> {
    let reals = params.layout.reals_per_atom() * params.atoms;
    check_size(caps, reals * params.precision.real_bytes())?;
    Ok(reals)
}

impl Plan {
    /// The plan of `params` on an adapter with `caps`, for a system of
    /// `cells` link cells of `cap` slots each.
    pub fn new(params: &Params, caps: &Capabilities, cells: [usize; 3], cap: u32) -> Result<Plan> {
        let (rb, wg, atoms) = (
            params.precision.real_bytes(),
            params.wg,
            params.atoms as u32,
        );
        let reals = check_vectors(params, caps)?;
        let stage = stage_atoms(params.stage, params.precision, cap)?;
        let ncells = (cells[0] * cells[1] * cells[2]) as u32;
        check_size(
            caps,
            (u64::from(ncells) * u64::from(cap) + u64::from(atoms)) * 4,
        )?;
        if params.mapping == Some(Mapping::Cell) {
            if wg < cap {
                return Err(Error::bad_param(
                    "wg",
                    format!(
                        "the cell mapping gives each of a cell's {cap} atom slots an invocation: wg must be at least {cap}"
                    ),
                ));
            }
            // comd.wgsl's force_cell: its scratch, the partial energies,
            // 28 prefix sums, the 27 neighbour cells with their shifts (3
            // reals each), 28 round ends and the round count; and what the
            // candidate test stages beside each position.
            let places = u64::from(scratch_places(stage, wg));
            let staged = (places * 3 + u64::from(wg) + 27 * 3) * rb
                + (28 + 27 + 28 + 1) * 4
                + u64::from(stage + 1) * super::form::cell_form(params.precision).probe_bytes;
            if staged > caps.max_workgroup_storage as u64 {
                return Err(Error::OverLimit {
                    limit: "max_compute_workgroup_storage_size",
                    needed: staged,
                    max: caps.max_workgroup_storage as u64,
                });
            }
        }
        let nslots = ncells * cap;
        let slot_reals = reals / u64::from(atoms) * u64::from(nslots);
        check_size(caps, slot_reals * rb)?;
        Ok(Plan {
            reals,
            strides: params.layout.stride(atoms),
            slot_strides: params.layout.stride(nslots),
            slot_reals,
            cap,
            stage,
            nslots,
            passes: passes(params, caps, ncells, nslots)?,
        })
    }
}

/// The dispatches of one run: per atom, per cell slot or per cell, over
/// `groups` workgroups where the case fixes them (grid-stride loops cover
/// the rest).
fn passes(
    params: &Params,
    caps: &Capabilities,
    ncells: u32,
    nslots: u32,
) -> Result<Vec<(&'static str, (u32, u32))>> {
    let (wg, groups) = (params.wg, u64::from(params.groups));
    let max = caps.max_workgroups_per_dim;
    let over = |n: u64| dispatch_shape(n, wg, max);
    let fixed = (groups > 0)
        .then(|| over(groups * u64::from(wg)))
        .transpose()?;
    let per_atom = fixed.map_or_else(|| over(params.atoms), Ok)?;
    let per_slot = fixed.map_or_else(|| over(u64::from(nslots)), Ok)?;
    let per_cell = fixed.map_or_else(|| over(u64::from(ncells) * u64::from(wg)), Ok)?;
    let force = match params.mapping {
        Some(Mapping::Cell) => ("force_cell", per_cell),
        _ => ("force_atom", per_slot),
    };
    let clear = over(u64::from(ncells))?;
    Ok(match params.kernel {
        KernelName::AdvanceVelocity => vec![("advance_velocity", per_atom)],
        KernelName::AdvancePosition => vec![("advance_position", per_atom)],
        KernelName::Redistribute => vec![("clear_cells", clear), ("bin_atoms", per_atom)],
        KernelName::Force => vec![force],
        // As CoMD steps, in three passes: clearing the cells, the opening
        // half kick, the drift, the binning and the copy into cell order
        // in one (advance_bin), and the force with the closing half kick
        // (coefficient 13 set). On the H100 at 2,048,000 atoms four passes
        // (the gather apart) took the step from 1.622 to 1.525 ms (f32) and
        // 2.354 to 2.231 ms (f64) against the seven passes of the kernels
        // timed alone (docs/notebook/benchmarks.md, 2026-11-26 (c)); the gather's fusion:
        // 2026-11-26 (g).
        KernelName::Step => vec![("clear_cells", clear), ("advance_bin", per_atom), force],
    })
}
