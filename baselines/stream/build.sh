#!/usr/bin/env bash
# Builds BabelStream's CUDA model from a checkout (UoB-HPC/BabelStream) with
# the flags its CUDA model documents. Usage: build.sh CHECKOUT OUTDIR
set -euo pipefail
src=$(cd "$1" && pwd)
# Absolute: the build runs inside the checkout.
out=$(mkdir -p "$2" && cd "$2" && pwd)
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
"$nvcc" --version | tail -1
# Grid-stride loops with an unroll of 4: BabelStream's fastest CUDA setting on Hopper.
(cd "$src" && "$nvcc" -std=c++17 -O3 -arch="$arch" --extended-lambda -DCUDA -DGRID_STRIDE \
    -DUNROLL_FACTOR=4 -Isrc -Isrc/cuda src/main.cpp src/cuda/CUDAStream.cu -lnvidia-ml \
    -o "$out/babelstream-cuda")
