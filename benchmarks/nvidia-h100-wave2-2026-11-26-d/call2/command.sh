#!/usr/bin/env bash
# Call 2 (H100 80GB HBM3, 2026-11-26 ~09:35 UTC). Carried: .gl .ab.
# skylight-new: 8408bf3's milc (tile parameters, then defaulting to 2 x 8)
# with comd's stage as x,y pairs and z behind SKYLIGHT_COMD_PAIRS (.ab/pairs
# sets it; not kept).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r2; mkdir -p $R
scripts/ab $R/ab 2 "base=.ab/skylight-new pairs=.ab/pairs" \
  "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
.ab/skylight-new run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
.ab/skylight-new run milc --kernel dslash-fused --layout aosoa-32,soa --set complex=split,pairs --precision f32,f64 --wg 256 --set tile-z=1,2,4 --set tile-t=1,2,4,8,16 --quiet --json $R/milc-tiles.json
.ab/skylight-new run milc --kernel cg --set operator=fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 256 --set tile-z=1,2 --set tile-t=1,8 --quiet --json $R/milc-cg.json
.ab/skylight-new run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad2.json
tar czf $OUT/r2.tgz -C $R .
