set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final brick=.ab/brick" \
  "comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
scripts/ab $R/sweep 1 "brick=.ab/brick" \
  "comd --size large --kernel force --precision f32 --layout aos --set variant=cell --set brick=2 --wg 64,128,256 --set stage=128,256,384 --samples 10" \
  "comd --size large --kernel force --precision f64 --layout aos --set variant=cell --set brick=2 --wg 64,128,256 --set stage=128,192,288 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --set brick=2 --wg 128,256 --set stage=128,192 --samples 10" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --set brick=1,2 --wg 64,128,256 --set stage=0,256,384" > $R/sweep.log 2>&1
.ab/brick stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --set brick=1,2 --wg 128 > $R/stats.txt 2>&1
cp .ab/call1.sh $R/command.sh
tar -czf $OUT/r1.tgz -C $OUT/.. r1
