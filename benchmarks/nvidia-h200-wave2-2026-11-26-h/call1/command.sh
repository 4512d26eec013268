set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/base packed2=.ab/packed2" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --set stage=128,256,384" > $R/ab.log 2>&1
cp .ab/call1.sh $R/command.sh
tar -czf $OUT/r1.tgz -C $OUT/.. r1
