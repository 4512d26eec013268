set -x
R=$OUT/../r1; mkdir -p $R
pack() { cp .ab/call1.sh $R/; [ -d native-out ] && cp -r native-out $R/; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
ldd --version | head -1 >> $R/gpu.txt
OUT= baselines/device-run .ab/s gpp snap > $R/device-run.txt 2>&1
