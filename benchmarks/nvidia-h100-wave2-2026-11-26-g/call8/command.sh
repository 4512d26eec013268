set -x
R=$OUT/../r8; mkdir -p $R
scripts/ab $R/ab 3 "fused=.ab/fused nomax=.ab/nomax" \
  "comd --size large --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
cp .ab/call8.sh $R/command.sh
tar -czf $OUT/r8.tgz -C $OUT/.. r8
