mkdir -p $OUT/../c3
for r in 1 2; do for w in 1 2176 4352 8704; do
  SKYLIGHT_PADW=$w .ab/skylight-pad run comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10 --quiet --json $OUT/../c3/p$w-r$r.json | grep "^comd" | awk -v w=$w '{print "pad", w, $2, $3, $4, $5}'
done; done
SKYLIGHT_PADW=8704 .ab/skylight-pad stats comd --size small --precision f32,f64 --set variant=cell --layout aos --wg 128 2>&1 | grep -A1 force_cell
tar czf $OUT/c3.tgz -C $OUT/../c3 .
