#!/usr/bin/env bash
# Call 5 (H100 80GB HBM3, 2026-11-26 ~10:00 UTC). Carried: .gl .ab .native.
# skylight-new: 9e00df9.
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r5; mkdir -p $R
baselines/device-run .ab/skylight-new stream
.ab/skylight-new table --native-only native-out/*.json > $R/stream-table.txt
.ab/skylight-new run stream --kernel copy,mul,add,triad,dot,nstream --precision f32,f64 --wg 64,128,256,512,1024 \
  --set epi=1,2 --set load=vector,real --samples 100 --quiet --json $R/stream-sweep.json
.ab/skylight-new run all --quiet --json $R/all.json     # 271 of 271 cases validated, 146 s
tar czf $OUT/r5.tgz -C $R .
