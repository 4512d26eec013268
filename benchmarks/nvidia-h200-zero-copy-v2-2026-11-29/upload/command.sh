#!/usr/bin/env bash
# One H200: lbm fused f32 L = 512, 10 steps a run (whole check), one MPI rank, old (fa29836) against new, beside the plain run; then 1 step new and newb (upload without STORAGE, copied up); milc CG old, new, newb.
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
L="lbm --size 512 --kernel fused --precision f32"
/usr/bin/time -f "%e s %M KB" $D/new run $L --set steps=10 --set check=whole --json lbm-base-10.json > lbm-base-10.txt 2>&1
for b in new old; do
  $M -np 1 $D/$b run $L --set steps=10 --set check=whole --scaling strong --samples 10 --json lbm-$b-10.json > lbm-$b-10.txt 2>&1
done
for b in newb new; do
  $M -np 1 $D/$b run $L --scaling strong --samples 20 --json lbm-$b-1.json > lbm-$b-1.txt 2>&1
done
for b in newb old new; do
  $M -np 1 $D/$b run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --scaling strong --samples 5 --json milc-$b-3.json > milc-$b-3.txt 2>&1
done
