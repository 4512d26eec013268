#!/usr/bin/env bash
# Runs the port on Skylight's `comd` problems: --size default (20^3 unit
# cells, 32,000 atoms) and --size large (80^3, 2,048,000 atoms), f32 and
# f64, kernels force and step, mappings atom and cell, blocks of 64, 128 and
# 256 threads, then the small problem's cell mapping with 20 launches a
# sample. The log holds the raw output (the skylight-native lines).
# usage: run.sh <outdir> <logfile>
set -euo pipefail
out=${1:?usage: run.sh <outdir> <logfile>}
log=${2:?usage: run.sh <outdir> <logfile>}
# OpenMP threads for the CPU reference: every core of the host.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
"$out/comd_port" --sizes 20,80 2>&1 | tee "$log"
# The short problem again as 20 back-to-back launches a sample, beside the
# recipe's Skylight cases of 20 runs a sample: a run there takes 30-60 us,
# of which a lone launch's start and drain are several percent (a Vulkan
# pass's more than a CUDA launch's).
"$out/comd_port" --sizes 20 --mappings cell --wgs 128,256 --runs-per-sample 20 2>&1 | tee -a "$log"
