set -x
R=$OUT/../r12; mkdir -p $R
pack() { cp .ab/call12.sh $R/command.sh; tar -czf $OUT/r12.tgz -C $OUT/.. r12; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
start=$SECONDS
.ab/h run all --json $R/all.json > $R/all.txt 2>&1
echo "exit $? after $((SECONDS - start)) s" >> $R/all.txt
