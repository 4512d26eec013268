set -x
R=$OUT/../r9; mkdir -p $R
scripts/ab $R/ab 3 "nomax=.ab/nomax sgbin=.ab/sgbin" \
  "comd --size large --kernel step,redistribute --precision f32,f64 --layout aos,soa --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
cp .ab/call9.sh $R/command.sh
tar -czf $OUT/r9.tgz -C $OUT/.. r9
