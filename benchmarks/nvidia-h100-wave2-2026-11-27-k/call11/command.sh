set -x
R=$OUT/../r11; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
S=.ab/port; B=/tmp/pb; mkdir -p $B
g++ -O3 -fopenmp -fcx-limited-range -std=c++17 -c $S/reference.cpp -o $B/ref.o
for o in 1_1_1_1 2_2_2_2 2_2_2_8; do
  IFS=_ read by bz bt gr <<< "$o"
  nvcc -O3 -std=c++17 -arch=sm_90 -DBY=$by -DBZ=$bz -DBT=$bt -DGRP=$gr -Xcompiler -fopenmp,-fcx-limited-range -o $B/m$o $S/milc.cu $B/ref.o -lgomp > $R/build-$o.log 2>&1 &
done
wait
for round in 1 2; do
  for o in 1_1_1_1 2_2_2_2 2_2_2_8; do
    $B/m$o --precision f32,f64 --kernels dslash --blocks 128,256 --samples 50 --warmup 0.5 > $R/port-$o-$round.txt 2>&1
  done
  .ab/k run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 512 --samples 50 --json $R/sky-$round.json > $R/sky-$round.txt 2>&1
done
cp .ab/call11.sh $R/command.sh
tar -czf $OUT/r11.tgz -C $OUT/.. r11
