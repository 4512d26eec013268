// What the GPU run and the --cpu-only check share: options, the random
// inputs (rounded to the precision, as Skylight's), conversion between the
// reference's logical order and the kernels' complex-SoA layout, Skylight's
// tolerances, and the `skylight-native` line.
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "reference.hpp"
#include "wilson.cuh"

namespace port {

/// Command-line options; the defaults are Skylight's default milc case.
struct Options {
    long l = 32, t = 64;
    std::vector<std::string> precisions{"f32", "f64"};
    std::vector<int> blocks{64, 128, 256};
    /// Dispatch orders of the one-pass kernels: y, z, t block extents and
    /// t planes a group of blocks spans (Skylight's block-y, block-z,
    /// block-t, tile-t); {1, 1, 1, 1} is storage order.
    std::vector<std::array<int, 4>> orders{{1, 1, 1, 1}};
    std::vector<std::string> kernels{"dslash", "cg"};
    /// How the one-pass kernels read the links: whole (18 reals) or as
    /// their first two rows, the third rebuilt (12), as Skylight's
    /// `reconstruct` (whose default is 12 in f32 and f64).
    std::vector<int> reconstructs{12};
    int samples = 20;
    /// Launches (or solves) a sample, back to back between its events; each
    /// sample is their mean (1: lone launches, each with its own start and drain).
    int runs_per_sample = 1;
    double warmup_s = 0.5;
    int iterations = 100;  // Skylight's recorded CG iterations
    double kappa = 0.12;
    uint64_t seed = 0;
    bool cpu_only = false;
};

inline std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t comma = s.find(',', start);
        const size_t end = comma == std::string::npos ? s.size() : comma;
        if (end > start) out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

[[noreturn]] inline void usage(const char* why) {
    std::fprintf(stderr,
                 "%s\nusage: milc [--L 32] [--T 64] [--precision f32,f64] [--blocks 64,128,256]\n"
                 "            [--kernels dslash,cg] [--samples 20] [--runs-per-sample 1] [--warmup 0.5] [--iterations 100]\n"
                 "            [--kappa 0.12] [--seed N] [--orders storage,2x2x2x4] [--reconstruct 18,12] [--cpu-only]\n",
                 why);
    std::exit(2);
}

inline Options parse_options(int argc, char** argv) {
    Options o;
    o.seed = (uint64_t)std::time(nullptr);
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--cpu-only") {
            o.cpu_only = true;
            continue;
        }
        if (i + 1 >= argc) usage(("no value after " + a).c_str());
        const std::string v = argv[++i];
        if (a == "--L") o.l = std::atol(v.c_str());
        else if (a == "--T") o.t = std::atol(v.c_str());
        else if (a == "--precision") o.precisions = split(v);
        else if (a == "--kernels") o.kernels = split(v);
        else if (a == "--samples") o.samples = std::atoi(v.c_str());
        else if (a == "--runs-per-sample") o.runs_per_sample = std::atoi(v.c_str());
        else if (a == "--warmup") o.warmup_s = std::atof(v.c_str());
        else if (a == "--iterations") o.iterations = std::atoi(v.c_str());
        else if (a == "--kappa") o.kappa = std::atof(v.c_str());
        else if (a == "--seed") o.seed = std::strtoull(v.c_str(), nullptr, 10);
        else if (a == "--orders") {
            o.orders.clear();
            for (const auto& w : split(v)) {
                std::array<int, 4> ord{1, 1, 1, 1};
                if (w != "storage" && std::sscanf(w.c_str(), "%dx%dx%dx%d", &ord[0], &ord[1], &ord[2], &ord[3]) != 4)
                    usage("orders are storage or YxZxTxTILE (e.g. 2x2x2x4)");
                o.orders.push_back(ord);
            }
        } else if (a == "--reconstruct") {
            o.reconstructs.clear();
            for (const auto& r : split(v)) o.reconstructs.push_back(std::atoi(r.c_str()));
        } else if (a == "--blocks") {
            o.blocks.clear();
            for (const auto& b : split(v)) o.blocks.push_back(std::atoi(b.c_str()));
        } else usage(("unknown option " + a).c_str());
    }
    // Sites and the largest field index (36 link components) must fit in int.
    if (o.l < 2 || o.t < 2 || (double)o.l * o.l * o.l * o.t * 36 > 2147483647.0) usage("bad lattice size");
    for (int b : o.blocks)
        if (b < 32 || b > 256 || b % 32) usage("block sizes are multiples of 32 up to 256");
    for (const auto& [y, z, t, tile] : o.orders)
        if (y < 1 || z < 1 || t < 1 || tile < t || o.l % y || o.l % z || tile % t || o.t % tile)
            usage("an order's y and z extents divide L, its t extent divides its tile, and the tile divides T");
    for (const auto& p : o.precisions)
        if (p != "f32" && p != "f64") usage("precisions are f32 and f64");
    for (int r : o.reconstructs)
        if (r != 18 && r != 12) usage("reconstruct is 18 (links whole) or 12 (two rows, the third rebuilt)");
    for (const auto& k : o.kernels)
        if (k != "dslash" && k != "cg") usage("kernels are dslash and cg");
    if (o.runs_per_sample < 1) usage("runs a sample must be at least 1");
    // The host emulation times each pass once: its lines could not honour R.
    if (o.cpu_only && o.runs_per_sample != 1) usage("--runs-per-sample times GPU launches; --cpu-only has none");
    if (o.samples < 1 || o.iterations < 1 || !(o.kappa > 0 && o.kappa < 0.125)) usage("bad samples, iterations or kappa");
    return o;
}

/// Skylight's milc tolerance for one Dslash (relative, floor 1).
template <class R> constexpr double dslash_tolerance() { return sizeof(R) == 4 ? 4e-6 : 1e-14; }
/// Skylight's default CG tolerance |r| / |r0|.
template <class R> constexpr double cg_tolerance() { return sizeof(R) == 4 ? 1e-6 : 1e-12; }
template <class R> const char* precision_name() { return sizeof(R) == 4 ? "f32" : "f64"; }

/// The random inputs in logical order, every value representable in R.
struct Inputs {
    ref::Lattice lat;
    std::vector<double> u, psi, b;
};

template <class R> Inputs make_inputs(const ref::Lattice& lat, uint64_t seed) {
    const long n = lat.sites();
    Inputs in{lat, std::vector<double>(n * ref::LINKS), std::vector<double>(n * ref::SPINOR),
              std::vector<double>(n * ref::SPINOR)};
    ref::random_links(seed, in.u.data(), n);
    ref::random_reals(seed + 1, in.psi.data(), in.psi.size());
    ref::random_reals(seed + 2, in.b.data(), in.b.size());
    for (auto* v : {&in.u, &in.psi, &in.b}) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < v->size(); i++) (*v)[i] = (double)(R)(*v)[i];
    }
    return in;
}

/// Logical order (`ncomplex` complex numbers per site) to complex-SoA.
template <class R> std::vector<C<R>> pack(const std::vector<double>& f, long n, int ncomplex) {
    std::vector<C<R>> out(f.size() / 2);
#pragma omp parallel for schedule(static)
    for (long site = 0; site < n; site++)
        for (int k = 0; k < ncomplex; k++) {
            const size_t i = ((size_t)site * ncomplex + k) * 2;
            out[(size_t)k * n + site] = mk<R>((R)f[i], (R)f[i + 1]);
        }
    return out;
}

/// Complex-SoA spinors back to logical order, in f64.
template <class R> std::vector<double> unpack_spinor(const std::vector<C<R>>& f, long n) {
    std::vector<double> out(f.size() * 2);
#pragma omp parallel for schedule(static)
    for (long site = 0; site < n; site++)
        for (int k = 0; k < 12; k++) {
            const C<R> z = f[(size_t)k * n + site];
            out[((size_t)site * 12 + k) * 2] = z.x;
            out[((size_t)site * 12 + k) * 2 + 1] = z.y;
        }
    return out;
}

/// A comparison against the reference as words for `detail`.
inline std::string describe(const char* what, const ref::Compare& c, size_t n) {
    char s[240];
    if (c.nonfinite)
        std::snprintf(s, sizeof s, "%s: %zu of %zu reals unwritten or not finite", what, c.nonfinite, n);
    else
        std::snprintf(s, sizeof s, "%s: %zu reals, max rel. error %.3e at %zu", what, n, c.max_error, c.worst);
    return s;
}

/// A line's configuration `base`, with the links' form where they are read as two rows.
inline std::string recon_config(const std::string& base, int recon) { return recon == 12 ? base + "/r12" : base; }

/// The links' form as a line's match field: it pairs the line with
/// Skylight's records of the same `reconstruct`, whose model it takes.
inline std::string recon_match(int recon) { return " match.reconstruct=" + std::to_string(recon); }

/// One `skylight-native` line (core/src/native/line.rs); `extra` adds
/// ` match.NAME=VALUE` words beyond L and T (the solve's operator and the
/// links' form, which pick the Skylight record whose model the line takes).
inline void print_line(const char* kernel, const char* precision, const std::string& config, const Options& o,
                       const std::vector<double>& samples, double max_error, double tolerance, bool passed,
                       const std::string& detail, const std::string& extra = "") {
    std::string list;
    for (double s : samples) {
        char b[32];
        std::snprintf(b, sizeof b, "%s%.6e", list.empty() ? "" : ",", s);
        list += b;
    }
    // The parser reads "inf" back; NaN prints as "-nan" on some C libraries.
    if (!std::isfinite(max_error)) max_error = INFINITY;
    std::string d = detail;
    for (char& c : d)
        if (c == '"') c = '\'';
    const std::string runs = o.runs_per_sample == 1 ? "" : " runs=" + std::to_string(o.runs_per_sample);
    std::printf("skylight-native app=milc kernel=%s precision=%s config=%s match.L=%ld match.T=%ld%s samples_s=%s%s "
                "max_error=%.6e tolerance=%.1e passed=%d detail=\"%s\"\n",
                kernel, precision, config.c_str(), o.l, o.t, extra.c_str(), list.c_str(), runs.c_str(), max_error, tolerance,
                passed ? 1 : 0, d.c_str());
    std::fflush(stdout);
}

/// The verdict of a solve, as Skylight's check_solve: converged with |r| / |r0|
/// <= tol, and the true residual |M x - b| / |b| within 10 tol. max_error and
/// tolerance are those of the check nearer its bound.
struct SolveCheck {
    double max_error, tolerance;
    bool passed;
    std::string detail;
};

inline SolveCheck check_solve(double iters, double residual, bool converged, double true_res, double tol, int cap) {
    const double bound = 10 * tol;
    SolveCheck c;
    c.passed = converged && residual <= tol && true_res <= bound;
    const bool second = true_res / bound > residual / tol || !(true_res <= bound);
    c.max_error = second ? true_res : residual;
    c.tolerance = second ? bound : tol;
    char s[400];
    std::snprintf(s, sizeof s,
                  "CG: |r|/|r0| = %.3e after %.0f iterations (tol %.1e)%s; %d iterations run, frozen once converged "
                  "as Skylight's recorded solve; |M x - b| / |b| = %.3e in f64 on the host (bound %.1e)",
                  residual, iters, tol, converged ? "" : ", NOT converged", cap, true_res, bound);
    c.detail = s;
    return c;
}

}  // namespace port
