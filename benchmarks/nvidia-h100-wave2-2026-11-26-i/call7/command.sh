set -x
R=$OUT/../r7; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/wg 2 "final=.ab/final" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 80,96,112,128 --set stage=0,512" > $R/wg.log 2>&1
baselines/device-run .ab/final comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call7.sh $R/command.sh
tar -czf $OUT/r7.tgz -C $OUT/.. r7
