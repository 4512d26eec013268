// ComputeForce, `cell` mapping (included by kernels.cuh): a block per link
// cell. The first warp scans the lengths of the 27 neighbour runs; the warps
// then stage whole runs in shared memory, each warp its own cells, already
// moved to their periodic images and packed without gaps (one round when
// they fit, as they nearly always do; more rounds otherwise). A cell holds
// far fewer atoms (about 18) than the block has threads, so each atom gets
// WG / count threads ("parts"), each taking every parts-th staged
// neighbour; their partial sums meet in shared memory at the end.
#pragma once

template <typename R, int WG>
struct CellShared {
    // Staged neighbours: 12 KiB in f32, 16 KiB in f64, so that the ~13 blocks
    // an SM takes at 32,000 atoms (1,728 cells on 132 SMs) all fit at once.
    // The 27 runs average ~500 atoms, so f64 sometimes stages in two rounds.
    static constexpr int STAGE = sizeof(R) == 4 ? 768 : 512;
    P4<R> stage[STAGE];
    Acc<R> partial[WG];
    int beg[27], cnt[27];
    int pre[28];  // pre[n]: atoms in neighbour cells before n
};

// The busy threads test and interact with staged[0, fill); `me` is the
// thread's own atom among them (or -1). Called by the whole block.
template <typename R, int WG>
__device__ __forceinline__ void interact_staged(CellShared<R, WG>& sh, const Params<R>& p,
                                                Acc<R>& acc, const P4<R>& ri, int fill, int me,
                                                int part, int parts, bool busy) {
    __syncthreads();
    if (busy) {
        for (int m0 = part; m0 < fill; m0 += 32 * parts) {
            unsigned hits = 0;
            for (int b = 0; b < 32; ++b) {
                const int m = m0 + b * parts;
                if (m >= fill) break;
                const P4<R> rj = sh.stage[m];
                if (dist2(rj.x - ri.x, rj.y - ri.y, rj.z - ri.z) < p.rc2 && m != me) hits |= 1u << b;
            }
            while (hits != 0) {
                const int b = lowest_bit(hits);
                hits &= hits - 1;
                const P4<R> rj = sh.stage[m0 + b * parts];
                interact(acc, p, rj.x - ri.x, rj.y - ri.y, rj.z - ri.z);
            }
        }
    }
    __syncthreads();
}

// Stages neighbour cells [n0, n1) (their atoms fit in STAGE): warp w copies
// cells n0 + w, n0 + w + warps, ..., so the copies of different cells are in
// flight together.
template <typename R, int WG>
__device__ __forceinline__ void stage_cells(CellShared<R, WG>& sh, const Params<R>& p,
                                            const P4<R>* __restrict__ spos, const int k[3], int n0,
                                            int n1) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 2
    for (int n = n0 + warp; n < n1; n += WG / 32) {
        R s[3];
        neighbour(p, k, n, s);
        const int to = sh.pre[n] - sh.pre[n0], from = sh.beg[n];
        for (int j = lane; j < sh.cnt[n]; j += 32) {
            const P4<R> r = load4(spos, from + j);
            sh.stage[to + j] = P4<R>{r.x + s[0], r.y + s[1], r.z + s[2], R(0)};
        }
    }
}

template <typename R, bool KICK, int WG>
__global__ void force_cell(Params<R> p, const P4<R>* __restrict__ spos, const int* __restrict__ sid,
                           const int* __restrict__ offsets, R* __restrict__ frc, R* __restrict__ epot,
                           R* __restrict__ vel) {
    constexpr int STAGE = CellShared<R, WG>::STAGE;
    __shared__ CellShared<R, WG> sh;
    const int lid = threadIdx.x;
    int k[3];
    cell_coords(p, int(blockIdx.x), k);
    if (lid < 32) {
        // The first warp finds the 27 runs and scans their lengths.
        int c = 0;
        if (lid < 27) {
            R s[3];
            const int q = neighbour(p, k, lid, s);
            sh.beg[lid] = offsets[q];
            c = sh.cnt[lid] = offsets[q + 1] - offsets[q];
        }
        for (int d = 1; d < 32; d *= 2) {
            const int v = __shfl_up_sync(0xffffffffu, c, d);
            if (lid >= d) c += v;
        }
        if (lid < 27) sh.pre[lid + 1] = c;
        if (lid == 0) sh.pre[0] = 0;
    }
    __syncthreads();
    const int count = sh.cnt[13], own = sh.beg[13];
    // More atoms than threads is not expected at CoMD's density, but is
    // handled: WG atoms per round.
    for (int base = 0; base < count; base += WG) {
        const int na = imin(WG, count - base);
        const int parts = WG / na, a = lid % na, part = lid / na;
        const bool busy = part < parts;
        const P4<R> ri = load4(spos, own + base + a);
        Acc<R> acc = {0, 0, 0, 0};
        // Rounds of whole neighbour cells that fit in the stage.
        for (int n0 = 0, n1; n0 < 27; n0 = n1) {
            for (n1 = n0 + 1; n1 < 27 && sh.pre[n1 + 1] - sh.pre[n0] <= STAGE; ++n1) {
            }
            // One cell holding more atoms than the stage (over 20 times the
            // mean occupancy) ends the run with an error, never silently.
            if (sh.pre[n1] - sh.pre[n0] > STAGE) __trap();
            stage_cells(sh, p, spos, k, n0, n1);
            const int me = n0 <= 13 && 13 < n1 ? sh.pre[13] - sh.pre[n0] + base + a : -1;
            interact_staged(sh, p, acc, ri, sh.pre[n1] - sh.pre[n0], me, part, parts, busy);
        }
        sh.partial[lid] = acc;
        __syncthreads();
        if (lid < na) {
            Acc<R> sum = sh.partial[lid];
            for (int q = 1; q < parts; ++q) {
                const Acc<R>& o = sh.partial[lid + q * na];
                sum.fx += o.fx;
                sum.fy += o.fy;
                sum.fz += o.fz;
                sum.e += o.e;
            }
            store_atom<R, KICK>(p, sid[own + base + lid], sum, frc, epot, vel);
        }
        __syncthreads();
    }
}
