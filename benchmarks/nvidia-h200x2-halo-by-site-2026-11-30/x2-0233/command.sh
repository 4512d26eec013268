#!/usr/bin/env bash
# Two H200s, one call: milc CG 64^3x128 f32 over 2 ranks through shared memory with the lead beside the planes' trip of 16 interior slices (the default), 8 and 4 (SKY_LEAD, an experiment knob in a build not committed: 51c7682, e77c8b5's code), beside the plain one-GPU run.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d) NCCL_NVLS_ENABLE=0
K=$PWD/.device/skylight-knobs
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x128 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$K run $C --json milc-base-f32.json > milc-base.txt 2>&1
$M -np 2 $K run $C --scaling strong --samples 10 --json lead16.json > lead16.txt 2>&1
for k in 8 4; do $M -np 2 -x SKY_LEAD=$k $K run $C --scaling strong --samples 10 --json lead$k.json > lead$k.txt 2>&1; done
