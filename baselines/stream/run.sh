#!/usr/bin/env bash
# Runs BabelStream on Skylight's default stream problem (2^25 elements) in
# f32 and f64, every kernel (nstream too), 100 times, as CSV.
# Usage: run.sh OUTDIR LOG
set -euo pipefail
bin=$1/babelstream-cuda
: >"$2"
for prec in --float ""; do
    # shellcheck disable=SC2086
    "$bin" --arraysize 33554432 --numtimes 100 --only All --csv $prec >>"$2"
done
