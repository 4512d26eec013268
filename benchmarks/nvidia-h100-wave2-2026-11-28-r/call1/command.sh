set -x
R=$OUT/../r1; mkdir -p $R
pack() { cp .ab/call1.sh $R/; cp -r ab1 $R/ 2>/dev/null; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
OUT= scripts/ab ab1 2 "h=.ab/h u=.ab/u" \
  "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --set tile-t=4,8 --samples 30" \
  "milc --set complex=pairs --precision f32,f64 --kernel cg --set operator=fused --layout aosoa-32 --wg 256,512 --samples 5" > $R/ab.txt 2>&1
for b in h u; do .ab/$b stats milc --kernel dslash-fused --precision f32,f64 --layout aosoa-32 --set complex=pairs --wg 256,512 > $R/stats-$b.txt 2>&1; done
