#!/usr/bin/env bash
# What each call ran on nvidia-h200-x2 (carry .pack, .gl, .mpi;
# .pack/device.tar.xz holds .device/skylight-mpi, the release CLI built with
# the mpi feature, which runs plain cases too; scripts/device-prepare).
# 2026-11-29 17:23 UTC, build 2af4b42: lbm f32 (lbm-*-f32-*)
cp .device/skylight-mpi .device/skylight
RANKS="2 1" PRECISIONS=f32 BASE_KERNELS=fused RUN_ARGS="--set steps=10" \
    scripts/scale-bench 512 384 fused "strong weak" lbm overlap
# 2026-11-29 18:00 UTC, build 53fd2f2: lbm f64 strong (mpirun flags as
# scale-bench's)
L="lbm --kernel fused --precision f64 --set steps=10 --size 512"
.device/skylight-mpi run $L --json lbm-base-f64-512.json
mpirun -np 2 .device/skylight-mpi run $L --scaling strong --samples 20 --json lbm-strong-f64-overlap-2.json
# 2026-11-30 01:25 UTC, build 6e92c22: milc's CG
C="milc --size 64x128 --kernel cg --precision f32 --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
.device/skylight-mpi run $C --json milc-base-f32-64x128.json
mpirun -np 2 .device/skylight-mpi run $C --scaling strong --samples 10 --json milc-strong-f32-shared-2.json
# 2026-11-30 01:44 UTC, build 6e92c22: milc's CG, weak scaling in f32 and strong in f64
C="milc --kernel cg --set operator=fused --set layout=aosoa-32 --set wg=512 --set complex=pairs --set reconstruct=12"
.device/skylight-mpi run $C --size 64x64 --precision f32 --json milc-base-f32-64x64.json
mpirun -np 2 .device/skylight-mpi run $C --size 64x64 --precision f32 --scaling weak --samples 10 --json milc-weak-f32-shared-2.json
.device/skylight-mpi run $C --size 64x128 --precision f64 --json milc-base-f64-64x128.json
mpirun -np 2 .device/skylight-mpi run $C --size 64x128 --precision f64 --scaling strong --samples 10 --json milc-strong-f64-shared-2.json
# 2026-11-29 19:18 UTC, build 3ec767c: lbm f64 weak (lbm-base-f64-384, lbm-weak-f64-*)
cp .device/skylight-mpi .device/skylight
RANKS="2 1" PRECISIONS=f64 BASE_KERNELS=fused RUN_ARGS="--set steps=10" \
    scripts/scale-bench 512 384 fused weak lbm overlap
