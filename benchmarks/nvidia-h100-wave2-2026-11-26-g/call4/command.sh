set -x
R=$OUT/../r4; mkdir -p $R
scripts/ab $R/ab 2 "coarse2=.ab/coarse2 final=.ab/final" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --samples 10" \
  "comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" > $R/ab.log 2>&1
.ab/final run comd --precision f32,f64,df64 --json $R/comd-all.json > $R/comd-all.txt 2>&1
baselines/device-run .ab/final comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call4.sh $R/command.sh
tar -czf $OUT/r4.tgz -C $OUT/.. r4
