// The CUDA kernels: D in one fused kernel (one thread per site), M = 1 -
// kappa D with an optional fused reduction for CG, CG's vector updates, and
// the one-block second pass of the reductions that also updates the scalars.
// Every launch is checked.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "solver.cuh"

namespace port {

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error `%s` at %s:%d: %s\n", cudaGetErrorString(e), file, line, what);
        std::exit(2);
    }
}
#define CK(call) port::check_cuda((call), #call, __FILE__, __LINE__)
/// After every launch: a bad configuration shows here, a fault at the next sync.
#define LAUNCHED() CK(cudaGetLastError())

/// The largest block the kernels are compiled for (the sweep's 64, 128, 256 fit).
constexpr int MAX_BLOCK = 256;

/// The block's sum of v (f64) in thread 0; block size a multiple of 32.
__device__ __forceinline__ double block_sum(double v) {
    __shared__ double warps[MAX_BLOCK / 32];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) warps[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

/// The site of the dispatch's i-th thread: blocks of whole x rows by `by` y
/// rows by `bz` z rows by `bt` t planes, `group` blocks along t together,
/// then the blocks along y (l / by of them: `yb`), along z (`zb`), and the t
/// groups (Skylight's `scale::Part::ordered`).
template <class DL, class DY, class DZ, class DT, class DG, class DYB, class DZB>
HD int blocked_site(int i, DL l, DY by, DZ bz, DT bt, DG group, DYB yb, DZB zb) {
    const int x = digit(i, l), y0 = digit(i, by), z0 = digit(i, bz), t0 = digit(i, bt), t1 = digit(i, group);
    const int y = digit(i, yb) * by.d + y0, z = digit(i, zb) * bz.d + z0, t = (i * group.d + t1) * bt.d + t0;
    return x + l.d * (y + l.d * (z + l.d * t));
}

/// Storage order: thread i takes site i.
struct StorageOrder {
    static bool fits(const Geom& g) { return g.by == 1 && g.bz == 1 && g.bt == 1 && g.group == 1; }
    static constexpr const char* how = "storage order";
    __device__ static int site(int i, const Geom&) { return i; }
};

/// A blocked order with every extent compiled in, as Skylight compiles its
/// own (the recipe's orders at L = 32: blocks 2 x 2 x 2, tiles of 4, 8 and
/// 16 t planes).
template <int L, int BY, int BZ, int BT, int GROUP> struct FixedOrder {
    static bool fits(const Geom& g) {
        return g.l == L && g.by == BY && g.bz == BZ && g.bt == BT && g.group == GROUP;
    }
    static constexpr const char* how = "the order's extents compiled in";
    __device__ static int site(int i, const Geom&) {
        return blocked_site(i, Fixed<L>{}, Fixed<BY>{}, Fixed<BZ>{}, Fixed<BT>{}, Fixed<GROUP>{}, Fixed<L / BY>{},
                            Fixed<L / BZ>{});
    }
};

/// Any other blocked order, its extents divided at run time.
struct RuntimeOrder {
    static bool fits(const Geom&) { return true; }
    static constexpr const char* how = "the order's extents divided at run time";
    __device__ static int site(int i, const Geom& g) {
        return blocked_site(i, g.dl, g.dby, g.dbz, g.dbt, g.dgroup, g.dyb, g.dzb);
    }
};

/// launch(order) with the first order type that fits g (each kernel is
/// instantiated for all of them).
template <class F> void with_order(const Geom& g, F launch) {
    if (StorageOrder::fits(g)) launch(StorageOrder{});
    else if (FixedOrder<32, 2, 2, 2, 2>::fits(g)) launch(FixedOrder<32, 2, 2, 2, 2>{});
    else if (FixedOrder<32, 2, 2, 2, 4>::fits(g)) launch(FixedOrder<32, 2, 2, 2, 4>{});
    else if (FixedOrder<32, 2, 2, 2, 8>::fits(g)) launch(FixedOrder<32, 2, 2, 2, 8>{});
    else launch(RuntimeOrder{});
}

/// How g's order reaches the kernels, for a line's detail.
inline const char* order_how(const Geom& g) {
    const char* how = nullptr;
    with_order(g, [&](auto order) { how = decltype(order)::how; });
    return how;
}

/// out = D psi (ISIGN 1) or D^dagger psi (-1): the whole operator, one site per thread.
template <class R, int ISIGN, class O, int RECON>
__global__ void __launch_bounds__(MAX_BLOCK)
    dslash_kernel(const C<R>* __restrict__ psi, const C<R>* __restrict__ u, C<R>* __restrict__ out, Geom g) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.n) return;
    const int site = O::site(i, g);
    store_spinor<R>(out, g.n, site, dslash_site<ISIGN, RECON, R>(psi, u, g, site));
}

/// out = M psi (or M^dagger psi); with DOT, partial[block] = the block's sum of
/// Re <w, out> (DOT_W) or |out|^2 (NORM), so CG needs no separate dot pass.
template <class R, int ISIGN, int DOT, class O, int RECON>
__global__ void __launch_bounds__(MAX_BLOCK)
    m_kernel(const C<R>* __restrict__ psi, const C<R>* __restrict__ u, C<R>* __restrict__ out, Geom g, R kappa,
             const C<R>* __restrict__ w, double* __restrict__ partial) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double d = 0;
    if (i < g.n) {
        const int site = O::site(i, g);
        const Spinor<R> o = m_site<ISIGN, RECON, R>(psi, u, g, site, kappa);
        store_spinor<R>(out, g.n, site, o);
        if constexpr (DOT == DOT_W) d = spinor_dot<R>(load_spinor<R>(w, g.n, site), o);
        if constexpr (DOT == NORM) d = spinor_dot<R>(o, o);
    }
    if constexpr (DOT != NO_DOT) {
        d = block_sum(d);
        if (threadIdx.x == 0) partial[blockIdx.x] = d;
    }
}

/// x += alpha p, r -= alpha A p; partial[block] = the block's |r|^2.
template <class R>
__global__ void __launch_bounds__(MAX_BLOCK) update_kernel(CgFields<R> f, int n, const double* __restrict__ s,
                                                           double* __restrict__ partial) {
    const int site = blockIdx.x * blockDim.x + threadIdx.x;
    const double d = site < n ? update_site<R>(f, n, site, (R)s[S_ALPHA]) : 0.0;
    const double total = block_sum(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

/// p = r + beta p.
template <class R>
__global__ void __launch_bounds__(MAX_BLOCK) xpay_kernel(CgFields<R> f, int n, const double* __restrict__ s) {
    const int site = blockIdx.x * blockDim.x + threadIdx.x;
    if (site < n) xpay_site<R>(f, n, site, (R)s[S_BETA]);
}

/// One block of FINISH threads adds the partials in a fixed order (the solve
/// is deterministic), then thread 0 runs the scalar update. 1024 threads: at
/// 2^21 sites and blocks of 64 each adds 32 partials, a few microseconds.
constexpr int FINISH = 1024;
__global__ void __launch_bounds__(FINISH) finish_kernel(const double* __restrict__ partial, int count, double* s,
                                                        Stage stage) {
    __shared__ double buf[FINISH];
    double acc = 0;
    for (int i = threadIdx.x; i < count; i += FINISH) acc += partial[i];
    buf[threadIdx.x] = acc;
    for (int half = FINISH / 2; half > 0; half /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < half) buf[threadIdx.x] += buf[threadIdx.x + half];
    }
    if (threadIdx.x == 0) cg_scalar_step(s, stage, buf[0]);
}

/// D or D^dagger, launched with `block` threads per block, links read as `recon`.
template <class R>
void launch_dslash(const C<R>* psi, const C<R>* u, C<R>* out, Geom g, int isign, int block, int recon) {
    const int grid = (g.n + block - 1) / block;
    with_recon(recon, [&](auto rc) {
        with_order(g, [&](auto order) {
            using O = decltype(order);
            constexpr int RC = decltype(rc)::value;
            if (isign > 0) dslash_kernel<R, 1, O, RC><<<grid, block>>>(psi, u, out, g);
            else dslash_kernel<R, -1, O, RC><<<grid, block>>>(psi, u, out, g);
        });
    });
    LAUNCHED();
}

/// cg_solve's backend on the GPU (default stream; device scalars).
template <class R> struct GpuBackend {
    Geom g;
    int block;
    R kappa;
    const C<R>* u;    // the links
    double* scalars;  // S_COUNT slots
    double* partial;  // one per block
    int recon;        // links whole (18) or as two rows (12)
    int blocks() const { return (g.n + block - 1) / block; }

    void apply_m(C<R>* out, const C<R>* in, int isign, DotMode mode, const C<R>* w) {
        const dim3 grid(blocks());
        with_recon(recon, [&](auto rc) {
            with_order(g, [&](auto order) {
                using O = decltype(order);
                constexpr int RC = decltype(rc)::value;
                if (isign > 0 && mode == NO_DOT)
                    m_kernel<R, 1, NO_DOT, O, RC><<<grid, block>>>(in, u, out, g, kappa, w, partial);
                else if (isign < 0 && mode == DOT_W)
                    m_kernel<R, -1, DOT_W, O, RC><<<grid, block>>>(in, u, out, g, kappa, w, partial);
                else if (isign < 0 && mode == NORM)
                    m_kernel<R, -1, NORM, O, RC><<<grid, block>>>(in, u, out, g, kappa, w, partial);
                else {
                    std::fprintf(stderr, "apply_m: no kernel for isign %d, mode %d\n", isign, (int)mode);
                    std::exit(2);
                }
            });
        });
        LAUNCHED();
    }
    void finish(Stage stage) {
        finish_kernel<<<1, FINISH>>>(partial, blocks(), scalars, stage);
        LAUNCHED();
    }
    void copy(C<R>* dst, const C<R>* src) {
        CK(cudaMemcpyAsync(dst, src, sizeof(C<R>) * 12 * (size_t)g.n, cudaMemcpyDeviceToDevice));
    }
    void zero(C<R>* x) { CK(cudaMemsetAsync(x, 0, sizeof(C<R>) * 12 * (size_t)g.n)); }
    void update(const CgFields<R>& f) {
        update_kernel<R><<<blocks(), block>>>(f, g.n, scalars, partial);
        LAUNCHED();
    }
    void xpay(const CgFields<R>& f) {
        xpay_kernel<R><<<blocks(), block>>>(f, g.n, scalars);
        LAUNCHED();
    }
};

}  // namespace port
