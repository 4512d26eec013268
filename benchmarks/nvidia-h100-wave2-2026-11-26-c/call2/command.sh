# Device call 2 (H100). Builds: skylight-old = f601540; skylight-span = the
# y_span experiment (SKYLIGHT_YSPAN=1..4 elements of a row per compute_Y
# invocation, default 2; wrappers .ab/spanN set it). Not kept.
mkdir -p $OUT/../c2
for s in 1 2 3 4; do echo "span $s"; SKYLIGHT_YSPAN=$s .ab/skylight-span stats snap --precision f64,f32 --set twojmax=14 --set variant=fused --wg 256 2>&1 | grep -A1 "y_tiles"; done > $OUT/../c2/stats.txt
cat $OUT/../c2/stats.txt
tar czf $OUT/c2.tgz -C $OUT/../c2 .
scripts/ab $OUT/../ab2 2 "old=.ab/skylight-old s2=.ab/skylight-span s1=.ab/span1 s3=.ab/span3 s4=.ab/span4" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 128,256 --samples 10" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 128,256 --samples 10"
