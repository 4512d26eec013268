#!/usr/bin/env bash
# Call 6 (H100 80GB HBM3, 2026-11-26 ~09:35 UTC). Carried: .gl .ab.
# skylight-base: bac505d; skylight-new: 9e00df9 with DE_REMAKE_U set by
# SKYLIGHT_REMAKE (.ab/remake sets 1, .ab/read 0; the switch not kept).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r6; mkdir -p $R
for b in base new; do
  .ab/skylight-$b stats snap --kernel compute_dE --set twojmax=8,14 --precision f32,f64 --wg 256 > $R/stats-snap-$b.txt
done
.ab/skylight-new stats milc --kernel dslash-fused --precision f32,f64 --layout aosoa-32 --set complex=pairs --wg 256 > $R/stats-milc.txt
.ab/skylight-new stats comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 > $R/stats-comd.txt
scripts/ab $R/ab 3 "remake=.ab/remake read=.ab/read" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f32,f64 --wg 256 --samples 10"
tar czf $OUT/r6.tgz -C $R .
