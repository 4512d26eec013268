set -x
R=$OUT/../r10; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/base final=.ab/mixed" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
baselines/device-run .ab/mixed comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call10.sh $R/command.sh
tar -czf $OUT/r10.tgz -C $OUT/.. r10
