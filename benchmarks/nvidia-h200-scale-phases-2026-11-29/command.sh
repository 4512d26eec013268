#!/usr/bin/env bash
# One H200: where a one-rank run's time goes (lbm L = 512, milc 64^3 x 32), beside the plain run.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
S=$PWD/.device/skylight-mpi
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
mpirun --version | head -1 >> gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
for prec in f32 f64; do
  $S run lbm --size 512 --kernel fused --precision $prec --json lbm-base-$prec.json > lbm-base-$prec.txt 2>&1
  $M -np 1 $S run lbm --size 512 --kernel fused --precision $prec --scaling strong --samples 20 --json lbm-one-$prec.json > lbm-one-$prec.txt 2>&1
  $M -np 1 $S run lbm --size 512 --kernel fused --precision $prec --scaling strong --no-overlap --samples 20 --json lbm-one-noov-$prec.json > lbm-one-noov-$prec.txt 2>&1
done
$S run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --json milc-base-f32.json > milc-base-f32.txt 2>&1
$M -np 1 $S run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --scaling strong --samples 5 --json milc-one-f32.json > milc-one-f32.txt 2>&1
