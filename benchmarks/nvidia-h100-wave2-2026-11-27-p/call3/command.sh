set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh $R/; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
.ab/d run comd --size large --kernel force --precision f32,f64 --layout aos4,aos --set variant=direct,cell --wg 128 --samples 20 > $R/aos4.txt 2>&1
.ab/d stats comd --size large --kernel force --precision f32,f64 --layout aos4 --set variant=direct,cell --wg 128 > $R/stats.txt 2>&1
