set -x
R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final ft2=.ab/ft2" \
  "comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128 --set stage=128,192,256 --samples 10" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force --precision f32 --layout aos --set variant=cell --wg 128,256" > $R/ab.log 2>&1
.ab/ft2 stats comd --size large --kernel force --precision f32,df64 --layout aos --set variant=cell --wg 128 > $R/stats-ft2.txt 2>&1
cp .ab/call6.sh $R/command.sh
tar -czf $OUT/r6.tgz -C $OUT/.. r6
