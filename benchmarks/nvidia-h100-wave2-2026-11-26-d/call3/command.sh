#!/usr/bin/env bash
# Call 3 (H100 80GB HBM3, 2026-11-26 ~09:25 UTC). Carried: .gl .ab .native.
# skylight-new: 8408bf3 (milc's tile, default 1 x 8) with comd's stage as
# padded vec4 places behind SKYLIGHT_COMD_VEC4 (.ab/vec4 sets it; not kept).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r3; mkdir -p $R
scripts/ab $R/ab 2 "base=.ab/skylight-new vec4=.ab/vec4" \
  "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
baselines/device-run .ab/skylight-new milc su3
.ab/skylight-new table --native-only native-out/*.json > $R/table.txt
.ab/skylight-new run stream --kernel triad,copy --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
tar czf $OUT/r3.tgz -C $R .
