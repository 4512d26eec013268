#!/usr/bin/env bash
# Builds the Kokkos GPP kernel (rgayatri23/BerkeleyGW-Kernels-CPP, branch
# Kokkos) against an installed Kokkos, and the kernel timer Kokkos loads to
# time the kernel alone (../kokkos/kernel_timer.c):
# <outdir>/gpp and <outdir>/libkernel_timer.so.
#
#   build.sh <gpp checkout> <kokkos prefix> <outdir>
#
# The CUDA architecture is the Kokkos build's (its ARCH). Env: HOST_CXX
# (nvcc's host compiler: g++-11 where present, because nvcc 11.8 rejects g++
# 12), CC (compiler of the timer, default gcc), JOBS.
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 <gpp checkout> <kokkos prefix> <outdir>" >&2; exit 2; }
src=$(realpath "$1")
kokkos=$(realpath "$2")
mkdir -p "$3"
out=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
if command -v g++-11 >/dev/null; then host_default=g++-11; else host_default=g++; fi
export NVCC_WRAPPER_DEFAULT_COMPILER=${HOST_CXX:-$host_default}
# Compile with Kokkos' compiler: its installed nvcc_wrapper for CUDA.
conf=$(echo "$kokkos"/lib*/cmake/Kokkos/KokkosConfigCommon.cmake)
if grep -q 'Kokkos_CXX_COMPILER_ID "NVIDIA"' "$conf"; then
    cxx=$kokkos/bin/nvcc_wrapper
else
    cxx=$(sed -n 's/^SET(Kokkos_CXX_COMPILER "\(.*\)")$/\1/p' "$conf")
fi
# What device-run records: the code's commit (a git checkout's, or the COMMIT
# file baselines/export-sources writes) and the build.
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || cat "$src/COMMIT" 2>/dev/null || echo unknown)
echo "gpp commit: $commit"
echo "compiler: $cxx (host $NVCC_WRAPPER_DEFAULT_COMPILER)"
command -v nvcc >/dev/null && nvcc --version | tail -n 2

work=$(mktemp -d "${TMPDIR:-/tmp}/gpp-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Static libstdc++/libgcc (cudart is static through the Kokkos build), so the
# executable runs where another toolchain is installed.
cmake -S "$here" -B "$work" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DKokkos_ROOT="$kokkos" -DGPP_CHECKOUT="$src" \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >"$work/configure.log"
cmake --build "$work" -j "${JOBS:-$(nproc)}"
install -m 755 -s "$work/gpp" "$out/gpp"
"${CC:-gcc}" -O2 -shared -fPIC -o "$out/libkernel_timer.so" "$here/../kokkos/kernel_timer.c"
strip "$out/libkernel_timer.so"
echo "$commit" >"$out/COMMIT"
echo "GPP (Kokkos branch, baselines/gpp/CMakeLists.txt, Release) with $(cat "$kokkos/BUILD" 2>/dev/null || echo "Kokkos in $kokkos")" >"$out/BUILD"
cat "$out/BUILD"
ls -l "$out/gpp" "$out/libkernel_timer.so"
