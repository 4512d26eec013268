mkdir -p $OUT/../c14
for r in 1 2; do
for sp in 1 2 3 4 8; do
  SKYLIGHT_SPAN=$sp .ab/skylight-exp run snap --kernel compute_dE,force --set twojmax=8,14 --set variant=fused --precision f64,f32 --wg 128,256,512 --samples 10 --quiet --json $OUT/../c14/s$sp-r$r.json | grep "^snap" | awk -v sp=$sp '{print "span=" sp, $1, $2,$3,$4,$5}'
done
done
for sp in 1 2 4; do SKYLIGHT_SPAN=$sp .ab/skylight-exp stats snap --precision f64 --set twojmax=14 --set variant=fused --wg 256 2>&1 | grep -A1 de_chains; done
tar czf $OUT/c14.tgz -C $OUT/../c14 .
