//! CoMD's Lennard-Jones physics in f64: the FCC copper lattice, link cells,
//! the shifted LJ pair potential, velocity Verlet and the energies, in
//! CoMD's units (eV, Angstrom, fs; masses in eV fs^2 / A^2).

use rand::Rng;

use crate::parallel;

/// FCC lattice constant of copper (A).
pub const LATTICE: f64 = 3.615;
/// LJ sigma (A).
pub const SIGMA: f64 = 2.315;
/// LJ epsilon (eV).
pub const EPSILON: f64 = 0.167;
/// Cutoff: 2.5 sigma.
pub const CUTOFF: f64 = 2.5 * SIGMA;
/// Copper's mass in amu.
pub const MASS_AMU: f64 = 63.55;
/// One amu in eV fs^2 / A^2 (CoMD's internal mass unit).
pub const AMU: f64 = 1.660538921e-27 * 1e-20 / (1e-30 * 1.602176565e-19);
/// Boltzmann's constant (eV / K).
pub const KB: f64 = 8.6173324e-5;
/// Time step (fs).
pub const DT: f64 = 1.0;
/// Initial temperature (K).
pub const TEMPERATURE: f64 = 600.0;
/// Potential energy per atom CoMD prints at step 0 for its default run
/// (a perfect lattice, so it depends on the geometry alone).
pub const COMD_PE0: f64 = -1.243619295058;

/// Mass of an atom in internal units.
pub fn mass() -> f64 {
    MASS_AMU * AMU
}

/// The unshifted potential at the cutoff, which the shifted one subtracts.
pub fn shift() -> f64 {
    let s6 = (SIGMA * SIGMA / (CUTOFF * CUTOFF)).powi(3);
    4.0 * EPSILON * s6 * (s6 - 1.0)
}

/// The pair potential, shifted to zero at the cutoff.
pub fn phi(r2: f64) -> f64 {
    let s6 = (SIGMA * SIGMA / r2).powi(3);
    4.0 * EPSILON * s6 * (s6 - 1.0) - shift()
}

/// The pair force over the offset, F / r, at squared distance `r2`: the
/// force on an atom from a neighbour at offset d is -F/r d.
fn pair_force(r2: f64) -> f64 {
    let s6 = (SIGMA * SIGMA / r2).powi(3);
    24.0 * EPSILON * s6 * (2.0 * s6 - 1.0) / r2
}

/// An FCC box of `n` unit cells per dimension (4 atoms each), atoms on the
/// perfect lattice: positions (3 per atom) and the box lengths.
pub fn fcc(n: [usize; 3]) -> (Vec<f64>, [f64; 3]) {
    const BASIS: [[f64; 3]; 4] = [[0.0; 3], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]];
    let mut pos = Vec::with_capacity(12 * n[0] * n[1] * n[2]);
    for z in 0..n[2] {
        for y in 0..n[1] {
            for x in 0..n[0] {
                for b in BASIS {
                    pos.push((x as f64 + b[0]) * LATTICE);
                    pos.push((y as f64 + b[1]) * LATTICE);
                    pos.push((z as f64 + b[2]) * LATTICE);
                }
            }
        }
    }
    (pos, n.map(|v| v as f64 * LATTICE))
}

/// Velocities of `atoms` atoms at temperature `t`: Gaussian components,
/// total momentum removed, then scaled so the kinetic energy is exactly
/// 3/2 kB T per atom (as CoMD's setTemperature does).
pub fn thermal_velocities(atoms: usize, t: f64, rng: &mut impl Rng) -> Vec<f64> {
    let mut v: Vec<f64> = (0..3 * atoms)
        .map(|_| {
            // Box-Muller.
            let (u1, u2): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random());
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        })
        .collect();
    for d in 0..3 {
        let mean = v.iter().skip(d).step_by(3).sum::<f64>() / atoms as f64;
        v.iter_mut().skip(d).step_by(3).for_each(|x| *x -= mean);
    }
    let ke: f64 = 0.5 * mass() * v.iter().map(|x| x * x).sum::<f64>();
    let scale = (1.5 * KB * t * atoms as f64 / ke).sqrt();
    v.iter_mut().for_each(|x| *x *= scale);
    v
}

/// A periodic box of atoms with link cells no smaller than the cutoff.
#[derive(Clone, Debug)]
pub struct System {
    /// Box lengths (A).
    pub box_len: [f64; 3],
    /// Link cells per dimension.
    pub cells: [usize; 3],
    /// Positions, 3 per atom, inside [0, L).
    pub pos: Vec<f64>,
    /// Velocities (A / fs), 3 per atom.
    pub vel: Vec<f64>,
    /// Forces (eV / A), 3 per atom.
    pub frc: Vec<f64>,
    /// Half of every pair energy of each atom (eV).
    pub epot: Vec<f64>,
}

impl System {
    /// A box with these positions and velocities; forces not yet computed.
    /// `None` when the box has fewer than 3 link cells along a dimension
    /// (the 27-cell stencil would visit a cell twice).
    pub fn new(box_len: [f64; 3], pos: Vec<f64>, vel: Vec<f64>) -> Option<System> {
        let cells = box_len.map(|l| (l / CUTOFF).floor() as usize);
        if cells.iter().any(|&c| c < 3) {
            return None;
        }
        let n = pos.len() / 3;
        Some(System {
            box_len,
            cells,
            pos,
            vel,
            frc: vec![0.0; 3 * n],
            epot: vec![0.0; n],
        })
    }

    /// Atoms.
    pub fn atoms(&self) -> usize {
        self.pos.len() / 3
    }

    /// Link cells in all.
    pub fn ncells(&self) -> usize {
        self.cells.iter().product()
    }

    /// The cell holding atom `i` (as the kernels compute it).
    pub fn cell_of(&self, i: usize) -> usize {
        let k: [usize; 3] = std::array::from_fn(|d| {
            let per = self.cells[d] as f64 / self.box_len[d];
            ((self.pos[3 * i + d] * per).max(0.0) as usize).min(self.cells[d] - 1)
        });
        k[0] + self.cells[0] * (k[1] + self.cells[1] * k[2])
    }

    /// Every cell's atoms, in atom order.
    pub fn bin(&self) -> Vec<Vec<u32>> {
        let mut cells = vec![Vec::new(); self.ncells()];
        for i in 0..self.atoms() {
            cells[self.cell_of(i)].push(i as u32);
        }
        cells
    }

    /// The 27 cells around cell `c` (itself included), periodic.
    pub fn neighbours(&self, c: usize) -> [usize; 27] {
        let [nx, ny, nz] = self.cells;
        let (x, y, z) = (c % nx, (c / nx) % ny, c / (nx * ny));
        std::array::from_fn(|n| {
            let (ox, oy, oz) = (n % 3, (n / 3) % 3, n / 9);
            let w = |v: usize, o: usize, m: usize| (v + m + o - 1) % m;
            w(x, ox, nx) + nx * (w(y, oy, ny) + ny * w(z, oz, nz))
        })
    }

    /// Forces and per-atom energies over the link cells; returns the pair
    /// candidates examined and the pairs inside the cutoff (each pair counted
    /// from both atoms, as the kernels do).
    pub fn compute_forces(&mut self) -> (u64, u64) {
        // Per atom: force (3), energy, candidates, pairs inside. Blocks of
        // atoms per task and the counts taken in the same pass: one task per
        // atom and a second, serial pass for the counts made the reference
        // of 2 million atoms take 40 s on 16 cores.
        const W: usize = 6;
        const BLOCK: usize = 512;
        let cells = self.bin();
        let mut out = vec![0.0; W * self.atoms()];
        let this = &*self;
        parallel::for_chunks(&mut out, W * BLOCK, |first, chunk| {
            for (a, acc) in chunk.chunks_exact_mut(W).enumerate() {
                this.atom_force(first / W + a, &cells, acc);
            }
        });
        let (mut cand, mut inside) = (0u64, 0u64);
        for (i, o) in out.chunks_exact(W).enumerate() {
            self.frc[3 * i..3 * i + 3].copy_from_slice(&o[..3]);
            self.epot[i] = o[3];
            cand += o[4] as u64;
            inside += o[5] as u64;
        }
        (cand, inside)
    }

    /// Every candidate of atom `i` (the other atoms of the 27 cells around
    /// its own): `visit` gets the offset to its nearest image and the
    /// squared distance.
    fn candidates(&self, i: usize, cells: &[Vec<u32>], mut visit: impl FnMut([f64; 3], f64)) {
        for nc in self.neighbours(self.cell_of(i)) {
            for &j in &cells[nc] {
                let j = j as usize;
                if j == i {
                    continue;
                }
                let d: [f64; 3] = std::array::from_fn(|k| {
                    let l = self.box_len[k];
                    let mut v = self.pos[3 * j + k] - self.pos[3 * i + k];
                    if v > 0.5 * l {
                        v -= l;
                    }
                    if v < -0.5 * l {
                        v += l;
                    }
                    v
                });
                visit(d, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            }
        }
    }

    /// Force, energy, candidates and pairs inside the cutoff of atom `i`
    /// into `acc` (zeroed).
    fn atom_force(&self, i: usize, cells: &[Vec<u32>], acc: &mut [f64]) {
        let rc2 = CUTOFF * CUTOFF;
        self.candidates(i, cells, |d, r2| {
            acc[4] += 1.0;
            if r2 >= rc2 {
                return;
            }
            acc[5] += 1.0;
            let fr = pair_force(r2);
            for k in 0..3 {
                acc[k] -= fr * d[k];
            }
            acc[3] += 0.5 * phi(r2);
        });
    }

    /// Per force component (3 per atom), the sum of |that component| of
    /// every pair force whose squared distance lies within `window` of the
    /// cutoff's. Such a pair is in or out by the arithmetic's rounding of
    /// the distance, and the potential is shifted to zero at the cutoff but
    /// its force is not (about 2.8e-3 eV/A there), so a correct force may
    /// differ from the reference by these pairs' forces.
    pub fn cutoff_straddles(&self, window: f64) -> Vec<f64> {
        const BLOCK: usize = 512;
        let rc2 = CUTOFF * CUTOFF;
        let cells = self.bin();
        let mut out = vec![0.0; 3 * self.atoms()];
        parallel::for_chunks(&mut out, 3 * BLOCK, |first, chunk| {
            for (a, acc) in chunk.chunks_exact_mut(3).enumerate() {
                self.candidates(first / 3 + a, &cells, |d, r2| {
                    if (r2 - rc2).abs() <= window {
                        let fr = pair_force(r2);
                        for k in 0..3 {
                            acc[k] += (fr * d[k]).abs();
                        }
                    }
                });
            }
        });
        out
    }

    /// AdvanceVelocity: half a kick.
    pub fn kick(&mut self) {
        let h = DT / (2.0 * mass());
        for (v, f) in self.vel.iter_mut().zip(&self.frc) {
            *v += h * f;
        }
    }

    /// AdvancePosition, wrapped into the box.
    pub fn drift(&mut self) {
        for (k, (x, v)) in self.pos.iter_mut().zip(&self.vel).enumerate() {
            let l = self.box_len[k % 3];
            *x += DT * v;
            if *x < 0.0 {
                *x += l;
            }
            if *x >= l {
                *x -= l;
            }
        }
    }

    /// One velocity Verlet step (forces must be current).
    pub fn step(&mut self) {
        self.kick();
        self.drift();
        self.compute_forces();
        self.kick();
    }

    /// Potential and kinetic energy per atom.
    pub fn energies(&self) -> (f64, f64) {
        let n = self.atoms() as f64;
        let pe: f64 = self.epot.iter().sum();
        let ke = 0.5 * mass() * self.vel.iter().map(|v| v * v).sum::<f64>();
        (pe / n, ke / n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A perfect lattice's energy per atom is the lattice sum, whatever the
    /// box once it holds the cutoff sphere: 6^3 unit cells give CoMD's
    /// 20^3 figure.
    #[test]
    fn lattice_energy_is_comds() {
        let (pos, l) = fcc([6, 6, 6]);
        let n = pos.len() / 3;
        let mut s = System::new(l, pos, vec![0.0; 3 * n]).expect("box");
        s.compute_forces();
        let (pe, _) = s.energies();
        assert!((pe / COMD_PE0 - 1.0).abs() < 1e-10, "{pe}");
        assert!(s.frc.iter().all(|f| f.abs() < 1e-12));
    }

    /// Two atoms a hair inside the cutoff along x, then a hair outside: the
    /// force jumps by the pair's force there, and the straddle allowance of
    /// a window holding both distances is exactly that jump, on x only.
    #[test]
    fn a_straddling_pair_is_allowed_its_force() {
        let at = |r: f64| {
            let pos = vec![1.0, 9.0, 9.0, 1.0 + r, 9.0, 9.0];
            System::new([18.0; 3], pos, vec![0.0; 6]).expect("box")
        };
        let (mut inside, mut outside) = (at(CUTOFF - 1e-9), at(CUTOFF + 1e-9));
        inside.compute_forces();
        outside.compute_forces();
        let jump = (inside.frc[0] - outside.frc[0]).abs();
        assert!(jump > 2e-3, "{jump}");
        let allow = inside.cutoff_straddles(1e-7);
        assert!(
            (allow[0] - jump).abs() < 1e-12 * jump,
            "{allow:?} vs {jump}"
        );
        assert_eq!(&allow[1..3], &[0.0, 0.0]);
        assert!((allow[3] - jump).abs() < 1e-12 * jump);
        // A window narrower than the pair's distance from the cutoff allows nothing.
        assert!(inside.cutoff_straddles(1e-10).iter().all(|&a| a == 0.0));
    }

    #[test]
    fn thermal_start_has_the_temperature_and_no_momentum() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let v = thermal_velocities(500, TEMPERATURE, &mut rng);
        let ke = 0.5 * mass() * v.iter().map(|x| x * x).sum::<f64>() / 500.0;
        // CoMD prints 0.077555991600 eV/atom at 600 K.
        assert!((ke - 0.077555991600).abs() < 1e-11, "{ke}");
        for d in 0..3 {
            let p: f64 = v.iter().skip(d).step_by(3).sum();
            assert!(p.abs() < 1e-12);
        }
    }

    #[test]
    fn verlet_conserves_energy() {
        let (pos, l) = fcc([6, 6, 6]);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        let vel = thermal_velocities(pos.len() / 3, TEMPERATURE, &mut rng);
        let mut s = System::new(l, pos, vel).expect("box");
        s.compute_forces();
        let (p0, k0) = s.energies();
        for _ in 0..20 {
            s.step();
        }
        let (p1, k1) = s.energies();
        let drift = ((p1 + k1) / (p0 + k0) - 1.0).abs();
        // CoMD itself drifts 1.2e-5 over 100 steps (eFinal/eInitial 0.999988).
        assert!(drift < 5e-5, "drift {drift}");
        // Energy flowed from kinetic to potential: the dynamics ran.
        assert!(p1 > p0 + 1e-3);
    }
}
