set -x
R=$OUT/../r8; mkdir -p $R
pack() { cp .ab/call8.sh $R/command.sh; tar -czf $OUT/r8.tgz -C $OUT/.. r8; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
start=$SECONDS
.ab/n run all --json $R/all.json > $R/all.txt 2>&1
echo "exit $? after $((SECONDS - start)) s" >> $R/all.txt
.ab/n run comd --kernel force,step --variant cell --layout aos --precision f32,f64 --runs-per-sample 10 --samples 10 --json $R/comd-r10.json > $R/comd-r10.txt 2>&1
echo "exit $?" >> $R/comd-r10.txt
