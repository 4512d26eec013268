//! comd's work and traffic model: the FLOPs and device-memory bytes of one
//! run, and the bytes its loads and stores request (its L1 traffic).

use super::form::PairFlops;
use super::md::System;
use super::{KernelName, Mapping, Params};
use crate::app::Model;
use crate::apps::common::Traffic;
use crate::precision::Precision;

/// Work and traffic of one run of `kernel`; `pairs` = (candidates, inside).
pub(super) fn model(
    kernel: KernelName,
    atoms: u64,
    ncells: u64,
    pairs: (u64, u64),
    steps: u64,
    p: Precision,
    flops: PairFlops,
) -> Model {
    let r = p.real_bytes() as f64;
    let n = atoms as f64;
    let kick = Model {
        flops: 6.0 * n,
        bytes: 9.0 * r * n,
    };
    let drift = Model {
        flops: 6.0 * n,
        bytes: 9.0 * r * n,
    };
    // Clearing writes a count a cell; binning reads a position and writes
    // its copy in cell order, a slot, a cell and a count.
    let redistribute = Model {
        flops: 3.0 * n,
        bytes: (6.0 * r + 12.0) * n + 4.0 * ncells as f64,
    };
    let force = Model {
        flops: flops.of(pairs),
        bytes: (7.0 * r + 4.0) * n + 4.0 * ncells as f64,
    };
    match kernel {
        KernelName::AdvanceVelocity => kick,
        KernelName::AdvancePosition => drift,
        KernelName::Redistribute => redistribute,
        KernelName::Force => force,
        // The step's passes (plan.rs): clearing; the opening kick, drift,
        // binning and copy in one, which reads F, v and r once and writes v
        // and r (15 reals an atom, the binning's read of r among them) and
        // the copy; and the force, which reads and writes v for the closing
        // kick (6).
        KernelName::Step => Model {
            flops: steps as f64
                * (2.0 * kick.flops + drift.flops + redistribute.flops + force.flops),
            bytes: steps as f64 * (redistribute.bytes + force.bytes + 18.0 * r * n),
        },
    }
}

/// What the force kernels' loads depend on: the link cells as the kernels
/// hold them (each cell's atom count and the 27 cells around it) and the
/// candidate and inside pairs the host counted over them.
pub(super) struct Cells<'a> {
    /// The system whose cell lists the force reads.
    pub system: &'a System,
    /// Atom slots per cell.
    pub cap: u32,
    /// (candidates, pairs inside the cutoff), each pair from both atoms.
    pub pairs: (u64, u64),
}

/// Bytes one run's loads and stores request, every access counted, as
/// `shaders/comd/comd.wgsl` issues them (the L1 level's traffic). An
/// atomic (a cell count's add, clear or load) counts as one access of its
/// word. The coefficients are a uniform and not counted, nor is workgroup
/// memory (force_cell's staged neighbours, partial forces and scans: it is
/// not storage traffic). Per atom n and cell of the passes:
///
/// - advance_velocity, advance_position: 6 reals loaded, 3 stored (the
///   model's bytes);
/// - redistribute: a count cleared a cell; a position loaded, its copy in
///   cell order stored, and a count's add, a slot and the atom's cell
///   stored (3 words) an atom: the model's bytes;
/// - force ([`force_traffic`]): the neighbours' positions each candidate
///   reads, which depend on the cells' occupancy;
/// - step, a run of `steps` of: the clear, advance_bin (9 reals loaded, 9
///   stored and 3 words an atom) and the force with its closing half kick
///   (the velocity loaded and stored, 6 reals an atom more). Every step is
///   counted with the start's cells and pairs, as the model's FLOPs are
///   (the atoms move far less than a cell in a step).
///
/// The run's atom count, mapping and workgroup size come from `params`.
pub(super) fn issued_bytes(params: &Params, cells: &Cells) -> f64 {
    let n = params.atoms;
    let ncells = cells.system.ncells() as u64;
    let force = |kick: bool| force_traffic(params.mapping, params.wg, cells, kick);
    let t = match params.kernel {
        KernelName::AdvanceVelocity | KernelName::AdvancePosition => Traffic::new(9 * n, 0),
        KernelName::Redistribute => Traffic::new(6 * n, 3 * n + ncells),
        KernelName::Force => force(false),
        KernelName::Step => {
            (Traffic::new(18 * n, 3 * n + ncells) + force(true)).times(params.steps)
        }
    };
    t.bytes(params.precision)
}

/// One force pass's loads and stores; `kick` adds the step's closing half
/// kick (the velocity loaded and stored, 6 reals an atom).
///
/// `force_atom`, an invocation per cell slot: every slot loads its cell's
/// count (a word); an occupied one its position (3 reals), the count of
/// each of the 27 cells around it (27 words), every candidate's position
/// (3 reals; not its own) and each pair inside the cutoff's again for its
/// term (3), then its atom id (a word) and stores its force and energy (4
/// reals). `force_cell`, a workgroup per cell: 27 counts; each of the
/// cell's atoms' positions by every invocation that takes a share of its
/// candidates (`wg / atoms` of them); every atom of the 27 cells once, as
/// it is staged; then per atom its id and its force and energy stored.
fn force_traffic(mapping: Option<Mapping>, wg: u32, cells: &Cells, kick: bool) -> Traffic {
    let s = cells.system;
    let n = s.atoms() as u64;
    let ncells = s.ncells() as u64;
    let (candidates, inside) = cells.pairs;
    let occupancy: Vec<u64> = s
        .bin()
        .iter()
        .map(|c| (c.len() as u64).min(u64::from(cells.cap)))
        .collect();
    let stores = 4 * n + if kick { 6 * n } else { 0 };
    match mapping {
        Some(Mapping::Cell) => {
            // Every invocation of a share of an atom's candidates loads it.
            let own: u64 = occupancy
                .iter()
                .filter(|&&o| o > 0)
                .map(|&o| u64::from(wg) / o * o)
                .sum();
            let staged: u64 = (0..s.ncells())
                .map(|c| s.neighbours(c).iter().map(|&k| occupancy[k]).sum::<u64>())
                .sum();
            Traffic {
                reals: 3 * own + 3 * staged + stores,
                words: 27 * ncells + n,
            }
        }
        _ => Traffic {
            reals: 3 * n + 3 * (candidates + inside) + stores,
            words: ncells * u64::from(cells.cap) + 27 * n + n,
        },
    }
}
