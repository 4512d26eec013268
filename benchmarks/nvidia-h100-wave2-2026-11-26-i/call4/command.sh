set -x
R=$OUT/../r4; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final t2=.ab/t2 t8=.ab/t8" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --samples 10" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
for b in final t2 t8; do .ab/$b stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats-$b.txt 2>&1; done
cp .ab/call4.sh $R/command.sh
tar -czf $OUT/r4.tgz -C $OUT/.. r4
