set -x
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final v4=.ab/v4 v4d=.ab/v4d" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
scripts/ab $R/stage 1 "v4=.ab/v4" \
  "comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128,256 --set stage=128,192,256,384" \
  "comd --size default --kernel force --precision f32 --layout aos --set variant=cell --wg 128,256 --set stage=256,512" > $R/stage.log 2>&1
.ab/v4 stats comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128 > $R/stats-v4.txt 2>&1
.ab/v4d stats comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 > $R/stats-v4d.txt 2>&1
cp .ab/call3.sh $R/command.sh
tar -czf $OUT/r3.tgz -C $OUT/.. r3
