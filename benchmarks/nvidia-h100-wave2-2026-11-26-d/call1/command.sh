#!/usr/bin/env bash
# Call 1 (H100 80GB HBM3, 2026-11-26 ~09:05 UTC). Carried: .gl .ab .native.
# skylight-base: 7c0b9da. skylight-new: 7c0b9da + stream's loads before
# stores (not kept) + milc's tiled order through SKYLIGHT_MILC_TILE (an
# experiment switch, made the tile-z / tile-t parameters in 8408bf3).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r1; mkdir -p $R
baselines/device-run .ab/skylight-base stream
scripts/ab $R/ab 2 "base=.ab/skylight-base new=.ab/skylight-new" \
  "stream --kernel copy,mul,add,triad,dot --precision f32,f64 --wg 256,1024 --set epi=1,2,4 --samples 100"
for T in 1x1 2x2 4x4 8x8 2x8 8x2 4x16; do
  SKYLIGHT_MILC_TILE=$T .ab/skylight-new run milc --kernel dslash-fused --layout aosoa-32,soa --precision f32,f64 --wg 128,256 --quiet --json $R/milc-$T.json
done
.ab/skylight-new run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
tar czf $OUT/r1.tgz -C $R .
