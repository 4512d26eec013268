#!/usr/bin/env bash
# Runs gpu-benches' L1 and L2 sweeps. Each prints one row per working set
# with its best rate over its repetitions. Usage: run.sh OUTDIR LOG
set -euo pipefail
: >"$2"
for prog in gpu-cache gpu-l2-cache; do
    echo "gpu-benches $prog" >>"$2"
    "$1/$prog" >>"$2"
done
