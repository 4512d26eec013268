set -x
R=$OUT/../r7; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "far=.ab/far lean=.ab/lean" \
  "comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 --set stage=128,160,192,224,256 --samples 10" \
  "comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 64,96 --set stage=192 --samples 10" > $R/ab.log 2>&1
for b in far lean; do
  .ab/$b stats comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 --set stage=128,160,192,224,256 > $R/stats-$b.txt 2>&1
done
cp .ab/call7.sh $R/command.sh
tar -czf $OUT/r7.tgz -C $OUT/.. r7
