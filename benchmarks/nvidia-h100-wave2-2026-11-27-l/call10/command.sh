set -x
R=$OUT/../r10; mkdir -p $R
pack() { cp .ab/call10.sh $R/command.sh; tar -czf $OUT/r10.tgz -C $OUT/.. r10; }
trap pack EXIT
for b in r rn; do
  .ab/$b stats milc --kernel dslash-fused --set complex=pairs --layout aosoa-32 --wg 256 --set tile-t=8 --precision f32,f64 > $R/stats-milc-$b.txt 2>&1
  .ab/$b stats lbm --kernel fused --layout aosoa-32 --wg 256 --set pull=rows --precision f32,f64 > $R/stats-lbm-$b.txt 2>&1
  .ab/$b stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats-comd-$b.txt 2>&1
  .ab/$b stats stream --kernel copy,triad --precision f32,f64 > $R/stats-stream-$b.txt 2>&1
done
scripts/ab $R/ab 2 "r=.ab/r rn=.ab/rn" \
  "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256 --set tile-t=4,8 --samples 30" \
  "lbm --kernel fused,propagate --layout aosoa-32 --precision f32,f64 --wg 256 --set pull=rows --samples 30" \
  "stream --kernel copy,triad --precision f32,f64 --samples 30" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 20" \
  "su3 --set mapping=element --layout aos-milc --wg 128 --precision f32,f64 --samples 20" > $R/ab.txt 2>&1
