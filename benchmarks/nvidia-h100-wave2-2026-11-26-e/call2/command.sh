R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for s in 512,1638,32768 2048,1638,8192 8192,1638,2048 32768,1638,512; do
 for p in f64 f32; do
  .ab/skylight-a run gpp --size $s --precision $p --set reduction=subgroup --set order=nx,xn --set inputs=reference --wg 128 --samples 3 --quiet --json $R/gpp-$s-$p.json > $R/gpp-$s-$p.txt 2>&1
 done
done
tar czf $OUT/r2.tgz -C $R .
