#!/usr/bin/env bash
# One H200, one call: milc CG on one rank's slab of a four-rank split (64^3 x 32 as one MPI rank, its own inbox; interior 30 slices), build 51c7682 (the code of e77c8b5) with an experiment knob in a build not committed: the lead's slices beside the planes' trip (SKY_LEAD; 8 by default), and the plain one-GPU run of 64^3 x 32.
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
C="milc --size 64x32 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$K run $C --json plain.json > plain.txt 2>&1
$M -np 1 $K run $C --samples 10 --json lead8.json > lead8.txt 2>&1
for k in 12 16 20; do $M -np 1 -x SKY_LEAD=$k $K run $C --samples 10 --json lead$k.json > lead$k.txt 2>&1; done
