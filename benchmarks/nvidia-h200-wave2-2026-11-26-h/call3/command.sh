set -x
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/base far=.ab/far" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=128,256" > $R/ab.log 2>&1
cp .ab/call3.sh $R/command.sh
tar -czf $OUT/r3.tgz -C $OUT/.. r3
