//! The synthetic benchmark problem: BCC tungsten with exactly 26 neighbours
//! per atom.
//!
//! BCC shells lie at a sqrt(3)/2 (8 atoms), a (6) and a sqrt(2) (12), then
//! a sqrt(11)/2 (24). With a = 3.1803 A and TestSNAP's W cutoff 4.73442 A
//! (1.489 a) the first three shells, 8 + 6 + 12 = 26 atoms, fall inside:
//! 0.24 A inside the cutoff and 0.54 A outside it. Every atom is displaced
//! by up to 0.05 A per coordinate (a perfect lattice has zero forces by
//! symmetry), which moves a pair distance by at most 0.18 A, so the count
//! stays 26; it is checked anyway.

use rand::Rng;

use super::sna::Config;
use crate::error::{Error, Result};

/// Lattice constant of BCC tungsten (A).
pub const LATTICE: f64 = 3.1803;
/// Cutoff (A): TestSNAP's W value.
pub const RCUT: f64 = 4.73442;
/// Neighbours inside the cutoff.
pub const NEIGHBOURS: usize = 26;
/// Largest displacement per coordinate (A).
const SHAKE: f64 = 0.05;

/// A periodic BCC box of `cells`^3 unit cells (2 atoms each) with random
/// displacements and SNAP coefficients, for 2J = `twojmax`. Needs at least
/// 3 cells a side so the cutoff stays under half the box.
pub fn bcc(cells: usize, twojmax: u32, rng: &mut impl Rng) -> Result<Config> {
    if cells < 3 {
        return Err(Error::bad_param(
            "size",
            format!("{cells} cells a side: at least 3, so the cutoff is under half the box"),
        ));
    }
    let l = cells as f64 * LATTICE;
    let mut pos = Vec::with_capacity(2 * cells.pow(3));
    for z in 0..cells {
        for y in 0..cells {
            for x in 0..cells {
                for off in [0.0, 0.5] {
                    let p = [x, y, z].map(|c| (c as f64 + off) * LATTICE);
                    pos.push(p.map(|c| c + rng.random_range(-SHAKE..SHAKE)));
                }
            }
        }
    }
    let n = pos.len();
    let mut jlist = Vec::with_capacity(n * NEIGHBOURS);
    let mut rij = Vec::with_capacity(n * NEIGHBOURS);
    for (i, pi) in pos.iter().enumerate() {
        let mut found = 0;
        for (j, pj) in pos.iter().enumerate() {
            if i == j {
                continue;
            }
            let d = [0, 1, 2].map(|k| {
                let v = pj[k] - pi[k];
                v - l * (v / l).round()
            });
            if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < RCUT * RCUT {
                jlist.push(j as u32);
                rij.push(d);
                found += 1;
            }
        }
        if found != NEIGHBOURS {
            return Err(Error::Validation(format!(
                "atom {i} has {found} neighbours inside the cutoff, not {NEIGHBOURS}"
            )));
        }
    }
    let ncoeff = super::sna::ncoeff(twojmax);
    // Coefficients of the size of the W fits (|beta| up to ~0.3); forces are
    // linear in them, so their values only set the scale.
    let coeff: Vec<f64> = (0..=ncoeff).map(|_| rng.random_range(-0.2..0.2)).collect();
    Ok(Config {
        twojmax,
        rcut: RCUT,
        coeff,
        nlocal: n,
        ntotal: n,
        nnbr: NEIGHBOURS,
        jlist,
        rij,
    })
}
