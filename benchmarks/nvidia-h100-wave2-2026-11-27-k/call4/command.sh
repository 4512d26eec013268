set -x
R=$OUT/../r4; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
M="milc --layout aosoa-32 --set complex=pairs --precision f32,f64 --kernel dslash-fused"
scripts/ab $R/ab 2 "none=.ab/s share=.ab/sshare pred=.ab/spred" \
  "$M --wg 256,512" \
  "$M --wg 256,512 --set block-y=4 --set tile-t=8" \
  "$M --wg 256,512 --set block-y=1 --set block-z=1 --set block-t=1 --set tile-t=8" > $R/ab.log 2>&1
for b in none share pred; do
  .ab/s$([ $b = none ] || echo $b) stats $M --wg 256,512 > $R/stats-$b.txt 2>&1
  .ab/s$([ $b = none ] || echo $b) stats $M --wg 256 --set block-y=1 --set block-z=1 --set block-t=1 --set tile-t=8 > $R/stats111-$b.txt 2>&1
done
cp .ab/call4.sh $R/command.sh
tar -czf $OUT/r4.tgz -C $OUT/.. r4
