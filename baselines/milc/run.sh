#!/usr/bin/env bash
# Runs the milc port on Skylight's default case (L=32, T=64: 2^21 sites; f32
# and f64; D and CG; blocks 64, 128, 256) and writes its output to <logfile>.
# usage: run.sh <outdir> <logfile>   (outdir as given to build.sh)
# Extra arguments after the two go to the port (e.g. --kernels dslash).
set -euo pipefail
out=${1:?usage: run.sh <outdir> <logfile>}
log=${2:?usage: run.sh <outdir> <logfile>}
shift 2
# The port exits non-zero on a CUDA error or a failed check; pipefail keeps
# that status through tee, after the lines are in the log.
"$out/milc" "$@" 2>&1 | tee "$log"
