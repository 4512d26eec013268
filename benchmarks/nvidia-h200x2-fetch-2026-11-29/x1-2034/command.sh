#!/usr/bin/env bash
# One H200, one call: the shared-memory halo path on one rank (its own neighbour) with this build and the one before (pack and beside pass in one encoder, unpack reading the inbox), milc CG 64^3x128 f32 and lbm fused L=512 f32 10 steps, beside the plain one-GPU runs.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x128 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
L="lbm --kernel fused --precision f32 --set steps=10 --size 512"
N=$OLDPWD/.device/skylight-mpi; O=$OLDPWD/.device/skylight-old
$N run $C --samples 10 --json milc-base.json > milc-base.txt 2>&1
for B in new old; do
  X=$N; [ $B = old ] && X=$O
  $M -np 1 $X run $C --samples 10 --halos shared --json milc-1-shared-$B.json > milc-1-shared-$B.txt 2>&1
  $M -np 1 $X run $L --samples 20 --halos shared --json lbm-1-shared-$B.json > lbm-1-shared-$B.txt 2>&1
  $M -np 1 $X run $L --samples 20 --halos mpi --json lbm-1-mpi-$B.json > lbm-1-mpi-$B.txt 2>&1
done
$N run $L --samples 20 --json lbm-base.json > lbm-base.txt 2>&1
