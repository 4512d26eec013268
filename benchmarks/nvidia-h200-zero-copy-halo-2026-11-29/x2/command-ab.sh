#!/usr/bin/env bash
# Two H200s, 2 ranks, lbm fused f32 L = 512: pack + copy (old, 06a1e25) and zero-copy pack beside a lead slice (new, f3a0b83), in turn.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
D=$PWD/.device
cd $OUT
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
for b in new old; do
  $M -np 2 $D/$b run lbm --size 512 --kernel fused --precision f32 --scaling strong --samples 20 --json two-$b.json > two-$b.txt 2>&1
done
