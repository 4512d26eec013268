#!/usr/bin/env bash
# Call 12 (H100 80GB HBM3, 2026-11-26 ~10:30 UTC). Carried: .gl .ab.
# skylight-final: the build of 068c2a6 (the blocked order as default).
gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup
R=$OUT/../r12; mkdir -p $R
.ab/skylight-final run all --quiet --json $R/all.json     # 271 of 271 cases validated, 139 s
tar czf $OUT/r12.tgz -C $R .
