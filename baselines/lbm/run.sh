#!/usr/bin/env bash
# Runs the Ludwig built by build.sh on Skylight's default lbm problem (a
# periodic 128^3 D3Q19 BGK box, 2000 steps; see ./input) and writes its
# standard output, which ends with Ludwig's timer table, to <logfile>.
#
#   run.sh <outdir of build.sh> <logfile>
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
exe=$(cd "${1:?usage: run.sh <outdir> <logfile>}" && pwd)/Ludwig.exe
log=${2:?usage: run.sh <outdir> <logfile>}
mkdir -p "$(dirname "$log")"
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")

# Ludwig reads ./input and takes no arguments; run in a scratch directory
# so nothing it might write lands in the repository.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$here/input" "$dir/input"
cd "$dir"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv || true
"$exe" 2>&1 | tee "$log"
