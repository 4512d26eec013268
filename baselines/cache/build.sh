#!/usr/bin/env bash
# Builds gpu-benches' `gpu-cache` (L1: every block re-reads one small array)
# and `gpu-l2-cache` (L2: blocks read disjoint slices of a set larger than
# L1) from a checkout (te42kyfo/gpu-benches), with their Makefiles' nvcc
# flags for this GPU. Both include a CUPTI metrics header for counters
# their published runs leave commented out; where CUPTI's profiler host
# libraries are missing, the build falls back to a copy of the two
# programs with that header reduced to the one call they make.
# Usage: build.sh CHECKOUT OUTDIR
set -euo pipefail
src=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
"$nvcc" --version | tail -1
cuda=$(dirname "$(dirname "$(command -v "$nvcc")")")
cupti=$cuda/extras/CUPTI
flags=(-std=c++17 -O3 -arch="$arch" -Xcompiler -fopenmp)
with_cupti=(-I"$cupti/include" -L"$cupti/lib64" -Xlinker -rpath="$cupti/lib64"
    -lcupti -lcuda -lnvidia-ml -lnvperf_host -lnvperf_target)
for prog in gpu-cache gpu-l2-cache; do
    if ! (cd "$src/$prog" && "$nvcc" "${flags[@]}" main.cu -o "$out/$prog" "${with_cupti[@]}"); then
        echo "$prog: CUPTI build failed; building without the metrics header"
        tree=$(mktemp -d)
        cp -r "$src/." "$tree/"
        printf '#pragma once\ninline void initMeasureMetric() {}\n' >"$tree/gpu-metrics/gpu-metrics.hpp"
        (cd "$tree/$prog" && "$nvcc" "${flags[@]}" main.cu -o "$out/$prog" -lnvidia-ml)
    fi
done
