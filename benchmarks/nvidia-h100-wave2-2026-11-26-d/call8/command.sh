#!/usr/bin/env bash
# Call 8 (H100 80GB HBM3, 2026-11-26 ~09:50 UTC). Carried: .gl .ab.
# skylight-head: 9e00df9 (milc's kernels as 8408bf3).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r8; mkdir -p $R
.ab/skylight-head run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
.ab/skylight-head run milc --kernel dslash-fused --layout aosoa-16,aosoa-32,soa --set complex=pairs --precision f32,f64 \
  --wg 64,128,256,512 --set tile-t=4,8 --set vvl=1,2 --quiet --json $R/milc.json
.ab/skylight-head run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad2.json
tar czf $OUT/r8.tgz -C $R .
