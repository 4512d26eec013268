// CPU-only mode, for machines without a GPU: the CPU reference's own
// physics checks (momentum, CoMD's step-0 energies, energy conservation),
// and the `atom` mapping's algorithm (binning, scan, gather, the per-atom
// force walk, the fused kicks) run on the host through the same
// __host__ __device__ functions the kernels call, validated exactly as the
// GPU results are. No CUDA call is made.
#include <cstdio>
#include <numeric>

#include "port.h"

namespace {

// The host's version of one redistribution: counts, scan, gather.
template <typename R>
void redistribute(const Params<R>& p, const std::vector<R>& pos, std::vector<int>& offsets,
                  std::vector<P4<R>>& spos, std::vector<int>& sid) {
    const int n = p.atoms, ncells = p.nc[0] * p.nc[1] * p.nc[2];
    std::vector<int> cell(n), place(n), counts(ncells + 1, 0);
    for (int i = 0; i < n; ++i) {
        cell[i] = cell_of(p, pos[i], pos[n + i], pos[2 * n + i]);
        place[i] = counts[cell[i]]++;
    }
    offsets.assign(ncells + 1, 0);
    std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
    spos.assign(n, P4<R>{0, 0, 0, 0});
    sid.assign(n, -1);
    for (int i = 0; i < n; ++i) {
        const int t = offsets[cell[i]] + place[i];
        spos[t] = P4<R>{pos[i], pos[n + i], pos[2 * n + i], R(0)};
        sid[t] = i;
    }
}

template <typename R, bool KICK>
void forces(const Params<R>& p, const std::vector<R>& pos, std::vector<R>& frc, std::vector<R>& epot,
            std::vector<R>& vel) {
    std::vector<int> offsets, sid;
    std::vector<P4<R>> spos;
    redistribute(p, pos, offsets, spos, sid);
#pragma omp parallel for schedule(dynamic, 64)
    for (int t = 0; t < p.atoms; ++t) {
        const Acc<R> a = force_on(p, spos.data(), offsets.data(), t);
        store_atom<R, KICK>(p, sid[t], a, frc.data(), epot.data(), vel.data());
    }
}

int report(const char* what, const Check& c) {
    std::printf("comd-port cpu-only %s: %s: error %.3e tolerance %.1e passed=%d\n", what, c.detail.c_str(),
                c.max_error, c.tolerance, c.passed ? 1 : 0);
    return c.passed ? 0 : 1;
}

// The emulated force and step of one precision against the CPU reference.
template <typename R>
int emulate(const md::System& s0, const char* prec) {
    constexpr bool f32 = sizeof(R) == 4;
    const Problem pr = make_problem(s0, f32);
    const Params<R> p = make_params<R>(pr.start);
    const size_t n = pr.start.atoms();
    const R nan = R(NAN);
    std::vector<R> pos = to_soa<R>(pr.start.pos), vel = to_soa<R>(pr.start.vel);
    std::vector<R> frc(3 * n, nan), epot(n, nan);
    forces<R, false>(p, pos, frc, epot, vel);
    std::string what = std::string("emulated force ") + prec;
    int failed = report(what.c_str(), check_force(pr, f32, from_soa(frc), widen(epot)));
    frc = to_soa<R>(pr.start.frc);
    epot.assign(n, nan);
    for (size_t i = 0; i < n; ++i) advance_atom(p, int(i), pos.data(), vel.data(), frc.data());
    forces<R, true>(p, pos, frc, epot, vel);
    what = std::string("emulated step ") + prec;
    failed += report(what.c_str(), check_step(pr, f32, from_soa(pos), from_soa(vel), widen(epot)));
    return failed;
}

// The reference's physics: forces sum to zero, the start has CoMD's
// kinetic energy, the lattice CoMD's potential energy, and 20 steps keep
// the total energy (CoMD itself drifts 1.2e-5 over 100 steps).
int physics(int size, uint64_t seed) {
    md::Rng rng(seed);
    md::System s = md::make_system(size, md::Init::Displaced, rng);
    md::compute_forces(s);
    double total = 0;
    for (int d = 0; d < 3; ++d) {
        double f = 0;
        for (size_t i = 0; i < s.atoms(); ++i) f += s.frc[3 * i + d];
        total = std::fmax(total, std::fabs(f));
    }
    int failed = report("sum of forces (eV/A)", bound(total, 1e-9, "displaced start"));
    double pe0, ke0, pe1, ke1;
    md::energies(s, pe0, ke0);
    char buf[160];
    std::snprintf(buf, sizeof buf, "KE %.12f eV/atom vs CoMD's %.12f at 600 K", ke0, md::COMD_KE0);
    failed += report("kinetic energy", bound(std::fabs(ke0 - md::COMD_KE0), 1e-11, buf));
    md::System e = s;
    for (int k = 0; k < 20; ++k) md::step(e);
    md::energies(e, pe1, ke1);
    std::snprintf(buf, sizeof buf, "total energy %.9f -> %.9f eV/atom (PE %.6f -> %.6f)", pe0 + ke0, pe1 + ke1,
                  pe0, pe1);
    failed += report("20 steps", bound(std::fabs((pe1 + ke1) / (pe0 + ke0) - 1.0), 5e-5, buf));
    md::System lattice = md::make_system(size, md::Init::Comd, rng);
    md::compute_forces(lattice);
    md::energies(lattice, pe0, ke0);
    failed += report("init=comd lattice", check_comd_pe(pe0, false));
    return failed;
}

}  // namespace

int run_cpu_only(const Options& o) {
    std::printf("comd-port cpu-only seed=%llu\n", (unsigned long long)o.seed);
    int failed = 0;
    for (int size : o.sizes) {
        std::printf("comd-port cpu-only size=%d atoms=%d\n", size, 4 * size * size * size);
        failed += physics(size, o.seed);
        md::Rng rng(o.seed ^ uint64_t(size));
        const md::System s0 = md::make_system(size, md::Init::Displaced, rng);
        for (const auto& prec : o.precisions)
            failed += prec == "f32" ? emulate<float>(s0, "f32") : emulate<double>(s0, "f64");
    }
    std::printf("comd-port cpu-only done: %d failed check(s)\n", failed);
    return failed == 0 ? 0 : 1;
}
