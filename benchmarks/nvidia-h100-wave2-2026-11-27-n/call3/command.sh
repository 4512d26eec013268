set -x
R=$OUT/../r3; mkdir -p $R
pack() { cp .ab/call3.sh $R/; [ -d native-out ] && cp -r native-out $R/; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
OUT= baselines/device-run .ab/s comd > $R/device-run.txt 2>&1
for r in 1 2; do for n in 1 20; do
  .ab/s run stream --kernel copy,triad --precision f32,f64 --samples 30 --runs-per-sample $n --json $R/stream-$n-r$r.json > /dev/null 2>&1
  .ab/s run lbm --kernel fused,propagate,collide,step --layout aosoa-32 --precision f32,f64 --wg 256 --set pull=rows --samples 30 --runs-per-sample $n --json $R/lbm-$n-r$r.json > /dev/null 2>&1
  .ab/s run milc --set complex=pairs --kernel dslash-fused --layout aosoa-32 --wg 512 --precision f32,f64 --samples 30 --runs-per-sample $n --json $R/milc-$n-r$r.json > /dev/null 2>&1
done; done
.ab/s run all --json $R/all.json > $R/all.txt 2>&1
