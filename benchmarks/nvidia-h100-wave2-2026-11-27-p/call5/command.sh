set -x
R=$OUT/../r4; mkdir -p $R
pack() { cp .ab/call4.sh $R/; [ -d native-out ] && cp -r native-out $R/; tar -czf $OUT/r4.tgz -C $OUT/.. r4; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
OUT= baselines/device-run .ab/h su3 gpp snap > $R/device-run.txt 2>&1
.ab/h table --native-only native-out/*.json > $R/table.md 2>&1
