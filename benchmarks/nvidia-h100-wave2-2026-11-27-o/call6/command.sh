set -x
R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
start=$SECONDS
.ab/t run all --quiet --timing-report --json $R/all.json > $R/all.txt 2>&1
echo "rc $? wall $((SECONDS - start)) s" >> $R/all.txt
