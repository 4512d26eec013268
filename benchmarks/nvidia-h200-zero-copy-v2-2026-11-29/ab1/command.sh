#!/usr/bin/env bash
# One H200: lbm fused f32 L = 512 and milc CG 64^3 x 32, one MPI rank, old (fa29836) against new (zero-copy v2 + one boundary box), beside the plain run.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
D=$PWD/.device
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
$D/new run lbm --size 512 --kernel fused --precision f32 --json lbm-base.json > lbm-base.txt 2>&1
for round in 1 2; do
  for b in new old; do
    $M -np 1 $D/$b run lbm --size 512 --kernel fused --precision f32 --scaling strong --samples 20 --json lbm-$b-$round.json > lbm-$b-$round.txt 2>&1
  done
done
$D/new run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --json milc-base.json > milc-base.txt 2>&1
for b in new old; do
  $M -np 1 $D/$b run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --scaling strong --samples 5 --json milc-$b.json > milc-$b.txt 2>&1
done
