#!/usr/bin/env bash
# Runs BabelStream on Skylight's default stream problem (2^25 elements) in
# f32 and f64, its classic kernels (copy, mul, add, triad, dot), 100 times,
# as CSV. Not nstream: with it in the set BabelStream's f32 dot sum overflows
# to inf and fails its own check (seen on the H100).
# Usage: run.sh OUTDIR LOG
set -euo pipefail
bin=$1/babelstream-cuda
: >"$2"
for prec in --float ""; do
    # shellcheck disable=SC2086
    "$bin" --arraysize 33554432 --numtimes 100 --csv $prec >>"$2"
done
