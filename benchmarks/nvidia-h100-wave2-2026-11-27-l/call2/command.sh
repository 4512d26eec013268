set -x
R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
pack() { cp .ab/call2.sh $R/command.sh; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 &
S=.ab/port; B=/tmp/pb; mkdir -p $B
g++ -O3 -fopenmp -fcx-limited-range -std=c++17 -c $S/reference.cpp -o $B/ref.o
for o in 2_2_2_2 2_2_2_8; do
  IFS=_ read by bz bt gr <<< "$o"
  nvcc -O3 -std=c++17 -arch=sm_90 -DBY=$by -DBZ=$bz -DBT=$bt -DGRP=$gr -Xcompiler -fopenmp,-fcx-limited-range -o $B/m$o $S/milc.cu $B/ref.o -lgomp > $R/build-$o.log 2>&1 &
done
wait
[ -x /tmp/mb/milc ] || { tail -50 $R/build.log; exit 1; }
for b in k u f; do .ab/$b stats milc --kernel dslash-fused,cg --set operator=fused --set complex=pairs --layout aosoa-32 --wg 512 --precision f32,f64 > $R/stats-$b.txt 2>&1; done
for round in 1 2; do
  /tmp/mb/milc --precision f32,f64 --kernels dslash --orders storage,2x2x2x4,2x2x2x16,2x2x2x8 --blocks 128,256 --samples 50 > $R/port-new-$round.txt 2>&1
  for o in 2_2_2_2 2_2_2_8; do $B/m$o --precision f32,f64 --kernels dslash --blocks 256 --samples 50 > $R/port-diag-$o-$round.txt 2>&1; done
done
scripts/ab $R/milc 2 "k=.ab/k u=.ab/u f=.ab/f" "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --samples 50" > $R/milc.txt 2>&1
/tmp/mb/milc --precision f32,f64 --kernels cg --orders storage,2x2x2x4,2x2x2x16 --blocks 128,256 > $R/port-new-cg.txt 2>&1
.ab/k run milc --set complex=pairs --precision f32,f64 --kernel cg --set operator=fused --layout aosoa-32 --wg 512 --json $R/sky-cg.json > $R/sky-cg.txt 2>&1
