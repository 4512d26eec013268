#!/usr/bin/env bash
# Call 4 (H100 80GB HBM3, 2026-11-26 ~09:50 UTC). Carried: .gl .ab .baselines-bin.
# skylight-base: bac505d. skylight-new: bac505d + snap dE's two sums (the
# commit after bac505d).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r4; mkdir -p $R
scripts/ab $R/ab 3 "base=.ab/skylight-base new=.ab/skylight-new" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f32,f64 --wg 256 --samples 10"
baselines/device-run .ab/skylight-new snap
.ab/skylight-new table --native-only native-out/*.json > $R/table.txt
tar czf $OUT/r4.tgz -C $R .
