set -x
R=$OUT/../r5; mkdir -p $R
pack() { cp .ab/call5.sh $R/; [ -d native-out ] && cp -r native-out $R/; tar -czf $OUT/r5.tgz -C $OUT/.. r5; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
OUT= baselines/device-run .ab/s stream lbm su3 > $R/device-run.txt 2>&1
