#!/usr/bin/env bash
# Call 11 (H100 80GB HBM3, 2026-11-26 ~10:00 UTC). Carried: .gl .ab.
# skylight-order: c349f7a; the recipe as ea2e0e3 (wg 128 and 512).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r11; mkdir -p $R
baselines/device-run .ab/skylight-order milc
.ab/skylight-order table --native-only native-out/*.json > $R/table.txt
.ab/skylight-order run stream --kernel triad --precision f32,f64 --wg 256 --set epi=1 --quiet --json $R/triad.json
tar czf $OUT/r11.tgz -C $R .
