#!/usr/bin/env bash
# Two H200s: halos through the node's shared memory (GPU-written mailboxes) against MPI (SKYLIGHT_SHARED_HALOS=0), same call, beside the plain one-GPU runs.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d) NCCL_NVLS_ENABLE=0
D=$PWD/.device/skylight-mpi
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
mpirun --version | head -1 >> gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES -x SKYLIGHT_SHARED_HALOS -x RUST_LOG"
export RUST_LOG=skylight_core::scale=info
L="lbm --kernel fused --precision f32 --set steps=10"
$D run $L --size 512 --json lbm-base-f32-512.json > lbm-base-512.txt 2>&1
$M -np 2 $D run $L --size 512 --scaling strong --samples 20 --json lbm-strong-f32-shared-2.json > lbm-strong-shared.txt 2>&1
SKYLIGHT_SHARED_HALOS=0 $M -np 2 $D run $L --size 512 --scaling strong --samples 20 --json lbm-strong-f32-mpi-2.json > lbm-strong-mpi.txt 2>&1
$D run $L --size 384 --json lbm-base-f32-384.json > lbm-base-384.txt 2>&1
$M -np 2 $D run $L --size 384 --scaling weak --samples 20 --json lbm-weak-f32-shared-2.json > lbm-weak-shared.txt 2>&1
C="milc --size 64x128 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$D run $C --json milc-base-f32.json > milc-base.txt 2>&1
$M -np 2 $D run $C --scaling strong --samples 10 --json milc-strong-f32-shared-2.json > milc-strong-shared.txt 2>&1
SKYLIGHT_SHARED_HALOS=0 $M -np 2 $D run $C --scaling strong --samples 10 --json milc-strong-f32-mpi-2.json > milc-strong-mpi.txt 2>&1
$D scaling *.json > scaling.txt 2>&1
