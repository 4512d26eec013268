#!/usr/bin/env bash
# One H200, one call: milc CG on one rank's slab (64^3 x 64, its own inbox): what the planes' trip beside the lead costs the interior: build 887a72b, and with knobs (the trip in a pass of its own; copy workgroups of 64 invocations; 8 or 64 workgroups).
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
N=$PWD/.device/skylight-mpi; K=$PWD/.device/skylight-knobs
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x64 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12 --samples 10"
$M -np 1 $N run $C --json new.json > new.txt 2>&1
$M -np 1 -x SKY_TRIP_ALONE=1 $K run $C --json alone.json > alone.txt 2>&1
$M -np 1 -x SKY_HOST_WG=64 $K run $C --json wg64.json > wg64.txt 2>&1
$M -np 1 -x SKY_HOST_GROUPS=8 $K run $C --json hg8.json > hg8.txt 2>&1
$M -np 1 -x SKY_HOST_WG=64 -x SKY_HOST_GROUPS=64 $K run $C --json wg64hg64.json > wg64hg64.txt 2>&1
