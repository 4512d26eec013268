#!/usr/bin/env bash
# What each call ran on the lent GPU machines (carry .pack, .gl, .mpi;
# .pack/device.tar.xz holds .device/ from `scripts/device-prepare`, the
# release CLI built with the mpi feature, which runs plain cases too).
# x2/: nvidia-h200-x2, build ad6e56a (2026-11-28 15:22 UTC)
RANKS="1 2" PRECISIONS="f32 f64" BASE_KERNELS=fused,step \
    scripts/scale-bench 512 384 fused "strong weak" lbm overlap
# x2-call3/: nvidia-h200-x2, build fadfe2e (14:59 UTC), one call: L = 128,
# then the same script's one-GPU bases at L = 384 and 512 (its scaling runs
# of that call predate the direct receive and are not kept)
.device/skylight run lbm --size 128 --kernel fused,step --precision f32 --json lbm-base-f32-128.json
RANKS="1 2" PRECISIONS=f32 BASE_KERNELS=fused,step \
    scripts/scale-bench 512 384 fused "strong weak" lbm overlap
# x4/: nvidia-h200-x4, build ad6e56a (15:28 UTC)
RANKS="1 2 4" PRECISIONS=f32 BASE_KERNELS=fused \
    scripts/scale-bench 512 384 fused "strong weak" lbm overlap
# x2-mpi-transports/: nvidia-h200-x2, build fadfe2e (15:08 UTC), 2 ranks,
# strong L = 512 fused: Open MPI's default, then ob1 over shared memory
# (vader) without and with CMA single copy, then f64 (default transport)
# beside its one-GPU base.
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2)
"${mpi[@]}" .device/skylight-mpi run lbm --size 512 --kernel fused --precision f32 --samples 20 --json default.json
"${mpi[@]}" --mca pml ob1 --mca btl self,vader .device/skylight-mpi run lbm --size 512 --kernel fused --precision f32 --samples 20 --json ob1-vader.json
"${mpi[@]}" --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma \
    .device/skylight-mpi run lbm --size 512 --kernel fused --precision f32 --samples 20 --json ob1-vader-cma.json
.device/skylight-mpi run lbm --size 512 --kernel fused --precision f64 --json base-f64-512.json
"${mpi[@]}" .device/skylight-mpi run lbm --size 512 --kernel fused --precision f64 --samples 20 --json f64.json
