#!/usr/bin/env bash
# One H200, one call: milc CG on one rank's slab (64^3 x 64 through its own inbox, the slab of two ranks of 64^3 x 128) against the plain run: build 887a72b (whole tiles, lookups), 6a53231 before, and 887a72b with experiment knobs (lead of 3 or 4 eighths, the interior as one box, 32 workgroups for the trips), and the MPI route.
set -u
tar -xJf .pack/device.tar.xz
. scripts/gpu-setup >/dev/null 2>&1
. scripts/mpi-setup >/dev/null 2>&1
export XDG_RUNTIME_DIR=$(mktemp -d)
N=$PWD/.device/skylight-mpi; O=$PWD/.device/skylight-old; K=$PWD/.device/skylight-knobs
mkdir -p $OUT/p && cd $OUT/p
trap 'cd $OUT && tar czf p.tgz p && rm -rf p' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > gpu.txt
M="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma -x PATH -x LD_LIBRARY_PATH -x OPAL_PREFIX -x PMIX_MCA_mca_base_component_path -x VK_DRIVER_FILES"
C="milc --size 64x64 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12 --samples 10"
$N run $C --json base.json > base.txt 2>&1
$M -np 1 $N run $C --json new.json > new.txt 2>&1
$M -np 1 $O run $C --json old.json > old.txt 2>&1
$M -np 1 -x SKY_LEAD=3 $K run $C --json lead3.json > lead3.txt 2>&1
$M -np 1 -x SKY_LEAD=4 $K run $C --json lead4.json > lead4.txt 2>&1
$M -np 1 -x SKY_ONE_BOX=1 $K run $C --json onebox.json > onebox.txt 2>&1
$M -np 1 -x SKY_HOST_GROUPS=32 $K run $C --json hg32.json > hg32.txt 2>&1
$M -np 1 $N run $C --halos mpi --json mpi.json > mpi.txt 2>&1
