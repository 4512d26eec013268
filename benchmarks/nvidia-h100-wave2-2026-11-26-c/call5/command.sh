# Device call 5 (H100). skylight-exp = b3506fe plus switches: SKYLIGHT_SKIP_STAIR (diagnostic, invalid: dE chains skip their staircase),
# SKYLIGHT_DEWG (de_chains' workgroup size apart from --wg), SKYLIGHT_ALWAYS_TWO (compute_Y's second product taken in one-element slots too). None kept.
mkdir -p $OUT/../c5
for r in 1 2; do for b in skylight-exp skip; do
  .ab/$b run snap --kernel compute_dE --set twojmax=8,14 --precision f64,f32 --set variant=fused --wg 128,256 --samples 10 --quiet | grep "^snap" | awk -v b=$b '{print b, $1,$2,$3,$4,$5,$10}'
done; done | tee $OUT/../c5/skip.txt
tar czf $OUT/c5.tgz -C $OUT/../c5 .
scripts/ab $OUT/../ab5 2 "base=.ab/skylight-exp dewg32=.ab/dewg32 dewg64=.ab/dewg64 dewg128=.ab/dewg128" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 256 --samples 10"
scripts/ab $OUT/../ab5y 2 "base=.ab/skylight-exp two=.ab/two" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 256 --samples 10"
