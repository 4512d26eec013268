mkdir -p $OUT/../c13
for r in 1 2; do
for w in 1 2048 4096 6144 8192; do
  SKYLIGHT_PADW=$w .ab/skylight-exp run snap --kernel compute_dE,force --set twojmax=8,14 --set variant=fused --precision f64 --wg 128,256 --samples 10 --quiet --json $OUT/../c13/p$w-r$r.json | grep "^snap" | awk -v w=$w '{print "pad=" w, $1, $2,$3,$4,$5}'
done
done
tar czf $OUT/c13.tgz -C $OUT/../c13 .
