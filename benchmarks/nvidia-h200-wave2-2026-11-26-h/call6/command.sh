set -x
R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
for b in far lean lean2; do
  .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128,256 > $R/stats-$b.txt 2>&1
done
scripts/ab $R/ab 2 "far=.ab/far lean=.ab/lean lean2=.ab/lean2" \
  "comd --size large --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128" \
  "comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 256" > $R/ab.log 2>&1
cp .ab/call6.sh $R/command.sh
tar -czf $OUT/r6.tgz -C $OUT/.. r6
