mkdir -p $OUT/../c15
for r in 1 2; do
for b in 0 1; do
  if [ $b = 1 ]; then export SKYLIGHT_BYPLACE=1; else unset SKYLIGHT_BYPLACE; fi
  .ab/skylight-exp run comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --set stage=0,192 --samples 10 --quiet --json $OUT/../c15/b$b-r$r.json | grep "^comd" | awk -v b=$b '{print "byplace=" b, $1, $2,$3,$4,$5}'
done
done
tar czf $OUT/c15.tgz -C $OUT/../c15 .
