#!/usr/bin/env bash
# Builds Ludwig (github.com/ludwig-cf/ludwig) for one NVIDIA GPU: D3Q19,
# the serial MPI stub (mpi_s) and targetDP's CUDA target, in double
# precision (Ludwig has no single-precision build).
#
#   build.sh <ludwig checkout or export> <outdir>   -> <outdir>/Ludwig.exe
#
# The checkout needs only src/ target/ mpi_s/ Makefile.mk version.h.
# Env: NVCC (default nvcc), ARCH (default sm_90), JOBS (default nproc),
# LUDWIG_COMMIT (printed by Ludwig; default: git rev-parse of the checkout).
set -euo pipefail

src=$(cd "${1:?usage: build.sh <ludwig checkout> <outdir>}" && pwd)
mkdir -p "${2:?usage: build.sh <ludwig checkout> <outdir>}"
out=$(cd "$2" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}
commit=${LUDWIG_COMMIT:-$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)}

"$NVCC" --version

# Ludwig builds inside its tree (config.mk at the top), so build in a copy.
work="$out/ludwig-src"
rm -rf "$work"
mkdir -p "$work"
for p in src target mpi_s Makefile.mk version.h; do
  cp -r "$src/$p" "$work/"
done

# As config/unix-nvcc-default.mk, with -O3, our arch, the SoA layout Ludwig
# uses on GPUs (-DADDR_SOA) and no assertions (-DNDEBUG, as its README asks
# for production runs). Every .c is compiled as CUDA (-x cu) with separate
# device code (-dc), linked by nvcc.
flags="-O3 -arch=$ARCH -x cu -dc -DADDR_SOA -DNDEBUG"
cat > "$work/config.mk" <<CFG
BUILD   = serial
MODEL   = -D_D3Q19_
TARGET  = nvcc
CC      = $NVCC
CFLAGS  = $flags
AR      = ar
ARFLAGS = -cr
LDFLAGS = -arch=$ARCH -Xcompiler -fopenmp
CFG

# mpi_s's MPI_Wtime, which every Ludwig timer reads, is clock() (process CPU
# time) unless built with OpenMP, when it is omp_get_wtime() (wall clock):
# only the stub is built with OpenMP, so Ludwig itself stays single-threaded
# on the host. The link above adds libgomp for it.
make -C "$work/mpi_s" lib CFLAGS="$flags -Xcompiler -fopenmp"
make -C "$work/target"
make -C "$work/src" -j "$JOBS" build GIT_REVISION="$commit"

cp "$work/src/Ludwig.exe" "$out/Ludwig.exe"
echo "built $out/Ludwig.exe (ludwig $commit, $NVCC $flags)"
