set -x
R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
start=$(date +%s)
.ab/k run all --json $R/all.json > $R/all.txt 2>&1
echo "run all: $(( $(date +%s) - start )) s" > $R/wall.txt
.ab/k run lbm --layout aosoa-32 --precision f32,f64 --json $R/lbm-default.json > $R/lbm-default.txt 2>&1
.ab/k run stream --kernel copy,triad --precision f32,f64 --json $R/stream.json > $R/stream.txt 2>&1
cp .ab/call6.sh $R/command.sh
tar -czf $OUT/r6.tgz -C $OUT/.. r6
