//! The launch plan of a comd case, computed without a device: the strides
//! and sizes of its buffers, the adapter limits they must fit, and the
//! dispatches of one run.

use super::{KernelName, Mapping, Params};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::gpu::dispatch_shape;
use crate::gpu::resources::check_size;

/// Neighbour cells `force_cell` may stage a round (the `round` parameter):
/// an x-row, a z-slab, or all 27.
pub(super) const ROUNDS: [u32; 4] = [1, 3, 9, 27];

/// Neighbour cells `force_cell` stages a round where the case leaves
/// `round` at 0: a z-slab. On the H100 at 2,048,000 atoms it leads in f32
/// (1.47 ms at wg 128 against 1.73 for an x-row); in f64 an x-row led by 7%
/// until the four-candidate test, and now trails by 1%. All 27 at once
/// measured 1.9x slower in f32 and 3.4x in f64, and staging 16-byte vectors
/// instead of three reals 8% and 32% slower (BENCHMARKS.md, 2026-11-25).
pub(super) const DEFAULT_ROUND: u32 = 9;

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
            // comd.wgsl's force_cell: a round's cells of staged positions,
            // the invocations' partial sums (4 reals each), 28 prefix sums
            // and the 27 neighbour cells with their shifts (3 reals each).
            let round = u64::from(params.round_cells()) * u64::from(cap) * 3;
            let staged = (round + u64::from(wg) * 4 + 27 * 3) * rb + (28 + 27) * 4;
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
        KernelName::Redistribute => vec![
            ("clear_cells", clear),
            ("bin_atoms", per_atom),
            ("gather_cells", per_slot),
        ],
        KernelName::Force => vec![force],
        KernelName::Step => vec![
            ("advance_velocity", per_atom),
            ("advance_position", per_atom),
            ("clear_cells", clear),
            ("bin_atoms", per_atom),
            ("gather_cells", per_slot),
            force,
            ("advance_velocity", per_atom),
        ],
    })
}
