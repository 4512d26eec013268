# Device call 1 (H100). skylight-exp = branch de-diagonal-experiment (fused dE by
# diagonals, U and dU rows in registers); .ab/chains sets SKYLIGHT_DE_CHAINS=1 (the old walk). Not kept.
mkdir -p $OUT/../c1
.ab/skylight-exp stats snap --precision f64,f32 --set twojmax=14 --set variant=fused --wg 128 2>&1 | grep -B1 -A2 "de_\|u_walks" > $OUT/../c1/stats-diag.txt
.ab/chains stats snap --precision f64,f32 --set twojmax=14 --set variant=fused --wg 128 2>&1 | grep -B1 -A2 "de_\|u_walks" > $OUT/../c1/stats-chains.txt
cat $OUT/../c1/stats-*.txt | head -60
tar czf $OUT/c1.tgz -C $OUT/../c1 .
scripts/ab $OUT/../ab1 2 "chains=.ab/chains diag=.ab/skylight-exp" \
  "snap --kernel compute_U,compute_dE,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 64,128,256 --samples 10" \
  "snap --kernel compute_U,compute_dE,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 64,128,256 --samples 10"
baselines/device-run .ab/skylight-exp snap
.ab/skylight-exp table --native-only native-out/*.json 2>&1 | tee $OUT/../c1/table.txt | grep -i snap
tar czf $OUT/c1.tgz -C $OUT/../c1 .
