#!/usr/bin/env bash
# Builds the labelled CUDA port of CoMD's LJ path (a port: no checkout).
# usage: build.sh <outdir>          env: NVCC (default nvcc), ARCH (default sm_90)
set -euo pipefail
out=${1:?usage: build.sh <outdir>}
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${NVCC:-nvcc}
arch=${ARCH:-sm_90}
mkdir -p "$out"
"$nvcc" --version
# -Xptxas -v prints registers and spills per kernel; OpenMP speeds the f64
# CPU reference at 2,048,000 atoms on the host's cores.
"$nvcc" -O3 -arch="$arch" -std=c++17 -Xcompiler -fopenmp -Xptxas -v \
    -o "$out/comd_port" \
    "$here"/src/main.cu "$here"/src/gpu.cu "$here"/src/emulate.cu "$here"/src/port.cu "$here"/src/md.cpp \
    -lgomp
echo "built $out/comd_port: nvcc $("$nvcc" --version | grep -o "release [0-9.]*") -O3 -arch=$arch"
