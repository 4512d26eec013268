//! Whether a comd case fits the adapter and the host, checked when its
//! cases are made, before the system is built: every buffer within one
//! binding (no array is split), and what the case holds within the
//! device's and the host's memory.
//!
//! The slots a link cell gets depend on the start (`super::capacity`: at
//! least the fullest cell), which is not drawn yet; the check takes the
//! least they can be, 1.6 times the mean occupancy, so it never refuses a
//! case that fits, and `plan::Plan::new` checks the start's own slots.

use super::md::{CUTOFF, LATTICE};
use super::{Layout, Params};
use crate::apps::blocks::{self, Footprint};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::gpu::resources::check_size;

/// Link cells a side of a box of `n` unit cells (as `md::System::new`
/// counts them).
fn link_cells(n: u64) -> u64 {
    (n as f64 * LATTICE / CUTOFF).floor() as u64
}

/// Bytes of each buffer of a case of `n` unit cells in `layout` and reals
/// of `rb` bytes: the per-atom vectors (positions, velocities, forces), the
/// per-atom energies, the cell counts, the cell lists and every atom's
/// cell, and the positions gathered into cell slots.
fn buffers(n: u64, layout: Layout, rb: u64) -> [u64; 5] {
    let atoms = 4 * n.pow(3);
    let ncells = link_cells(n).pow(3).max(1);
    let cap = (1.6 * atoms as f64 / ncells as f64 / 8.0).ceil() as u64 * 8;
    let vector = layout.reals_per_atom() * atoms * rb;
    [
        vector,
        atoms * rb,
        ncells * 4,
        (ncells * cap + atoms) * 4,
        layout.reals_per_atom() * ncells * cap * rb,
    ]
}

/// What a case of `n` unit cells holds. The device: its buffers. The
/// host: the start and the reference systems (positions, velocities,
/// forces and energies in f64, 80 bytes an atom each), and the buffers'
/// bytes once (uploads and read-backs).
fn footprint(n: u64, layout: Layout, rb: u64) -> Footprint {
    let b = buffers(n, layout, rb);
    // Three per-atom vectors.
    let device = b.iter().sum::<u64>() + 2 * b[0];
    Footprint {
        device,
        host: 2 * 80 * 4 * n.pow(3) + device,
    }
}

/// `params`' case at `n` unit cells against `caps`.
fn check(params: &Params, n: u64, caps: &Capabilities) -> Result<()> {
    let rb = params.precision.real_bytes();
    for bytes in buffers(n, params.layout, rb) {
        check_size(caps, bytes)?;
    }
    blocks::check_footprint(footprint(n, params.layout, rb), caps)
}

/// Checks before the system is built that `params` fits `caps`; the error
/// names the largest size that does.
pub(super) fn fits(params: &Params, caps: &Capabilities) -> Result<()> {
    let Err(e) = check(params, params.cells, caps) else {
        return Ok(());
    };
    let largest = match blocks::largest_fitting(params.cells, |n| check(params, n, caps).is_ok()) {
        n if n < super::MIN_CELLS => "no size fits".to_string(),
        n => format!("the largest that fits is {n}"),
    };
    Err(Error::bad_param(
        "size",
        format!(
            "{} unit cells in {} on {} do not fit this adapter ({e}); {largest}",
            params.cells, params.precision, params.layout
        ),
    ))
}
