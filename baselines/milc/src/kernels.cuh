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

/// The site of the dispatch's i-th thread: blocks of whole x rows by g.by y
/// rows by g.bz z rows by g.bt t planes, g.group blocks along t together,
/// then the blocks along y, along z, and the t groups (Skylight's
/// `scale::Part::ordered`); storage order when all are 1.
__device__ inline int ordered_site(int i, const Geom& g) {
    if (g.by == 1 && g.bz == 1 && g.bt == 1 && g.group == 1) return i;
    const int x = i % g.l;
    i /= g.l;
    const int y0 = i % g.by;
    i /= g.by;
    const int z0 = i % g.bz;
    i /= g.bz;
    const int t0 = i % g.bt;
    i /= g.bt;
    const int t1 = i % g.group;
    i /= g.group;
    const int yb = i % (g.l / g.by);
    i /= g.l / g.by;
    const int zb = i % (g.l / g.bz);
    i /= g.l / g.bz;
    const int y = yb * g.by + y0, z = zb * g.bz + z0, t = (i * g.group + t1) * g.bt + t0;
    return x + g.l * (y + g.l * (z + g.l * t));
}

/// out = D psi (ISIGN 1) or D^dagger psi (-1): the whole operator, one site per thread.
template <class R, int ISIGN>
__global__ void __launch_bounds__(MAX_BLOCK)
    dslash_kernel(const C<R>* __restrict__ psi, const C<R>* __restrict__ u, C<R>* __restrict__ out, Geom g) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.n) return;
    const int site = ordered_site(i, g);
    store_spinor<R>(out, g.n, site, dslash_site<ISIGN, R>(psi, u, g, site));
}

/// out = M psi (or M^dagger psi); with DOT, partial[block] = the block's sum of
/// Re <w, out> (DOT_W) or |out|^2 (NORM), so CG needs no separate dot pass.
template <class R, int ISIGN, int DOT>
__global__ void __launch_bounds__(MAX_BLOCK)
    m_kernel(const C<R>* __restrict__ psi, const C<R>* __restrict__ u, C<R>* __restrict__ out, Geom g, R kappa,
             const C<R>* __restrict__ w, double* __restrict__ partial) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double d = 0;
    if (i < g.n) {
        const int site = ordered_site(i, g);
        const Spinor<R> o = m_site<ISIGN, R>(psi, u, g, site, kappa);
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

/// D or D^dagger, launched with `block` threads per block.
template <class R> void launch_dslash(const C<R>* psi, const C<R>* u, C<R>* out, Geom g, int isign, int block) {
    const int grid = (g.n + block - 1) / block;
    if (isign > 0) dslash_kernel<R, 1><<<grid, block>>>(psi, u, out, g);
    else dslash_kernel<R, -1><<<grid, block>>>(psi, u, out, g);
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
    int blocks() const { return (g.n + block - 1) / block; }

    void apply_m(C<R>* out, const C<R>* in, int isign, DotMode mode, const C<R>* w) {
        const dim3 grid(blocks());
        if (isign > 0 && mode == NO_DOT) m_kernel<R, 1, NO_DOT><<<grid, block>>>(in, u, out, g, kappa, w, partial);
        else if (isign < 0 && mode == DOT_W) m_kernel<R, -1, DOT_W><<<grid, block>>>(in, u, out, g, kappa, w, partial);
        else if (isign < 0 && mode == NORM) m_kernel<R, -1, NORM><<<grid, block>>>(in, u, out, g, kappa, w, partial);
        else {
            std::fprintf(stderr, "apply_m: no kernel for isign %d, mode %d\n", isign, (int)mode);
            std::exit(2);
        }
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
