#!/usr/bin/env bash
# Call 10 (H100 80GB HBM3, 2026-11-26 ~09:50 UTC). Carried: .gl .ab.
# skylight-order: c349f7a (block-y, block-z, block-t, tile-t; default 2, 2, 2, 4).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r10; mkdir -p $R
.ab/skylight-order run stream --kernel triad --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
.ab/skylight-order run milc --kernel dslash-fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 512,1024 \
  --set block-y=2,4 --set block-z=2,4 --set block-t=1,2,4 --set tile-t=4,8 --quiet --json $R/milc-orders.json
.ab/skylight-order run milc --kernel dslash-fused --layout aosoa-16,aosoa-32 --set complex=pairs --precision f32,f64 --wg 256,512 \
  --set block-y=1 --set block-z=1 --set block-t=1 --set tile-t=1,8 --quiet --json $R/milc-storage.json
.ab/skylight-order run milc --kernel cg --set operator=fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 512 \
  --set block-y=1 --set block-z=1 --set block-t=1 --set tile-t=1,8 --quiet --json $R/milc-cg.json
.ab/skylight-order run milc --kernel cg --set operator=fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 512 \
  --quiet --json $R/milc-cg-default.json
tar czf $OUT/r10.tgz -C $R .
