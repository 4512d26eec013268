#!/usr/bin/env bash
# Builds and installs Kokkos (static, Release, C++17) for the Kokkos
# baselines (snap's TestSNAP, gpp's BerkeleyGW-Kernels-CPP).
#
#   build.sh <kokkos checkout> <prefix> [cuda|openmp]
#
# cuda (default): Kokkos' CUDA backend for $ARCH (sm_90 -> HOPPER90), host
# space Serial, built through the checkout's nvcc_wrapper. openmp: a host-only
# OpenMP build, to run the apps on a CPU without a GPU (TestSNAP's CPU path
# asks for teams of 32 threads, which the Serial backend refuses).
# Env: NVCC (nvcc to use), ARCH (sm_NN), HOST_CXX (nvcc's host compiler:
# g++-11 where present, because nvcc 11.8 rejects g++ 12), JOBS.
# Writes <prefix>/BUILD: one line naming the build, which the apps' build.sh
# copy into their own BUILD (device-run's --build for the records).
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 <kokkos checkout> <prefix> [cuda|openmp]" >&2; exit 2; }
src=$(realpath "$1")
prefix=$(realpath -m "$2")
backend=${3:-cuda}
jobs=${JOBS:-$(nproc)}
if command -v g++-11 >/dev/null; then host_default=g++-11; else host_default=g++; fi
HOST_CXX=${HOST_CXX:-$host_default}
build=$(mktemp -d "${TMPDIR:-/tmp}/kokkos-build.XXXXXX")
trap 'rm -rf "$build"' EXIT

opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
      -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF -DKokkos_ENABLE_SERIAL=ON)
case $backend in
cuda)
    NVCC=${NVCC:-nvcc}
    ARCH=${ARCH:-sm_90}
    # Kokkos names the architecture, not the sm number.
    case $ARCH in
    sm_90 | sm_90a) karch=HOPPER90 ;;
    sm_89) karch=ADA89 ;;
    sm_80) karch=AMPERE80 ;;
    sm_86) karch=AMPERE86 ;;
    sm_70) karch=VOLTA70 ;;
    *) echo "ARCH=$ARCH: no Kokkos architecture known for it" >&2; exit 2 ;;
    esac
    # nvcc_wrapper runs the `nvcc` on PATH with -ccbin $NVCC_WRAPPER_DEFAULT_COMPILER.
    export PATH="$(dirname "$(command -v "$NVCC")"):$PATH"
    export NVCC_WRAPPER_DEFAULT_COMPILER=$HOST_CXX
    "$NVCC" --version | tail -n 2
    compiler="nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') (host $HOST_CXX)"
    cudart_static=$(find "$(dirname "$(realpath "$(command -v "$NVCC")")")/.." /usr/lib/x86_64-linux-gnu \
        /usr/local/cuda/lib64 -name libcudart_static.a 2>/dev/null | head -n 1 || true)
    opts+=(-DCMAKE_CXX_COMPILER="$src/bin/nvcc_wrapper" -DKokkos_ENABLE_CUDA=ON
           -DKokkos_ARCH_"$karch"=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON)
    # Kokkos links CUDA::cudart, the shared runtime by default; the static one
    # makes executables that run on a machine with another toolkit.
    [[ -n $cudart_static ]] && opts+=(-DCUDA_cudart_LIBRARY="$cudart_static")
    ;;
openmp)
    "$HOST_CXX" --version | head -n 1
    compiler=$HOST_CXX
    karch=host
    opts+=(-DCMAKE_CXX_COMPILER="$HOST_CXX" -DKokkos_ENABLE_OPENMP=ON)
    ;;
*) echo "backend $backend: cuda or openmp" >&2; exit 2 ;;
esac

start=$(date +%s)
cmake -S "$src" -B "$build" "${opts[@]}" >"$build/configure.log" || { cat "$build/configure.log"; exit 1; }
grep -E "Kokkos (version|Devices|Architectures)|Execution Spaces|Device Parallel|Host Parallel|Host Serial" "$build/configure.log" || true
cmake --build "$build" -j "$jobs"
cmake --install "$build" >/dev/null
version=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")$/\1/p' "$prefix"/lib*/cmake/Kokkos/KokkosConfigVersion.cmake)
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || cat "$src/COMMIT" 2>/dev/null || echo unknown)
echo "Kokkos $version ($commit) $backend $karch, static, Release, C++17, $compiler" >"$prefix/BUILD"
cat "$prefix/BUILD"
echo "kokkos $backend installed in $prefix in $(($(date +%s) - start)) s"
