#!/usr/bin/env bash
# Builds TestSNAP (FitSNAP/TestSNAP, branch Kokkos_V2) against an installed
# Kokkos for Skylight's default snap problem: one executable per 2J,
# <outdir>/test_snap_2J8 and <outdir>/test_snap_2J14.
#
#   build.sh <testsnap checkout> <kokkos prefix> <outdir>
#
# TestSNAP compiles its problem in (src/refdata_2J<N>_W.h). Skylight's problem
# (BCC W, 10^3 cells = 2000 atoms x 26 neighbours, random displacements and
# coefficients) is written by refgen/ with Skylight's CPU f64 forces as the
# reference, so this needs cargo. REFOUT=<dir> keeps them there (with the
# same problems as Skylight reference files, 2J<N>_W.json, for `skylight run
# snap --set refdata=...`); REFDIR=<dir> takes headers written before
# (refdata_2J8_W.h, refdata_2J14_W.h) instead. Env: CELLS (10), SEED (19),
# TWOJS ("8 14"), HOST_CXX (nvcc's host compiler, g++-11 where present),
# CARGO_TARGET_DIR. The CUDA architecture is the Kokkos build's (its ARCH).
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 <testsnap checkout> <kokkos prefix> <outdir>" >&2; exit 2; }
src=$(realpath "$1")
kokkos=$(realpath "$2")
mkdir -p "$3"
out=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
CELLS=${CELLS:-10}
SEED=${SEED:-19}
TWOJS=${TWOJS:-8 14}
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
echo "testsnap commit: $commit"
echo "compiler: $cxx (host $NVCC_WRAPPER_DEFAULT_COMPILER)"
command -v nvcc >/dev/null && nvcc --version | tail -n 2

refdir=${REFDIR:-}
if [[ -z $refdir ]]; then
    if [[ -n ${REFOUT:-} ]]; then
        refdir=$REFOUT
        mkdir -p "$refdir"
    else
        refdir=$(mktemp -d "${TMPDIR:-/tmp}/snap-refdata.XXXXXX")
        trap 'rm -rf "$refdir"' EXIT
    fi
    # The struct TestSNAP's refdata headers declare, from the checkout itself.
    sed -n '/^struct REFDATA/,/^};/p' "$src/src/refdata_2J2_W.h" >"$refdir/struct.h"
    [[ -s $refdir/struct.h ]] || { echo "no struct REFDATA in $src/src/refdata_2J2_W.h" >&2; exit 1; }
    cp "$here/../../Cargo.lock" "$here/refgen/"
    cargo build --release --quiet --manifest-path "$here/refgen/Cargo.toml"
    gen=${CARGO_TARGET_DIR:-$here/refgen/target}/release/snap-refgen
    for j in $TWOJS; do
        "$gen" "$CELLS" "$j" "$SEED" "$refdir/struct.h" "$refdir/refdata_2J${j}_W.h" "$refdir/2J${j}_W.json"
    done
fi

for j in $TWOJS; do
    # A copy of the sources with our header in place of the checkout's (a
    # quoted #include finds the including file's directory first).
    work="$out/build-2J$j"
    rm -rf "$work"
    mkdir -p "$work"
    cp -r "$src/CMakeLists.txt" "$src/src" "$work/"
    cp "$refdir/refdata_2J${j}_W.h" "$work/src/"
    # Static libstdc++/libgcc (cudart is static through the Kokkos build), so
    # the executable runs where another toolchain is installed.
    cmake -S "$work" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
        -DKokkos_ROOT="$kokkos" -Dref_data="$j" \
        -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >"$work/configure.log"
    cmake --build "$work/build" -j "${JOBS:-$(nproc)}"
    install -m 755 -s "$work/build/test_snap" "$out/test_snap_2J$j"
    rm -rf "$work"
done
echo "$commit" >"$out/COMMIT"
echo "TestSNAP Kokkos_V2 (CMake Release) with $(cat "$kokkos/BUILD" 2>/dev/null || echo "Kokkos in $kokkos"); refdata: ${REFDIR:-baselines/snap/refgen, $CELLS^3 cells, seed $SEED}" >"$out/BUILD"
cat "$out/BUILD"
ls -l "$out"/test_snap_2J*
