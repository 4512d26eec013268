#!/usr/bin/env bash
# Builds su3_bench's CUDA version (isazi/su3_bench) in f32 and f64 with
# Makefile.cuda's compiler line and flags, for this GPU's architecture.
# Usage: build.sh CHECKOUT OUTDIR
set -euo pipefail
src=$(cd "$1" && pwd)
# Absolute: the build runs inside the checkout.
out=$(mkdir -p "$2" && cd "$2" && pwd)
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
"$nvcc" --version | tail -1
cd "$src"
flags=(-ccbin g++ -m64 --x cu -O3 -arch="$arch" -DUSE_CUDA)
"$nvcc" "${flags[@]}" -DPRECISION=1 -o "$out/su3-f32-cuda" su3_nn_bench.cpp &
"$nvcc" "${flags[@]}" -o "$out/su3-f64-cuda" su3_nn_bench.cpp &
wait -n && wait -n
