// Labelled CUDA port of CoMD's Lennard-Jones path, written for Skylight:
// the host side. CoMD's physics in f64 (units eV, Angstrom, fs; masses in
// eV fs^2 / A^2), the initial states Skylight's `comd` app uses, and the CPU
// reference every GPU result is checked against. The reference is written
// independently of the GPU kernels: it bins atoms with a counting sort and
// takes the minimum image per pair, where the kernels shift whole
// neighbour cells.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace md {

// CoMD's LJ copper (ljForce.c): FCC lattice constant, sigma, epsilon (A, eV),
// cutoff 2.5 sigma, mass in amu.
constexpr double LATTICE = 3.615;
constexpr double SIGMA = 2.315;
constexpr double EPSILON = 0.167;
constexpr double CUTOFF = 2.5 * SIGMA;
constexpr double MASS_AMU = 63.55;
// One amu in eV fs^2 / A^2, Boltzmann's constant in eV / K.
constexpr double AMU = 1.660538921e-27 * 1e-20 / (1e-30 * 1.602176565e-19);
constexpr double KB = 8.6173324e-5;
// Time step (fs) and initial temperature (K), CoMD's defaults.
constexpr double DT = 1.0;
constexpr double TEMPERATURE = 600.0;
// Potential energy per atom CoMD prints at step 0 of its default run (a
// perfect lattice, so it depends on the geometry alone).
constexpr double COMD_PE0 = -1.243619295058;
// Kinetic energy per atom CoMD prints at 600 K (3/2 kB T).
constexpr double COMD_KE0 = 0.077555991600;

double mass();
// The unshifted pair potential at the cutoff, subtracted to make it zero there.
double shift();

// xoshiro256** seeded through splitmix64: our own generator, so a run is
// reproducible from the seed it prints.
class Rng {
public:
    explicit Rng(uint64_t seed);
    uint64_t next();
    // Uniform in [0, 1).
    double uniform();
    // Standard normal (Box-Muller).
    double normal();

private:
    uint64_t s_[4];
};

// Candidates examined and pairs inside the cutoff, each pair counted from
// both atoms (as Skylight's model counts them).
struct Pairs {
    uint64_t candidates = 0;
    uint64_t inside = 0;
};

// A periodic box of atoms; vectors are 3 per atom, (x, y, z) interleaved.
struct System {
    double box[3] = {0, 0, 0};
    int cells[3] = {0, 0, 0};  // link cells per side, floor(L / cutoff)
    std::vector<double> pos, vel, frc;
    std::vector<double> epot;  // half of every pair energy of each atom

    size_t atoms() const { return epot.size(); }
    size_t ncells() const { return size_t(cells[0]) * cells[1] * cells[2]; }
};

// Skylight's `init` choices: `displaced` moves every lattice atom by a
// uniform offset in [-0.1, 0.1) A per component (so the first forces are
// not zero); `comd` keeps CoMD's perfect lattice. Both at 600 K.
enum class Init { Displaced, Comd };

// n^3 FCC unit cells (4 n^3 atoms) with thermal velocities; forces not yet
// computed. Exits with a message below 3 link cells a side.
System make_system(int n, Init init, Rng& rng);

// Rounds positions, velocities and forces to f32, as an f32 run stores them.
void round_to_f32(System& s);

// Forces and per-atom energies over link cells (OpenMP across atoms).
Pairs compute_forces(System& s);
// Half a kick: v += dt / (2 m) F.
void kick(System& s);
// r += dt v, wrapped back into the box.
void drift(System& s);
// One velocity Verlet step (forces must be current).
void step(System& s);
// Potential and kinetic energy per atom.
void energies(const System& s, double& pe, double& ke);

}  // namespace md
