set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh $R/; cp -r ab2 $R/ 2>/dev/null; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
OUT= scripts/ab ab2 2 "base=.ab/base rows=.ab/rows" \
  "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --samples 30" \
  "milc --set complex=pairs --precision f32,f64 --kernel cg --set operator=fused --layout aosoa-32 --wg 512 --samples 5" \
  "milc --precision f32,f64,df64 --kernel dslash-fused,dslash --samples 20" \
  "stream --kernel copy,triad --precision f32,f64 --samples 30" > $R/ab.txt 2>&1
for i in 1 2; do .ab/rows run milc --set complex=pairs --precision f32,f64,df64 --kernel dslash-fused --layout aosoa-32 --wg 512 --set reconstruct=18,12 --samples 30 --json $R/sweep-$i.json > $R/sweep-$i.txt 2>&1; done
.ab/rows stats milc --kernel dslash-fused --precision f32,f64,df64 --layout aosoa-32 --set complex=pairs --wg 512 --set reconstruct=18,12 > $R/stats.txt 2>&1
