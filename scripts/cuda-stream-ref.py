#!/usr/bin/env python3
"""Same-device CUDA baseline for the stream kernels, run on the lent GPU
machine beside the Vulkan/WGSL figures (its image has CuPy; no network).

BabelStream's kernels written plainly in CUDA C++ (one element per thread,
256 threads per block, a grid-stride loop only for dot), its initial values
and its byte counts, 2^25 elements, timed with CUDA events: the median of 20
runs after 0.5 s of warm-up. Prints one line per kernel and writes JSON to
the path given as the first argument (default: cuda-stream.json).
"""
import json
import sys

import cupy as cp
import numpy as np

N = 1 << 25
SAMPLES = 20
SCALAR = 0.4

SOURCE = r"""
template <typename T> __device__ void copy_k(const T* a, T* c, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i]; }
template <typename T> __device__ void mul_k(T* b, const T* c, T s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = s * c[i]; }
template <typename T> __device__ void add_k(const T* a, const T* b, T* c, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
template <typename T> __device__ void triad_k(T* a, const T* b, const T* c, T s, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = b[i] + s * c[i]; }
template <typename T> __device__ void dot_k(const T* a, const T* b, T* sums, int n)
{
    __shared__ T part[256];
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += a[i] * b[i];
    part[threadIdx.x] = acc;
    for (int off = blockDim.x / 2; off > 0; off /= 2) {
        __syncthreads();
        if (threadIdx.x < off) part[threadIdx.x] += part[threadIdx.x + off];
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}
#define INST(T, S) \
extern "C" __global__ void copy_##S(const T* a, T* c, int n) { copy_k(a, c, n); } \
extern "C" __global__ void mul_##S(T* b, const T* c, T s, int n) { mul_k(b, c, s, n); } \
extern "C" __global__ void add_##S(const T* a, const T* b, T* c, int n) { add_k(a, b, c, n); } \
extern "C" __global__ void triad_##S(T* a, const T* b, const T* c, T s, int n) { triad_k(a, b, c, s, n); } \
extern "C" __global__ void dot_##S(const T* a, const T* b, T* sums, int n) { dot_k(a, b, sums, n); }
INST(float, f32)
INST(double, f64)
"""


def median_ms(launch):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    t0 = cp.cuda.Event()
    t0.record()
    while True:
        launch()
        t1 = cp.cuda.Event()
        t1.record()
        t1.synchronize()
        if cp.cuda.get_elapsed_time(t0, t1) > 500:
            break
    times = []
    for _ in range(SAMPLES):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "cuda-stream.json"
    mod = cp.RawModule(code=SOURCE, options=("-std=c++17",))
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    rows = []
    for prec, dtype in (("f32", np.float32), ("f64", np.float64)):
        a = cp.full(N, 0.1, dtype)
        b = cp.full(N, 0.2, dtype)
        c = cp.zeros(N, dtype)
        s = dtype(SCALAR)
        n = np.int32(N)
        grid, block = ((N + 255) // 256,), (256,)
        dot_blocks = 132 * 4 * 4
        sums = cp.zeros(dot_blocks, dtype)
        k = {key: mod.get_function(f"{key}_{prec}") for key in ("copy", "mul", "add", "triad", "dot")}
        kernels = {
            "copy": (lambda: k["copy"](grid, block, (a, c, n)), 2),
            "mul": (lambda: k["mul"](grid, block, (b, c, s, n)), 2),
            "add": (lambda: k["add"](grid, block, (a, b, c, n)), 3),
            "triad": (lambda: k["triad"](grid, block, (a, b, c, s, n)), 3),
            "dot": (lambda: k["dot"]((dot_blocks,), block, (a, b, sums, n)), 2),
        }
        for kernel, (launch, arrays) in kernels.items():
            ms = median_ms(launch)
            gbs = arrays * N * a.itemsize / (ms * 1e-3) / 1e9
            rows.append({"kernel": kernel, "precision": prec, "median_ms": ms, "gb_s": gbs})
            print(f"cuda {kernel:6s} {prec} {ms:8.4f} ms {gbs:8.1f} GB/s", flush=True)
    with open(out, "w") as f:
        json.dump({"device": name, "elements": N, "samples": SAMPLES, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
