//! Whether a comd case fits the adapter and the host, checked when its
//! cases are made, before the system is built: every buffer within one
//! binding (no array is split), and what the case holds within the
//! device's and the host's memory.
//!
//! The slots a link cell gets depend on the start (`super::capacity`: at
//! least the fullest cell), which is not drawn yet; the check takes the
//! most they can be, from where the lattice's planes fall on the cells
//! (`fullest_bound`), so a case it passes is never refused for its slots
//! once the start is drawn.

use super::md::{CUTOFF, LATTICE};
use super::{Init, Params};
use crate::apps::blocks::{self, Footprint};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::gpu::resources::check_size;
use crate::precision::Precision;

/// Link cells a side of a box of `n` unit cells (as `md::System::new`
/// counts them).
fn link_cells(n: u64) -> u64 {
    (n as f64 * LATTICE / CUTOFF).floor() as u64
}

/// The most atoms a link cell of the start of a box of `n` unit cells can
/// hold. Along each axis the atoms of the face-centred lattice sit on
/// planes at whole and half lattice constants, and an atom's cell along
/// the axis depends on its coordinate there alone. So per cell along an
/// axis: the planes of each offset (0 or a/2) that can land in it, exactly
/// as `md::System::cell_of` bins them for CoMD's perfect lattice, and
/// every cell a displaced atom may reach (up to 0.1 A, and the rounding of
/// the precision's reals) otherwise; a cell's bound is then the sum over
/// the lattice's four basis atoms of the product of their offsets' counts.
fn fullest_bound(n: u64, init: Init, p: Precision) -> u64 {
    let c = link_cells(n).max(1) as i64;
    let len = n as f64 * LATTICE;
    let per = c as f64 / len;
    let margin = match init {
        Init::Comd => 0.0,
        Init::Displaced => 0.1 + 1e-4,
    };
    // counts[cell][offset]
    let mut counts = vec![[0u64; 2]; c as usize];
    for k in 0..n {
        for (o, half) in [0.0, 0.5].into_iter().enumerate() {
            let x = p.round((k as f64 + half) * LATTICE);
            let at = |x: f64| (x * per).floor() as i64;
            let (lo, hi) = match init {
                Init::Comd => {
                    let cell = at(x).clamp(0, c - 1);
                    (cell, cell)
                }
                Init::Displaced => (at(x - margin), at(x + margin)),
            };
            for cell in lo..=hi {
                counts[cell.rem_euclid(c) as usize][o] += 1;
            }
        }
    }
    let mut pairs = counts;
    pairs.sort_unstable();
    pairs.dedup();
    let mut most = 0;
    for x in &pairs {
        for y in &pairs {
            for z in &pairs {
                // Basis (0,0,0), (a/2,a/2,0), (a/2,0,a/2), (0,a/2,a/2).
                let atoms = x[0] * y[0] * z[0]
                    + x[1] * y[1] * z[0]
                    + x[1] * y[0] * z[1]
                    + x[0] * y[1] * z[1];
                most = most.max(atoms);
            }
        }
    }
    most
}

/// Bytes of each buffer of a case of `params` at `n` unit cells: the
/// per-atom vectors (positions, velocities, forces), the per-atom
/// energies, the cell counts, the cell lists and every atom's cell, and
/// the positions gathered into cell slots.
fn buffers(params: &Params, n: u64) -> [u64; 5] {
    let (layout, p) = (params.layout, params.precision);
    let rb = p.real_bytes();
    let atoms = 4 * n.pow(3);
    let ncells = link_cells(n).pow(3).max(1);
    let fullest = fullest_bound(n, params.init, p);
    let cap = u64::from(super::slots(atoms as f64 / ncells as f64, fullest as f64));
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
fn footprint(params: &Params, n: u64) -> Footprint {
    let b = buffers(params, n);
    // Three per-atom vectors.
    let device = b.iter().sum::<u64>() + 2 * b[0];
    Footprint {
        device,
        host: 2 * 80 * 4 * n.pow(3) + device,
    }
}

/// `params`' case at `n` unit cells against `caps`.
fn check(params: &Params, n: u64, caps: &Capabilities) -> Result<()> {
    for bytes in buffers(params, n) {
        check_size(caps, bytes)?;
    }
    blocks::check_footprint(footprint(params, n), caps)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The fullest cell of drawn starts never passes the bound, and the
    /// perfect lattice's bound is its fullest cell.
    #[test]
    fn the_bound_holds_every_start() {
        for n in [6, 7, 9, 11] {
            for p in [Precision::F32, Precision::F64] {
                for init in [Init::Comd, Init::Displaced] {
                    let params = Params {
                        init,
                        cells: n,
                        ..super::super::tests::small(p)
                    };
                    let (start, _) = super::super::initial(&params, p).expect("start");
                    let fullest = start.bin().iter().map(Vec::len).max().unwrap_or(0) as u64;
                    let bound = fullest_bound(n, init, p);
                    assert!(fullest <= bound, "{n} {p} {init:?}: {fullest} > {bound}");
                    if init == Init::Comd {
                        assert_eq!(fullest, bound, "{n} {p}");
                    }
                }
            }
        }
    }
}
