set -x
R=$OUT/../r5; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "final=.ab/j" \
  "lbm --kernel collide,propagate,fused,step --layout aosoa-32,soa --precision f32,f64 --wg 128,256 --set pull=load,rows" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
baselines/device-run .ab/j lbm > $R/native.log 2>&1
mv $OUT/native.tgz $R/ 2>/dev/null
.ab/j run all --json $R/all.json > $R/all.txt 2>&1
cp .ab/call5.sh $R/command.sh
tar -czf $OUT/r5.tgz -C $OUT/.. r5
