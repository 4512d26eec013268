#!/usr/bin/env bash
# One H200, one call: milc CG on one rank's slab (64^3 x 64 as one MPI rank, its own inbox), build c0cdd21 (the code of 6e92c22) with experiment knobs in a build not committed: the middle run's slices (SKY_MID, default 8 of 62) and the trip's workgroups (SKY_HOST_GROUPS, default 8).
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
K=$PWD/.device/skylight-knobs
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x64 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12 --samples 10"
$M -np 1 $K run $C --json default.json > default.txt 2>&1
for m in 12 16 24; do $M -np 1 -x SKY_MID=$m $K run $C --json mid$m.json > mid$m.txt 2>&1; done
$M -np 1 -x SKY_HOST_GROUPS=4 $K run $C --json hg4.json > hg4.txt 2>&1
grep -h "ms per run" *.txt > split.txt
