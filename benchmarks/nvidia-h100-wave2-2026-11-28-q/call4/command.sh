set -x
R=$OUT/../r4; mkdir -p $R
pack() { cp .ab/call4.sh $R/; tar -czf $OUT/r4.tgz -C $OUT/.. r4; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
for i in 1 2; do
.ab/h run milc --quiet --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32,soa --wg 256,512 --set tile-t=4,8,16 --set block-y=1,2,4 --samples 30 --json $R/sweep-$i.json > $R/sweep-$i.txt 2>&1
done
.ab/h run milc --quiet --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 512 --set tile-t=4,8 --set block-z=1,2,4 --set block-t=1,2,4 --samples 30 --json $R/sweep-zt.json > $R/sweep-zt.txt 2>&1
