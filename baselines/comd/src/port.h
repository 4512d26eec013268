// Host pieces shared by the GPU driver (gpu.cu) and the CPU-only mode
// (emulate.cu): options, kernel parameters, layout conversion, Skylight's
// tolerances and the checks of a force or step result.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"
#include "kernels.cuh"
#include "md.h"

struct Options {
    std::vector<int> sizes = {20, 80};  // FCC unit cells a side
    std::vector<std::string> precisions = {"f32", "f64"};
    std::vector<std::string> kernels = {"force", "step"};
    std::vector<std::string> mappings = {"atom", "cell"};
    std::vector<int> wgs = {64, 128, 256};
    int samples = 20;
    // Launches a sample, back to back between its events; each sample is
    // their mean (1: lone launches, each holding its own start and drain).
    int runs_per_sample = 1;
    double warmup_s = 0.5;  // GPU seconds of warm-up per configuration
    uint64_t seed = 0;
    bool cpu_only = false;
};

int run_gpu(const Options& o);
int run_cpu_only(const Options& o);

// One size's inputs in one precision: the start (rounded to the precision,
// its forces from the CPU reference) and the CPU f64 references.
struct Problem {
    int n = 0;
    md::System start;      // positions, velocities, forces as the device stores them
    md::System ref_force;  // the reference forces of the start, unrounded
    md::System ref_step;   // the start after one velocity Verlet step in f64
    md::Pairs pairs;
};

Problem make_problem(const md::System& s0, bool f32);

template <typename R>
Params<R> make_params(const md::System& s) {
    Params<R> p;
    for (int d = 0; d < 3; ++d) {
        p.box[d] = R(s.box[d]);
        p.per[d] = R(s.cells[d] / s.box[d]);
        p.nc[d] = s.cells[d];
    }
    p.atoms = int(s.atoms());
    p.rc2 = R(md::CUTOFF * md::CUTOFF);
    p.sigma2 = R(md::SIGMA * md::SIGMA);
    p.eps4 = R(4.0 * md::EPSILON);
    p.eps24 = R(24.0 * md::EPSILON);
    p.shift = R(md::shift());
    p.half_dt_over_m = R(md::DT / (2.0 * md::mass()));
    p.dt = R(md::DT);
    return p;
}

// Interleaved (x, y, z per atom) f64 to the kernels' SoA reals, and back.
template <typename R>
std::vector<R> to_soa(const std::vector<double>& v) {
    const size_t n = v.size() / 3;
    std::vector<R> out(v.size());
    for (size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) out[d * n + i] = R(v[3 * i + d]);
    return out;
}

template <typename R>
std::vector<double> from_soa(const std::vector<R>& v) {
    const size_t n = v.size() / 3;
    std::vector<double> out(v.size());
    for (size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) out[3 * i + d] = double(v[d * n + i]);
    return out;
}

template <typename R>
std::vector<double> widen(const std::vector<R>& v) {
    return std::vector<double>(v.begin(), v.end());
}

// Skylight's tolerances (core/src/apps/comd/mod.rs, `tolerance`): relative,
// for forces, energies and one kick/drift; relative energy drift.
inline double tolerance(bool f32) { return f32 ? 5e-4 : 1e-11; }
inline double drift_tolerance(bool f32) { return f32 ? 1e-3 : 1e-4; }

// Relative force tolerance against a floor of 0.05 eV/A: in f32 the
// positions carry an absolute rounding of eps L, which the lattice's
// stiffness turns into force errors growing with the box (Skylight's
// `force_tolerance`: at least 500 eps_f32 L / 0.05).
inline double force_tolerance(const md::System& s, bool f32) {
    if (!f32) return tolerance(false);
    const double l = std::fmax(s.box[0], std::fmax(s.box[1], s.box[2]));
    return std::fmax(tolerance(true), 500.0 * double(FLT_EPSILON) * l / 0.05);
}

// Forces (3 per atom, interleaved) and atom energies of the start against
// the CPU reference.
Check check_force(const Problem& pr, bool f32, const std::vector<double>& frc,
                  const std::vector<double>& epot);

// Positions and velocities after one step against the CPU step, and the
// total energy per atom against the start's.
Check check_step(const Problem& pr, bool f32, std::vector<double> pos, const std::vector<double>& vel,
                 const std::vector<double>& epot);

// Potential energy per atom of a perfect lattice against CoMD's step-0
// figure, with Skylight's bounds (1e-5 in f32, 1e-10 in f64).
Check check_comd_pe(double pe_per_atom, bool f32);
