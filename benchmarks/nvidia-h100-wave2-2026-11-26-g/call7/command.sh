set -x
R=$OUT/../r7; mkdir -p $R
scripts/ab $R/ab 2 "refac=.ab/refac fused=.ab/fused" \
  "comd --size large --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel step,redistribute --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" > $R/ab.log 2>&1
baselines/device-run .ab/fused comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call7.sh $R/command.sh
tar -czf $OUT/r7.tgz -C $OUT/.. r7
