#!/usr/bin/env bash
# Runs the milc port on Skylight's default case (L=32, T=64: 2^21 sites; f32
# and f64; D and CG; the recipe's blocks, orders and link forms), then D with
# 20 launches a sample, and writes its output to <logfile>.
# usage: run.sh <outdir> <logfile>   (outdir as given to build.sh)
# Extra arguments after the two go to the port (e.g. --kernels dslash).
set -euo pipefail
out=${1:?usage: run.sh <outdir> <logfile>}
log=${2:?usage: run.sh <outdir> <logfile>}
shift 2
# The port exits non-zero on a CUDA error or a failed check; pipefail keeps
# that status through tee, after the lines are in the log.
"$out/milc" "$@" 2>&1 | tee "$log"
# D again as 20 back-to-back launches a sample, beside the recipe's Skylight
# cases of 20 runs a sample (a lone launch's start and drain, a Vulkan
# pass's more than a CUDA launch's, are up to 1.5% of D's 0.4-1 ms).
"$out/milc" "$@" --kernels dslash --runs-per-sample 20 2>&1 | tee -a "$log"
