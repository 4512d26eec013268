set -x
R=$OUT/../r3; mkdir -p $R
pack() { cp .ab/call3.sh $R/; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
S=.ab/s
$S run peak --quiet --kernel fma --precision f32,f64 --samples 20 --json $R/peak-1.json > $R/peak-1.txt 2>&1
$S run gpp --quiet --set inputs=reference --set order=nx --precision f32,f64,df64 --set reduction=tree,subgroup --wg 256 --samples 5 --json $R/gpp.json > $R/gpp.txt 2>&1
$S run peak --quiet --kernel fma --precision f32,f64 --samples 20 --json $R/peak-2.json > $R/peak-2.txt 2>&1
$S stats gpp --set inputs=reference --set order=nx --precision f32,f64,df64 --set reduction=tree,subgroup --wg 256 > $R/stats.txt 2>&1
