set -x
R=$OUT/../r10; mkdir -p $R
scripts/ab $R/ab 3 "nomax=.ab/nomax spread=.ab/spread" \
  "comd --size large --kernel step,redistribute --precision f32,f64 --layout aos,soa --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128,256" > $R/ab.log 2>&1
cp .ab/call10.sh $R/command.sh
tar -czf $OUT/r10.tgz -C $OUT/.. r10
