set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh $R/; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
baselines/milc/build.sh /tmp/mb > $R/build.txt 2>&1 || exit 1
# The port's default link form (no --reconstruct): its lines must name /r12.
/tmp/mb/milc --kernels dslash,cg --orders 2x2x2x4 --blocks 128 > $R/port-default.txt 2>&1
for i in 1 2; do
  /tmp/mb/milc --kernels dslash --orders storage,2x2x2x4,2x2x2x8,2x2x2x16 --blocks 64,128,256 --reconstruct 12 > $R/port-$i.txt 2>&1
  /tmp/mb/milc --kernels dslash --orders storage,2x2x2x4,2x2x2x8,2x2x2x16 --blocks 64,128,256 --reconstruct 12 --runs-per-sample 20 > $R/port20-$i.txt 2>&1
  .ab/h run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --set tile-t=4,8 --json $R/sky-$i.json > $R/sky-$i.txt 2>&1
  .ab/h run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --set tile-t=4,8 --runs-per-sample 20 --json $R/sky20-$i.json > $R/sky20-$i.txt 2>&1
done
