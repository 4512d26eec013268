#!/usr/bin/env bash
# Runs the Kokkos GPP kernel on Skylight's default gpp problem (512 bands,
# 2 valence bands, 32768 plane waves, 20 nodes per group: ngpown 1638; the
# published inputs) REPS times, appending its own output to <logfile> for
# `skylight native --code gpp-kokkos`.
#
#   run.sh <outdir> <logfile>
#
# <outdir> holds gpp and libkernel_timer.so (build.sh). The code runs its
# kernel once per process and its "Kernel Time" includes the host-to-device
# copies of every array (2.2 GB); the timer Kokkos loads prints the kernel
# alone, and that is the sample. Env: REPS (5), GPP_ARGS.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 <outdir> <logfile>" >&2; exit 2; }
out=$(realpath "$1")
log=$2
: >"$log"
# GPP_ARGS: the code's bands, valence bands, plane waves, nodes per group (a
# tiny problem runs on a CPU build; only the default has a published result).
read -r -a args <<<"${GPP_ARGS:-512 2 32768 20}"
for ((r = 0; r < ${REPS:-5}; r++)); do
    KOKKOS_TOOLS_LIBS="$out/libkernel_timer.so" "$out/gpp" "${args[@]}" 2>&1 | tee -a "$log"
done
