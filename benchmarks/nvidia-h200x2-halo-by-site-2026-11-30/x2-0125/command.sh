#!/usr/bin/env bash
# Two H200s, one call: milc CG 64^3x128 f32 over 2 ranks through shared memory, pack and unpack an invocation a site (HEAD, baca7fc on) against f8f983a, beside the plain one-GPU run.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d) NCCL_NVLS_ENABLE=0
N=$PWD/.device/skylight-mpi
O=$PWD/.device/skylight-old
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
mpirun --version | head -1 >> gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x128 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$N run $C --json milc-base-f32.json > milc-base.txt 2>&1
$M -np 2 $N run $C --scaling strong --samples 10 --json milc-strong-f32-2.json > milc-strong.txt 2>&1
$M -np 2 $O run $C --scaling strong --samples 10 --json milc-strong-f32-2-old.json > milc-strong-old.txt 2>&1
$M -np 2 $N run $C --scaling strong --samples 10 --json milc-strong-f32-2-again.json > milc-strong-again.txt 2>&1
$N scaling milc-base-f32.json milc-strong-f32-2.json > scaling.txt 2>&1
$N scaling milc-base-f32.json milc-strong-f32-2-old.json milc-strong-f32-2-again.json >> scaling.txt 2>&1
