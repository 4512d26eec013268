#!/usr/bin/env bash
# Call 9 (H100 80GB HBM3, 2026-11-26 ~09:45 UTC). Carried: .gl .ab.
# skylight-block: 0d64974 with an experiment switch SKYLIGHT_MILC_BLOCK=
# "by,bz,bt,tt" replacing the one-pass operator's part_site by blocks of
# x rows x by y rows x bz z rows x bt t planes, tt t-blocks together (made
# the block-y/-z/-t and tile-t parameters in c349f7a).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r9; mkdir -p $R
A="milc --kernel dslash-fused --layout aosoa-16,aosoa-32 --set complex=pairs --precision f32,f64 --wg 128,256,512 --quiet"
.ab/skylight-block run $A --json $R/milc-tile.json          # the tile1x8 default of 8408bf3
for B in 1,1,1,8 2,2,2,4 2,2,1,8 4,2,1,8 4,1,2,4 8,1,1,8 2,1,1,8 4,1,1,8 2,2,2,2 2,2,4,2; do
  SKYLIGHT_MILC_BLOCK=$B .ab/skylight-block run $A --json $R/milc-$B.json
done
.ab/skylight-block run $A --json $R/milc-tile2.json
.ab/skylight-block run stream --kernel triad --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
tar czf $OUT/r9.tgz -C $R .
