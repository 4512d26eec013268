mkdir -p $OUT/../c11
for r in 1 2; do
for u in 32 64 128 160 256; do
  SKYLIGHT_USUM=$u .ab/skylight-exp run snap --kernel compute_U,force --set twojmax=8,14 --precision f64 --wg 256 --samples 10 --quiet --json $OUT/../c11/u$u-r$r.json | grep "^snap" | awk -v u=$u '{print "usum=" u, $1, $2,$3,$4,$5}'
done
done
SKYLIGHT_USUM=64 .ab/skylight-exp stats snap --precision f64 --set twojmax=14 --set variant=fused --wg 256 2>&1 | grep -A1 u_walks
tar czf $OUT/c11.tgz -C $OUT/../c11 .
