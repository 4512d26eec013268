set -x
R=$OUT/../r8; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "far=.ab/far lean=.ab/lean leane=.ab/leane leanf=.ab/leanf" \
  "comd --size large --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel force --precision f32,df64 --layout aos --set variant=cell --wg 128" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
for b in far lean leane leanf; do
  .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 > $R/stats-$b.txt 2>&1
done
cp .ab/call8.sh $R/command.sh
tar -czf $OUT/r8.tgz -C $OUT/.. r8
