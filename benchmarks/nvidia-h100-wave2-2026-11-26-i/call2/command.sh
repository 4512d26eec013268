set -x
R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/base final=.ab/final" \
  "comd --size large --kernel force,step --precision df64 --layout aos --set variant=cell --wg 128" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" > $R/ab.log 2>&1
scripts/ab $R/stage 1 "final=.ab/final" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128,256 --set stage=64,96,128,192,256" \
  "comd --size default --kernel force --precision f64 --layout aos --set variant=cell --wg 64,128 --set stage=64,96,128,160,192,256" > $R/stage.log 2>&1
.ab/final stats comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128 > $R/stats-final.txt 2>&1
.ab/final run all --json $R/all.json > $R/all.txt 2>&1
cp .ab/call2.sh $R/command.sh
tar -czf $OUT/r2.tgz -C $OUT/.. r2
