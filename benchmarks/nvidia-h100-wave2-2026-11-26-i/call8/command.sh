set -x
R=$OUT/../r8; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final testonly=.ab/dtest stageonly=.ab/dstage" \
  "comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128 --set stage=128,512 --samples 10" > $R/ab.log 2>&1
.ab/dstage stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats-stageonly.txt 2>&1
cp .ab/call8.sh $R/command.sh
tar -czf $OUT/r8.tgz -C $OUT/.. r8
