set -x
R=$OUT/../r7; mkdir -p $R
pack() { cp .ab/call7.sh $R/command.sh; tar -czf $OUT/r7.tgz -C $OUT/.. r7; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
for round in 1 2; do for rps in 1 20; do
  .ab/n run stream --kernel copy,triad --precision f32,f64 --samples 30 --runs-per-sample $rps --json $R/stream-$rps-r$round.json > $R/stream-$rps-r$round.txt 2>&1
  .ab/n run lbm --kernel fused,propagate,collide,step --layout aosoa-32 --precision f32,f64 --wg 256 --set pull=rows --samples 30 --runs-per-sample $rps --json $R/lbm-$rps-r$round.json > $R/lbm-$rps-r$round.txt 2>&1
  .ab/n run milc --set complex=pairs --kernel dslash-fused --layout aosoa-32 --wg 512 --precision f32,f64 --samples 30 --runs-per-sample $rps --json $R/milc-$rps-r$round.json > $R/milc-$rps-r$round.txt 2>&1
done; done
