#!/usr/bin/env bash
# Two H200s, one call: lbm fused f32 L = 512 strong over 2 ranks, halos through MPI and through shared memory, pack and unpack an invocation a site (HEAD) against f8f983a, beside the plain one-GPU run.
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
L="lbm --size 512 --kernel fused --precision f32 --set steps=10"
$N run $L --json lbm-base-f32.json > lbm-base.txt 2>&1
for h in mpi shared; do
  $M -np 2 $N run $L --scaling strong --samples 20 --halos $h --json lbm-strong-$h.json > lbm-strong-$h.txt 2>&1
  $M -np 2 $O run $L --scaling strong --samples 20 --halos $h --json lbm-strong-$h-old.json > lbm-strong-$h-old.txt 2>&1
done
$N scaling lbm-base-f32.json lbm-strong-mpi.json lbm-strong-mpi-old.json lbm-strong-shared.json lbm-strong-shared-old.json > scaling.txt 2>&1
