// A labelled CUDA port of Skylight's milc app: the Wilson-Dirac operator
// D (one fused kernel, reported as both `dslash-fused` and `dslash`) and CG
// on M^dagger M x = M^dagger b with M = 1 - kappa D, on a random SU(3) gauge
// field, validated against the f64 CPU reference in reference.cpp, one
// `skylight-native` line per (kernel, precision, block size). --cpu-only runs
// the kernel code on the host instead (host.cuh), for machines without a GPU.
#include <algorithm>
#include <chrono>

#include "common.cuh"
#include "host.cuh"
#include "kernels.cuh"

using namespace port;

namespace {

/// A device array of T, freed on scope exit.
template <class T> struct DevBuf {
    T* p = nullptr;
    size_t n;
    explicit DevBuf(size_t count) : n(count) { CK(cudaMalloc(&p, n * sizeof(T))); }
    ~DevBuf() { cudaFree(p); }
    DevBuf(const DevBuf&) = delete;
    DevBuf& operator=(const DevBuf&) = delete;
    /// 0xFF bytes: NaN in f32 and f64, so an element a kernel leaves unwritten fails the check.
    void poison() { CK(cudaMemset(p, 0xFF, n * sizeof(T))); }
    void upload(const std::vector<T>& v) { CK(cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
    std::vector<T> download() const {
        std::vector<T> v(n);
        CK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
};

/// GPU time of one call of `run`, from events around it.
struct Clock {
    cudaEvent_t a, b;
    Clock() {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    ~Clock() {
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    template <class F> double time(F&& run) {
        CK(cudaEventRecord(a));
        run();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        return ms * 1e-3;
    }
    /// Runs `run` until `seconds` of GPU work have passed (the SM clock ramps up from idle).
    template <class F> void warm_up(F&& run, double seconds) {
        double total = 0;
        for (int batch = 1; total < seconds; batch = std::min(2 * batch, 1024))
            total += time([&] {
                for (int i = 0; i < batch; i++) run();
            });
    }
    /// `count` samples, each the mean of `runs` calls timed back to back.
    template <class F> std::vector<double> samples(F&& run, int count, int runs) {
        std::vector<double> s;
        for (int i = 0; i < count; i++)
            s.push_back(time([&] {
                for (int r = 0; r < runs; r++) run();
            }) / runs);
        return s;
    }
};

/// A run's configuration: the block size, and the dispatch order unless storage order.
std::string config(int block, const std::array<int, 4>& ord) {
    std::string c = "block" + std::to_string(block);
    if (ord != std::array<int, 4>{1, 1, 1, 1}) {
        c += "/order" + std::to_string(ord[0]) + "x" + std::to_string(ord[1]) + "x" + std::to_string(ord[2]) + "t" +
             std::to_string(ord[3]);
    }
    return c;
}

/// The geometry of the run, dispatched in order `ord` (y, z, t block extents and tile planes).
Geom ordered(const Options& o, long n, const std::array<int, 4>& ord) {
    return geom((int)o.l, (int)o.t, (int)n, ord[0], ord[1], ord[2], ord[3] / ord[2]);
}

/// D over the links' forms, orders and block sizes: each validated (D and D^dagger) and timed (D).
template <class R> bool run_dslash(const Options& o, const Inputs& in, const DevBuf<C<R>>& u, const DevBuf<C<R>>& psi) {
    const long n = in.lat.sites();
    std::vector<double> want_plus(n * ref::SPINOR), want_minus(n * ref::SPINOR);
    const auto t0 = std::chrono::steady_clock::now();
    ref::dslash(in.lat, in.u.data(), in.psi.data(), 1, want_plus.data());
    ref::dslash(in.lat, in.u.data(), in.psi.data(), -1, want_minus.data());
    std::printf("host reference D and D^dagger: %.2f s\n", seconds_since(t0));
    DevBuf<C<R>> out(12 * (size_t)n);
    Clock clock;
    const double tol = dslash_tolerance<R>();
    bool all = true;
    for (int recon : o.reconstructs)
    for (const auto& ord : o.orders)
    for (int block : o.blocks) {
        const Geom g = ordered(o, n, ord);
        auto check = [&](const std::vector<double>& want) {
            const auto got = unpack_spinor<R>(out.download(), n);
            return ref::compare(got.data(), want.data(), got.size(), 1.0);
        };
        out.poison();
        launch_dslash<R>(psi.p, u.p, out.p, g, -1, block, recon);
        const ref::Compare minus = check(want_minus);
        auto plus_run = [&] { launch_dslash<R>(psi.p, u.p, out.p, g, 1, block, recon); };
        clock.warm_up(plus_run, o.warmup_s);
        out.poison();
        const auto samples = clock.samples(plus_run, o.samples, o.runs_per_sample);
        const ref::Compare plus = check(want_plus);
        const size_t reals = (size_t)n * ref::SPINOR;
        const bool passed = plus.nonfinite == 0 && minus.nonfinite == 0 && plus.max_error <= tol && minus.max_error <= tol;
        const double worst = (plus.nonfinite || minus.nonfinite) ? INFINITY : std::max(plus.max_error, minus.max_error);
        const std::string detail = describe("D psi (timed)", plus, reals) + "; " + describe("D^dagger psi", minus, reals) +
                                   " (vs the f64 CPU reference, floor 1); one fused kernel, one site per thread, " +
                                   order_how(g) + (recon == 12 ? "; links read as two rows, the third rebuilt" : "");
        const std::string cfg = recon_config(config(block, ord), recon);
        print_line("dslash-fused", precision_name<R>(), cfg, o, samples, worst, tol, passed, detail, recon_match(recon));
        print_line("dslash", precision_name<R>(), cfg, o, samples, worst, tol, passed,
                   detail + "; the port's dslash is this fused kernel (MILC's five-kernel split is not ported)",
                   " model=dslash-fused" + recon_match(recon));
        all &= passed;
    }
    return all;
}

/// CG over the links' forms, orders and block sizes: each timed over whole solves and checked on the host.
template <class R> bool run_cg(const Options& o, const Inputs& in, const DevBuf<C<R>>& u) {
    const long n = in.lat.sites();
    const size_t len = 12 * (size_t)n;
    DevBuf<C<R>> b(len), x(len), r(len), p(len), mp(len), ap(len);
    b.upload(pack<R>(in.b, n, 12));
    DevBuf<double> scalars(S_COUNT), partial(n / 32 + 1);
    const CgFields<R> f{u.p, b.p, x.p, r.p, p.p, mp.p, ap.p};
    const double tol = cg_tolerance<R>(), tol2 = tol * tol;
    auto reset = [&] {
        for (auto* d : {&x, &r, &p, &mp, &ap}) d->poison();
        partial.poison();
        scalars.poison();
        CK(cudaMemcpy(scalars.p + S_TOL2, &tol2, sizeof tol2, cudaMemcpyHostToDevice));
    };
    Clock clock;
    bool all = true;
    for (int recon : o.reconstructs)
    for (const auto& ord : o.orders)
    for (int block : o.blocks) {
        const Geom g = ordered(o, n, ord);
        GpuBackend<R> be{g, block, (R)o.kappa, u.p, scalars.p, partial.p, recon};
        auto solve = [&] { cg_solve<R>(be, f, o.iterations); };
        reset();
        clock.warm_up(solve, o.warmup_s);
        reset();
        const auto samples = clock.samples(solve, o.samples, o.runs_per_sample);
        const auto s = scalars.download();
        const auto xs = unpack_spinor<R>(x.download(), n);
        const double true_res = ref::true_residual(in.lat, in.u.data(), xs.data(), in.b.data(), o.kappa);
        const SolveCheck c = check_solve(s[S_ITERS], std::sqrt(s[S_RR] / s[S_RR0]), s[S_CONVERGED] == 1, true_res, tol,
                                         o.iterations);
        char how[200];
        std::snprintf(how, sizeof how,
                      "; kappa %g; M = 1 - kappa D in one fused kernel with <p, A p> and |r|^2 fused into the "
                      "kernels, f64 reductions; %s%s",
                      o.kappa, order_how(g), recon == 12 ? "; links read as two rows, the third rebuilt" : "");
        print_line("cg", precision_name<R>(), recon_config(config(block, ord), recon), o, samples, c.max_error,
                   c.tolerance, c.passed, c.detail + how, " match.operator=fused" + recon_match(recon));
        all &= c.passed;
    }
    return all;
}

template <class R> bool run_precision(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    const Inputs in = make_inputs<R>(ref::Lattice{o.l, o.t}, o.seed);
    const long n = in.lat.sites();
    DevBuf<C<R>> u(36 * (size_t)n), psi(12 * (size_t)n);
    u.upload(pack<R>(in.u, n, 36));
    psi.upload(pack<R>(in.psi, n, 12));
    std::printf("%s inputs drawn and uploaded: %.2f s\n", precision_name<R>(), seconds_since(t0));
    bool ok = true;
    for (const auto& k : o.kernels) {
        if (k == "dslash") ok &= run_dslash<R>(o, in, u, psi);
        if (k == "cg") ok &= run_cg<R>(o, in, u);
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_options(argc, argv);
    std::printf("milc port (Skylight baselines/milc): L=%ld T=%ld sites=%ld seed=%llu kappa=%g iterations=%d\n", o.l,
                o.t, o.l * o.l * o.l * o.t, (unsigned long long)o.seed, o.kappa, o.iterations);
    if (o.cpu_only) return run_cpu_only(o);
    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    std::printf("device %d: %s (sm_%d%d)\n", dev, prop.name, prop.major, prop.minor);
    bool ok = true;
    for (const auto& p : o.precisions) ok &= p == "f32" ? run_precision<float>(o) : run_precision<double>(o);
    CK(cudaDeviceSynchronize());
    std::printf("milc port: %s\n", ok ? "every check passed" : "a check FAILED");
    return ok ? 0 : 1;
}
