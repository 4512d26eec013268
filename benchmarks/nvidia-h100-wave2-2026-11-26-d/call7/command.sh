#!/usr/bin/env bash
# Call 7 (H100 80GB HBM3, 2026-11-26 ~09:45 UTC). Carried: .gl .ab.
# skylight-head: 9e00df9; skylight-sink: 9e00df9 with the walk's su and sf
# read after the walk instead of before it (not kept).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r7; mkdir -p $R
.ab/skylight-sink stats snap --kernel compute_dE --set twojmax=8,14 --precision f32,f64 --wg 256 > $R/stats-snap-sink.txt
scripts/ab $R/ab 3 "head=.ab/skylight-head sink=.ab/skylight-sink" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f32,f64 --wg 128,256,512 --samples 10"
tar czf $OUT/r7.tgz -C $R .
