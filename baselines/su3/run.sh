#!/usr/bin/env bash
# Runs su3_bench on Skylight's default su3 problem (L = 32, MILC's site
# struct) in f32 and f64 with 64, 128 and 256 threads per block. su3_bench
# does not print its precision, so each run is preceded by the line the
# parser keys on. Usage: run.sh OUTDIR LOG
set -euo pipefail
: >"$2"
for prec in f32 f64; do
    for t in 64 128 256; do
        echo "su3_bench precision=$prec" >>"$2"
        # 2000 warm-ups (0.4-0.9 s of GPU work) before 2000 timed iterations,
        # so the SM clock has left idle before the timed loop starts.
        "$1/su3-$prec-cuda" -l 32 -i 2000 -w 2000 -t "$t" -v 1 >>"$2" 2>&1
    done
done
