#!/usr/bin/env bash
# One H200, one MPI rank: halos received into host memory and copied into the mapped upload buffer by every core (inbox) against MPI receiving straight into it (new, e05014a); milc CG 64^3 x 32 f32 and lbm fused f32 L = 512.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
D=$PWD/.device
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nproc > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
i=0
for b in inbox new inbox; do
  i=$((i+1))
  $M -np 1 $D/$b run milc --size 64x32 --kernel cg --set operator=fused --precision f32 --scaling strong --samples 5 --json milc-$b-$i.json > milc-$b-$i.txt 2>&1
done
for b in inbox new; do
  $M -np 1 $D/$b run lbm --size 512 --kernel fused --precision f32 --scaling strong --samples 10 --json lbm-$b.json > lbm-$b.txt 2>&1
done
