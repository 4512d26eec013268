//! The launch plan of a snap case, computed without a device: the atoms per
//! batch the binding limit allows, and the dispatches of each kernel stage.

use super::sna::{Config, Tables};
use super::{KernelName, Layout, Params, y_slots};
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, dispatch_shape};
use crate::params::Choice;

/// Batches and dispatches of one case.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// Atoms per batch.
    pub batch: usize,
    /// Run for every batch, in order: (kernel stage, entry point, dispatch shape).
    pub stages: Vec<(KernelName, &'static str, (u32, u32))>,
    /// The force gather's dispatch, for the force kernel.
    pub gather: Option<(u32, u32)>,
    /// (first atom, atoms) of every batch.
    pub batches: Vec<(usize, usize)>,
}

impl Plan {
    /// The plan of `params` for `config` (with the tables `t` of its 2J)
    /// on an adapter with `caps`.
    pub fn new(params: &Params, caps: &Capabilities, config: &Config, t: &Tables) -> Result<Plan> {
        let ny = t.ny();
        let batch = batch_atoms(params, config, t, caps)?;
        let npb = batch * config.nnbr;
        let layout = Layout::of(params.variant);
        let shape = |n: usize| dispatch_shape(n as u64, params.wg, caps.max_workgroups_per_dim);
        let kernels = match params.kernel {
            KernelName::Force => &KernelName::ALL[..4],
            k => &[k][..],
        };
        let mut stages = Vec::new();
        for &k in kernels {
            let entries = match (k, layout.collapsed) {
                (KernelName::ComputeU, false) => vec![("u_atom", shape(batch)?)],
                (KernelName::ComputeU, true) => u_entries(params, caps, (config, t), batch)?,
                (KernelName::ComputeY, false) => vec![("y_atom", shape(batch)?)],
                (KernelName::ComputeY, true) if layout.reorder => {
                    let (atoms, slots) = y_tile(params.wg);
                    let slot_groups = y_slots(t).len().div_ceil(slots as usize);
                    let tiles = batch.div_ceil(atoms as usize) * slot_groups;
                    vec![("y_tiles", shape(tiles * params.wg as usize)?)]
                }
                (KernelName::ComputeY, true) => vec![("y_elems", shape(batch * ny)?)],
                (KernelName::ComputeDu, _) if layout.fused => vec![],
                (KernelName::ComputeDu, false) => vec![("du_atom", shape(batch)?)],
                (KernelName::ComputeDu, true) => vec![("du_pairs", shape(3 * npb)?)],
                (_, _) if layout.fused => {
                    let chains = 32 * 3 * chains(t.twojmax) * npb.div_ceil(32);
                    vec![("de_chains", shape(chains)?), ("de_sums", shape(3 * npb)?)]
                }
                (_, false) => vec![("de_atom", shape(batch)?)],
                (_, true) => vec![("de_pairs", shape(3 * npb)?)],
            };
            stages.extend(entries.into_iter().map(|(entry, sh)| (k, entry, sh)));
        }
        let gather = match params.kernel {
            KernelName::Force => Some(shape(3 * config.ntotal)?),
            _ => None,
        };
        let batches = (0..config.nlocal.div_ceil(batch))
            .map(|b| (b * batch, batch.min(config.nlocal - b * batch)))
            .collect();
        Ok(Plan {
            batch,
            stages,
            gather,
            batches,
        })
    }
}

/// compute_U's dispatches when collapsed: in reorder and fused, where the
/// rows fit workgroup memory, u_walks (U of every pair and the sums in one
/// pass); else U of every pair (u_pairs), then the sums.
fn u_entries(
    params: &Params,
    caps: &Capabilities,
    (config, t): (&Config, &Tables),
    batch: usize,
) -> Result<Vec<(&'static str, (u32, u32))>> {
    let layout = Layout::of(params.variant);
    let npb = batch * config.nnbr;
    let shape = |n: usize| dispatch_shape(n as u64, params.wg, caps.max_workgroups_per_dim);
    let (atoms, wg) = usum_shape(config.nnbr);
    let fits = wg <= caps.max_workgroup_invocations;
    if layout.reorder && fits && walk_storage(params, t, wg) <= caps.max_workgroup_storage as u64 {
        let groups = batch.div_ceil(atoms as usize) * chains(t.twojmax);
        let sh = dispatch_shape(groups as u64 * wg as u64, wg, caps.max_workgroups_per_dim)?;
        return Ok(vec![("u_walks", sh)]);
    }
    let sums = if layout.colmajor && fits {
        let groups = batch.div_ceil(atoms as usize) * t.ny();
        let sh = dispatch_shape(groups as u64 * wg as u64, wg, caps.max_workgroups_per_dim)?;
        ("u_sums_staged", sh)
    } else {
        ("u_sums", shape(batch * t.ny())?)
    };
    Ok(vec![("u_pairs", shape(npb)?), sums])
}

/// Workgroup memory of u_walks' module, `wg` wide: its rows (2J + 1
/// complex an invocation, plus a padding column) and switching functions.
fn walk_storage(params: &Params, t: &Tables, wg: u32) -> u64 {
    let rows = 2 * (t.twojmax as u64 + 1) * (wg as u64 + 1);
    (rows + wg as u64) * params.precision.real_bytes()
}

/// (ROWS_WG, SUMS_WG) of the module of `entry`: its workgroup arrays
/// `usum_wg` wide where the kernel uses them (u_walks' rows, u_sums_staged's
/// partial sums), else 1 wide (see shaders/snap/snap.wgsl).
pub(super) fn workgroup_widths(entry: &str, usum_wg: u32) -> (u32, u32) {
    match entry {
        "u_walks" => (usum_wg, 1),
        "u_sums_staged" => (1, usum_wg),
        _ => (1, 1),
    }
}

/// Chains of rows (of equal mb) in a U-like array of 2J: u_walks and
/// fused's compute_dE run one an invocation.
pub(super) fn chains(twojmax: u32) -> usize {
    twojmax as usize / 2 + 1
}

/// Complex slots of dulist a pair takes: dU in 3 directions, or (fused)
/// each direction's chains' shares of dE.
pub(super) fn dulist_slots(layout: Layout, t: &Tables) -> usize {
    if layout.fused {
        3 * chains(t.twojmax)
    } else {
        3 * t.ny()
    }
}

/// Invocations of a u_walks or u_sums_staged workgroup, about: a warp's
/// width (NVIDIA's), so that the barriers of u_walks' row sums wait on one
/// warp. On the H100 (f64, 2J = 14, 26 neighbours) one atom's 26 pairs a
/// workgroup made compute_U 35% faster than four atoms' 104 (0.375 against
/// 0.581 ms), and two atoms' 52 took 0.423 ms (docs/notebook/benchmarks.md, 2026-11-26 (b)).
const USUM_INVOCATIONS: usize = 32;

/// (atoms, invocations) of one u_walks or u_sums_staged workgroup: an
/// invocation a pair, about [`USUM_INVOCATIONS`] of them (at least one
/// atom's).
pub(super) fn usum_shape(nnbr: usize) -> (u32, u32) {
    let atoms = (USUM_INVOCATIONS / nnbr.max(1)).max(1) as u32;
    (atoms, atoms * nnbr as u32)
}

/// (atoms, element slots) of one compute_Y workgroup of `wg` invocations in
/// reorder and fused: a warp's width of atoms (NVIDIA's; AMD's is two of
/// them), so each warp keeps the atom-fastest loads of the variant.
pub(super) fn y_tile(wg: u32) -> (u32, u32) {
    let atoms = wg.min(32);
    (atoms, wg / atoms)
}

/// Atoms per batch: the request, else as many as the largest scratch array
/// (dU: 3 x NY complex per pair) lets one binding hold.
fn batch_atoms(params: &Params, c: &Config, t: &Tables, caps: &Capabilities) -> Result<usize> {
    // The largest scratch array: dU, or (fused) U of every pair.
    let per_pair = dulist_slots(Layout::of(params.variant), t).max(t.ny());
    let per_atom = (2 * c.nnbr * per_pair) as u64 * params.precision.real_bytes();
    let max = caps.max_storage_binding.min(caps.max_buffer);
    let fit = (max / per_atom) as usize;
    if fit == 0 {
        return Err(Error::OverLimit {
            limit: "max_storage_buffer_binding_size",
            needed: per_atom,
            max,
        });
    }
    let asked = params.batch as usize;
    if params.kernel != KernelName::Force {
        // A kernel timed alone keeps every atom's arrays for its validation.
        if asked > 0 && asked < c.nlocal {
            return Err(Error::bad_param(
                "batch",
                format!(
                    "{} runs on all atoms at once; batches split only the force kernel",
                    params.kernel
                ),
            ));
        }
        if fit < c.nlocal {
            return Err(Error::OverLimit {
                limit: "max_storage_buffer_binding_size",
                needed: per_atom * c.nlocal as u64,
                max,
            });
        }
    }
    let b = if asked > 0 { asked } else { fit };
    Ok(b.min(fit).min(c.nlocal))
}
