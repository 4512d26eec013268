set -x
R=$OUT/../r5; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "far=.ab/far lean=.ab/lean" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 256" > $R/ab.log 2>&1
cp .ab/call5.sh $R/command.sh
tar -czf $OUT/r5.tgz -C $OUT/.. r5
