set -x
R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
.ab/s stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell,atom --wg 64,128,256 > $R/stats-comd.txt 2>&1
.ab/s stats comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128 --set stage=128,256,512 --json $R/stats-comd-stage.json > $R/stats-comd-stage.txt 2>&1
