#!/usr/bin/env bash
# One H200, one call: milc's one-pass D at 64^3 x 128 f32 over the dispatch order's t blocks and tiles (the rank's parts cut tile 4 to 2), and at T = 130 and 132 (a padded extent, and one whose tile is not cut).
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
N=$PWD/.device/skylight-mpi
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
D="milc --kernel dslash-fused --precision f32 --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$N run $D --size 64x128 --set block-t=1,2,4 --set tile-t=1,2,4,8,16 --json d128.json > d128.txt 2>&1
$N run $D --size 64x132 --set tile-t=2,4 --json d132.json > d132.txt 2>&1
$N run $D --size 64x130 --json d130.json > d130.txt 2>&1
