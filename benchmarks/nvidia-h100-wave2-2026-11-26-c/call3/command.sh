# Device call 3 (H100). One build (f601540 plus two switches): YZERO (compute_Y's
# out-of-row u2 read as zero and multiplied, no branch around the products)
# and DEREMAKE (fused dE remakes its chain's U from the previous row instead
# of reading it); .ab/YZERO, .ab/DEREMAKE and .ab/BOTH set SKYLIGHT_<switch>=1.
mkdir -p $OUT/../c3
for b in skylight-exp YZERO DEREMAKE; do echo "== $b"; .ab/$b stats snap --precision f64,f32 --set twojmax=14 --set variant=fused --wg 256 2>&1 | grep -A1 "y_tiles\|de_chains"; done > $OUT/../c3/stats.txt
cat $OUT/../c3/stats.txt
tar czf $OUT/c3.tgz -C $OUT/../c3 .
scripts/ab $OUT/../ab3 2 "base=.ab/skylight-exp yz=.ab/YZERO dr=.ab/DEREMAKE both=.ab/BOTH" \
  "snap --kernel compute_Y,compute_dE,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 128,256 --samples 10" \
  "snap --kernel compute_Y,compute_dE,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 128,256 --samples 10"
