#!/usr/bin/env bash
# One H200, one call: where a rank's kernels lose to the plain run on one GPU. lbm fused L=512 f32 10 steps and milc's one-pass D at 64^3x128 f32: the plain run, one MPI rank with the interior beside the halos (parts), and one MPI rank with --no-overlap (one dispatch over the padded field).
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
N=$PWD/.device/skylight-mpi
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
L="lbm --kernel fused --precision f32 --set steps=10 --size 512 --samples 10"
D="milc --size 64x128 --kernel dslash-fused --precision f32 --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
$N run $D --json milc-base.json > milc-base.txt 2>&1
$M -np 1 $N run $D --halos mpi --json milc-1.json > milc-1.txt 2>&1
$M -np 1 $N run $D --halos mpi --no-overlap --json milc-1-whole.json > milc-1-whole.txt 2>&1
$N run $L --json lbm-base.json > lbm-base.txt 2>&1
$M -np 1 $N run $L --halos mpi --json lbm-1.json > lbm-1.txt 2>&1
$M -np 1 $N run $L --halos mpi --no-overlap --json lbm-1-whole.json > lbm-1-whole.txt 2>&1
