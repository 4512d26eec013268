// Labelled CUDA port of CoMD's Lennard-Jones path, written for Skylight:
// the GPU kernels. Atoms keep their order in the per-atom arrays (SoA: all
// x, then all y, then all z). Redistribution counts the atoms of every link
// cell, scans the counts into offsets and gathers the positions into cell
// order (`spos`, 4 reals per atom for aligned vector loads, with `sid` the atom
// behind each sorted slot), so a neighbour cell is one contiguous run.
// The per-atom work is in __host__ __device__ functions so the CPU-only mode
// can run the same algorithm on the host (emulate.cu).
#pragma once

#include <cuda_runtime.h>

#ifdef __CUDACC__
#define HD __host__ __device__ __forceinline__
#else
#define HD inline
#endif

// Four reals, 16-byte aligned: a position and a pad.
template <typename R>
struct alignas(16) P4 {
    R x, y, z, w;
};

// Everything a kernel needs about the box and the potential.
template <typename R>
struct Params {
    R box[3];
    R per[3];  // link cells per unit length
    int nc[3];
    int atoms;
    R rc2, sigma2, eps4, eps24, shift;
    R half_dt_over_m, dt;
};

// Force on one atom and half the energy of its pairs.
template <typename R>
struct Acc {
    R fx, fy, fz, e;
};

HD int imin(int a, int b) { return a < b ? a : b; }

HD int lowest_bit(unsigned v) {
#ifdef __CUDA_ARCH__
    return __ffs(v) - 1;
#else
    return __builtin_ctz(v);
#endif
}

// A sorted position, through the read-only cache on the device.
template <typename R>
HD P4<R> load4(const P4<R>* p, int i) {
#ifdef __CUDA_ARCH__
    if constexpr (sizeof(R) == 4) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(p) + i);
        return {v.x, v.y, v.z, v.w};
    } else {
        const double2 a = __ldg(reinterpret_cast<const double2*>(p + i));
        const double z = __ldg(reinterpret_cast<const double*>(p + i) + 2);
        return {a.x, a.y, z, 0};
    }
#else
    return p[i];
#endif
}

// Cell coordinate along one dimension (positions lie in [0, L]).
template <typename R>
HD int cell_coord(R x, R per, int n) {
    const R k = x * per;
    const int c = k > R(0) ? int(k) : 0;
    return imin(c, n - 1);
}

template <typename R>
HD int cell_of(const Params<R>& p, R x, R y, R z) {
    return cell_coord(x, p.per[0], p.nc[0]) +
           p.nc[0] * (cell_coord(y, p.per[1], p.nc[1]) + p.nc[1] * cell_coord(z, p.per[2], p.nc[2]));
}

// Neighbour `n` (0..26; 13 is the cell itself) of the cell at k, and the box
// shift s that brings its atoms next to cell k across a periodic face. With
// at least 3 cells a side the 27 are distinct, and a shift per cell
// replaces a minimum-image test per pair.
template <typename R>
HD int neighbour(const Params<R>& p, const int k[3], int n, R s[3]) {
    const int o[3] = {n % 3 - 1, (n / 3) % 3 - 1, n / 9 - 1};
    int q[3];
    for (int d = 0; d < 3; ++d) {
        const int x = k[d] + o[d];
        q[d] = x < 0 ? p.nc[d] - 1 : (x >= p.nc[d] ? 0 : x);
        s[d] = x < 0 ? -p.box[d] : (x >= p.nc[d] ? p.box[d] : R(0));
    }
    return q[0] + p.nc[0] * (q[1] + p.nc[1] * q[2]);
}

template <typename R>
HD void cell_coords(const Params<R>& p, int c, int k[3]) {
    k[0] = c % p.nc[0];
    k[1] = (c / p.nc[0]) % p.nc[1];
    k[2] = c / (p.nc[0] * p.nc[1]);
}

template <typename R>
HD R dist2(R dx, R dy, R dz) {
    return dx * dx + dy * dy + dz * dz;
}

// The pair term of an atom with a neighbour at offset d inside the cutoff:
// phi = 4 eps s6 (s6 - 1) - shift, F = -24 eps s6 (2 s6 - 1) / r^2 d.
template <typename R>
HD void interact(Acc<R>& a, const Params<R>& p, R dx, R dy, R dz) {
    const R ir2 = R(1) / dist2(dx, dy, dz);
    const R s2 = p.sigma2 * ir2;
    const R s6 = s2 * s2 * s2;
    const R e = p.eps4 * s6 * (s6 - R(1)) - p.shift;
    const R fr = p.eps24 * s6 * (R(2) * s6 - R(1)) * ir2;
    a.fx -= fr * dx;
    a.fy -= fr * dy;
    a.fz -= fr * dz;
    a.e += R(0.5) * e;
}

// Only about one candidate in seven lies inside the cutoff, so testing and
// interacting in one loop would hold every lane of a warp in the
// interaction at nearly every candidate. Candidates are tested 32 at a
// time into a bit mask first; the interactions then run over the hits.

// Force on the atom in sorted slot t, walking the 27 neighbour runs.
template <typename R>
HD Acc<R> force_on(const Params<R>& p, const P4<R>* spos, const int* offsets, int t) {
    const P4<R> ri = load4(spos, t);
    int k[3];
    cell_coords(p, cell_of(p, ri.x, ri.y, ri.z), k);
    Acc<R> a = {0, 0, 0, 0};
    for (int n = 0; n < 27; ++n) {
        R s[3];
        const int q = neighbour(p, k, n, s);
        // ri moved against the shift, so rj - rn is the image's offset.
        const R xn = ri.x - s[0], yn = ri.y - s[1], zn = ri.z - s[2];
        const int end = offsets[q + 1];
        for (int u0 = offsets[q]; u0 < end; u0 += 32) {
            const int m = imin(32, end - u0);
            unsigned hits = 0;
            for (int b = 0; b < m; ++b) {
                const P4<R> rj = load4(spos, u0 + b);
                if (dist2(rj.x - xn, rj.y - yn, rj.z - zn) < p.rc2 && u0 + b != t) hits |= 1u << b;
            }
            while (hits != 0) {
                const int b = lowest_bit(hits);
                hits &= hits - 1;
                const P4<R> rj = load4(spos, u0 + b);
                interact(a, p, rj.x - xn, rj.y - yn, rj.z - zn);
            }
        }
    }
    return a;
}

// Writes atom i's force and energy; with KICK also the step's closing half
// kick (v += dt/(2m) F), fused into the force kernel.
template <typename R, bool KICK>
HD void store_atom(const Params<R>& p, int i, const Acc<R>& a, R* frc, R* epot, R* vel) {
    const int n = p.atoms;
    frc[i] = a.fx;
    frc[n + i] = a.fy;
    frc[2 * n + i] = a.fz;
    epot[i] = a.e;
    if (KICK) {
        vel[i] += p.half_dt_over_m * a.fx;
        vel[n + i] += p.half_dt_over_m * a.fy;
        vel[2 * n + i] += p.half_dt_over_m * a.fz;
    }
}

// The step's opening half kick and the drift of atom i (wrapped into the box).
template <typename R>
HD void advance_atom(const Params<R>& p, int i, R* pos, R* vel, const R* frc) {
    for (int d = 0; d < 3; ++d) {
        const int k = d * p.atoms + i;
        const R v = vel[k] + p.half_dt_over_m * frc[k];
        R x = pos[k] + p.dt * v;
        if (x < R(0)) x += p.box[d];
        if (!(x < p.box[d])) x -= p.box[d];
        vel[k] = v;
        pos[k] = x;
    }
}

#ifdef __CUDACC__

// Redistribution, part 1 (after the counts are cleared): every atom takes a
// place in its cell; with MOVE, first the step's half kick and drift.
template <typename R, bool MOVE>
__global__ void advance_bin(Params<R> p, R* __restrict__ pos, R* __restrict__ vel,
                            const R* __restrict__ frc, int* __restrict__ counts,
                            int* __restrict__ cell, int* __restrict__ place) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.atoms) return;
    if (MOVE) advance_atom(p, i, pos, vel, frc);
    const int n = p.atoms;
    const int c = cell_of(p, pos[i], pos[n + i], pos[2 * n + i]);
    cell[i] = c;
    place[i] = atomicAdd(&counts[c], 1);
}

// Redistribution, part 3 (after the scan of the counts into offsets): every
// atom's position is copied into its sorted slot, bit for bit.
template <typename R>
__global__ void gather(Params<R> p, const R* __restrict__ pos, const int* __restrict__ cell,
                       const int* __restrict__ place, const int* __restrict__ offsets,
                       P4<R>* __restrict__ spos, int* __restrict__ sid) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.atoms) return;
    const int n = p.atoms;
    const int t = offsets[cell[i]] + place[i];
    spos[t] = P4<R>{pos[i], pos[n + i], pos[2 * n + i], R(0)};
    sid[t] = i;
}

// ComputeForce, `atom` mapping: a thread per sorted slot, so the threads of
// a warp belong to one or two cells and walk the same neighbour runs.
template <typename R, bool KICK>
__global__ void force_atom(Params<R> p, const P4<R>* __restrict__ spos, const int* __restrict__ sid,
                           const int* __restrict__ offsets, R* __restrict__ frc, R* __restrict__ epot,
                           R* __restrict__ vel) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= p.atoms) return;
    const Acc<R> a = force_on(p, spos, offsets, t);
    store_atom<R, KICK>(p, sid[t], a, frc, epot, vel);
}

#include "force_cell.cuh"

#endif  // __CUDACC__
