#!/usr/bin/env bash
# One H200, lbm fused f64 L = 512: the plain run and one MPI rank over 1 and 10 steps a run, new build (e05014a) and old (fa29836, 1 step), in one call.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
D=$PWD/.device
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
mpirun --version | head -1 >> gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
L="lbm --size 512 --kernel fused --precision f64"
for s in 1 10; do
  /usr/bin/time -f "%e s %M KB" $D/new run $L --set steps=$s --json lbm-base-$s.json > lbm-base-$s.txt 2>&1
  $M -np 1 $D/new run $L --set steps=$s --scaling strong --samples 10 --json lbm-one-$s.json > lbm-one-$s.txt 2>&1
done
$M -np 1 $D/old run $L --scaling strong --samples 10 --json lbm-old-1.json > lbm-old-1.txt 2>&1
