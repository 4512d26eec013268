// --cpu-only: the port's kernel code (wilson.cuh, solver.cuh: the same
// __host__ __device__ functions the CUDA kernels call, and the same CG
// sequence) run on the host at a small lattice against the f64 reference,
// after the reference's own checks. It tests everything but the CUDA glue
// (launches, block reductions) on a machine without a GPU. Its lines carry
// config=host-emulation and host wall-clock times: not measurements.
#pragma once

#include <algorithm>
#include <chrono>

#include "common.cuh"
#include "solver.cuh"

namespace port {

/// cg_solve's backend on the host: per-site loops, reductions summed in site order.
template <class R> struct HostBackend {
    Geom g;
    R kappa;
    const C<R>* u;
    int recon;
    double s[S_COUNT];
    double sum = 0;

    double sum_of(const std::vector<double>& d) {
        double t = 0;
        for (double v : d) t += v;
        return t;
    }
    void apply_m(C<R>* out, const C<R>* in, int isign, DotMode mode, const C<R>* w) {
        std::vector<double> d(g.n, 0.0);
        with_recon(recon, [&](auto rc) {
            constexpr int RC = decltype(rc)::value;
#pragma omp parallel for schedule(static)
            for (int site = 0; site < g.n; site++) {
                const Spinor<R> o =
                    isign > 0 ? m_site<1, RC, R>(in, u, g, site, kappa) : m_site<-1, RC, R>(in, u, g, site, kappa);
                store_spinor<R>(out, g.n, site, o);
                if (mode == DOT_W) d[site] = spinor_dot<R>(load_spinor<R>(w, g.n, site), o);
                if (mode == NORM) d[site] = spinor_dot<R>(o, o);
            }
        });
        sum = sum_of(d);
    }
    void finish(Stage stage) { cg_scalar_step(s, stage, sum); }
    void copy(C<R>* dst, const C<R>* src) { std::copy(src, src + 12 * (size_t)g.n, dst); }
    void zero(C<R>* x) { std::fill(x, x + 12 * (size_t)g.n, mk<R>(0, 0)); }
    void update(const CgFields<R>& f) {
        std::vector<double> d(g.n);
#pragma omp parallel for schedule(static)
        for (int site = 0; site < g.n; site++) d[site] = update_site<R>(f, g.n, site, (R)s[S_ALPHA]);
        sum = sum_of(d);
    }
    void xpay(const CgFields<R>& f) {
#pragma omp parallel for schedule(static)
        for (int site = 0; site < g.n; site++) xpay_site<R>(f, g.n, site, (R)s[S_BETA]);
    }
};

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// D and D^dagger through dslash_site on the host, against the reference; true if both pass.
template <class R> bool emulate_dslash(const Options& o, const Inputs& in, int recon) {
    const long n = in.lat.sites();
    const Geom g = geom((int)o.l, (int)o.t, (int)n);
    const auto u = pack<R>(in.u, n, 36), psi = pack<R>(in.psi, n, 12);
    std::vector<C<R>> out(psi.size());
    std::vector<double> samples;
    bool passed = true;
    double worst = 0;
    std::string detail;
    for (int isign : {1, -1}) {
        const auto t0 = std::chrono::steady_clock::now();
        with_recon(recon, [&](auto rc) {
            constexpr int RC = decltype(rc)::value;
            for (int site = 0; site < g.n; site++)
                store_spinor<R>(out.data(), g.n, site,
                                isign > 0 ? dslash_site<1, RC, R>(psi.data(), u.data(), g, site)
                                          : dslash_site<-1, RC, R>(psi.data(), u.data(), g, site));
        });
        samples.push_back(seconds_since(t0));
        std::vector<double> want(psi.size() * 2);
        ref::dslash(in.lat, in.u.data(), in.psi.data(), isign, want.data());
        const auto got = unpack_spinor<R>(out, n);
        const ref::Compare c = ref::compare(got.data(), want.data(), got.size(), 1.0);
        passed &= c.nonfinite == 0 && c.max_error <= dslash_tolerance<R>();
        worst = std::max(worst, c.max_error);
        detail += (detail.empty() ? "" : "; ") + describe(isign > 0 ? "D psi" : "D^dagger psi", c, got.size());
    }
    print_line("dslash-fused", precision_name<R>(), recon_config("host-emulation", recon), o, samples, worst,
               dslash_tolerance<R>(), passed, "host emulation of the kernel code vs the f64 reference: " + detail,
               recon_match(recon));
    return passed;
}

/// A whole solve through cg_solve with the host backend; true if it passes.
template <class R> bool emulate_cg(const Options& o, const Inputs& in, int recon) {
    const long n = in.lat.sites();
    const auto u = pack<R>(in.u, n, 36), b = pack<R>(in.b, n, 12);
    const C<R> nan = mk<R>(NAN, NAN);
    std::vector<C<R>> x(b.size(), nan), r(b.size(), nan), p(b.size(), nan), mp(b.size(), nan), ap(b.size(), nan);
    // Through `geom`, which sets the divisors the site code's coordinates use.
    HostBackend<R> be{geom((int)o.l, (int)o.t, (int)n), (R)o.kappa, u.data(), recon};
    std::fill(be.s, be.s + S_COUNT, NAN);
    be.s[S_TOL2] = cg_tolerance<R>() * cg_tolerance<R>();
    const CgFields<R> f{u.data(), b.data(), x.data(), r.data(), p.data(), mp.data(), ap.data()};
    const auto t0 = std::chrono::steady_clock::now();
    cg_solve<R>(be, f, o.iterations);
    const double t = seconds_since(t0);
    const auto xs = unpack_spinor<R>(x, n);
    const double true_res = ref::true_residual(in.lat, in.u.data(), xs.data(), in.b.data(), o.kappa);
    const SolveCheck c = check_solve(be.s[S_ITERS], std::sqrt(be.s[S_RR] / be.s[S_RR0]), be.s[S_CONVERGED] == 1,
                                     true_res, cg_tolerance<R>(), o.iterations);
    print_line("cg", precision_name<R>(), recon_config("host-emulation", recon), o, {t}, c.max_error, c.tolerance, c.passed,
               "host emulation: " + c.detail, " match.operator=fused" + recon_match(recon));
    return c.passed;
}

/// The reference's checks, then both precisions' kernel code on the host; the exit code.
inline int run_cpu_only(const Options& o) {
    std::string report;
    bool ok = ref::self_checks(report);
    // A poisoned (unwritten) element must fail a comparison.
    const double got[3] = {1.0, NAN, 2.0}, want[3] = {1.0, 1.0, 2.0};
    const bool poison_fails = ref::compare(got, want, 3, 1.0).nonfinite == 1;
    report += poison_fails ? "ok   a NaN element is counted as unwritten\n" : "FAIL a NaN element went unnoticed\n";
    ok &= poison_fails;
    std::printf("reference self-checks:\n%s", report.c_str());
    const ref::Lattice lat{o.l, o.t};
    for (const auto& p : o.precisions) {
        const bool f32 = p == "f32";
        const Inputs in = f32 ? make_inputs<float>(lat, o.seed) : make_inputs<double>(lat, o.seed);
        for (int recon : o.reconstructs)
        for (const auto& k : o.kernels) {
            if (k == "dslash") ok &= f32 ? emulate_dslash<float>(o, in, recon) : emulate_dslash<double>(o, in, recon);
            if (k == "cg") ok &= f32 ? emulate_cg<float>(o, in, recon) : emulate_cg<double>(o, in, recon);
        }
    }
    std::printf("cpu-only checks %s\n", ok ? "passed" : "FAILED");
    return ok ? 0 : 1;
}

}  // namespace port
