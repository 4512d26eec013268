#!/usr/bin/env bash
# Builds the milc port (a port: no checkout argument) into <outdir>/milc.
# usage: build.sh <outdir>      env: NVCC (default nvcc), ARCH (default sm_90)
set -euo pipefail
out=${1:?usage: build.sh <outdir>}
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/src"
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
mkdir -p "$out"
"$nvcc" --version
# -fopenmp: the f64 host reference checks 2^21 sites on every core;
# -fcx-limited-range: its std::complex products inline (no inf/NaN recovery
# path, which finite inputs never take); -Xptxas -v: registers and spills in
# the log.
"$nvcc" -O3 -std=c++17 -arch="$arch" -Xptxas -v \
    -Xcompiler -fopenmp,-fcx-limited-range \
    -o "$out/milc" "$src/milc.cu" "$src/reference.cpp" -lgomp
echo "built $out/milc with $nvcc -O3 -arch=$arch"
