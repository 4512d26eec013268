mkdir -p $OUT/../c10
for r in 1 2; do
  .ab/skylight-new run comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 --set stage=128,256 --samples 10 --quiet --json $OUT/../c10/new-r$r.json | grep "^comd" | awk '{print "new", $2,$3,$4,$5}'
  for w in 3 4; do
  SKYLIGHT_SW=$w .ab/skylight-exp run comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 --set stage=128,256 --samples 10 --quiet --json $OUT/../c10/sw$w-r$r.json | grep "^comd" | awk -v w=$w '{print "sw=" w, $2,$3,$4,$5}'
  done
done
SKYLIGHT_SW=4 .ab/skylight-exp stats comd --size large --precision f32,f64 --set variant=cell --layout aos --wg 128 --set stage=128 2>&1 | grep -A1 force_cell
.ab/skylight-new run stream --kernel copy,mul,add,triad,dot --precision f32,f64 --wg 128,256,512,1024 --set epi=1 --samples 100 --quiet --json $OUT/../c10/stream.json | grep "^stream" | awk '{print $1,$2,$3,$4,$5,$7}'
tar czf $OUT/c10.tgz -C $OUT/../c10 .
