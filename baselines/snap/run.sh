#!/usr/bin/env bash
# Runs TestSNAP on Skylight's default snap problem (2000 atoms, 2J = 8 and
# 14), appending its own output to <logfile> for `skylight native --code
# testsnap`.
#
#   run.sh <outdir> <logfile>
#
# <outdir> holds test_snap_2J8 and test_snap_2J14 (build.sh). TestSNAP times
# its force kernels over -ns force calls and prints the mean step time, so a
# first run of WARM_STEPS calls warms the GPU (and its clocks) and sizes -ns
# to about SECONDS_PER_RUN of kernels (at least MIN_STEPS); then REPS runs of
# that length are logged, one sample each. Env: TWOJS ("8 14"), REPS (3),
# SECONDS_PER_RUN (2), WARM_STEPS (5), MIN_STEPS (20).
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 <outdir> <logfile>" >&2; exit 2; }
out=$1
log=$2
reps=${REPS:-3}
: >"$log"
for j in ${TWOJS:-8 14}; do
    exe="$out/test_snap_2J$j"
    # The warm-up's output stays out of the log (not a sample) unless it fails.
    warm=$("$exe" -ns "${WARM_STEPS:-5}" 2>&1) || { echo "$warm" >>"$log"; exit 1; }
    step=$(awk '/^step time =/ {print $4}' <<<"$warm")
    [[ -n $step ]] || { echo "$warm" >>"$log"; echo "test_snap_2J$j printed no step time" >>"$log"; exit 1; }
    ns=$(awk -v s="$step" -v t="${SECONDS_PER_RUN:-2}" -v lo="${MIN_STEPS:-20}" \
        'BEGIN { n = int(t / s) + 1; if (n < lo) n = lo; if (n > 5000) n = 5000; print n }')
    echo "2J=$j: warm-up step time $step s, timing $reps runs of $ns steps" >&2
    for ((r = 0; r < reps; r++)); do
        "$exe" -ns "$ns" 2>&1 | tee -a "$log"
    done
done
