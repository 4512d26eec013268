mkdir -p $OUT/../c9
X=.ab/skylight-exp
for r in 1 2; do
for h in 0 1; do
  if [ $h = 1 ]; then export SKYLIGHT_HITS1=1; else unset SKYLIGHT_HITS1; fi
  $X run comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f64 --set stage=64,96,128,192 --samples 10 --quiet --json $OUT/../c9/comd-h$h-r$r.json | grep "^comd" | awk -v h=$h '{print "hits1=" h, $2,$3,$4,$5}'
done
for w in 1 1024 2048 4096; do
  SKYLIGHT_PADW=$w $X run snap --kernel compute_U --set twojmax=8,14 --precision f64 --wg 256 --samples 10 --quiet --json $OUT/../c9/snap-p$w-r$r.json | grep "^snap" | awk -v w=$w '{print "pad=" w, $2,$3,$4,$5}'
done
done
unset SKYLIGHT_HITS1
SKYLIGHT_HITS1=1 $X stats comd --size large --precision f64 --set variant=cell --layout aos --wg 128 --set stage=128 2>&1 | grep -A1 force_cell
$X stats comd --size large --precision f64 --set variant=cell --layout aos --wg 128 --set stage=128 2>&1 | grep -A1 force_cell
tar czf $OUT/c9.tgz -C $OUT/../c9 .
