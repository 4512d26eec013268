set -x
R=$OUT/../r7; mkdir -p $R
pack() { cp .ab/call7.sh $R/; tar -czf $OUT/r7.tgz -C $OUT/.. r7; }
trap pack EXIT
.ab/s stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=96,128,160,192,224,240,256,288,320,384 > $R/stats.txt 2>&1
.ab/s run comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=96,128,160,192,224,240,256,288,320,384 --samples 10 --json $R/stage.json > $R/stage.txt 2>&1
