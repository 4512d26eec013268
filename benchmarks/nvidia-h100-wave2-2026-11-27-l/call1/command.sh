set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
pack() { cp .ab/call1.sh $R/command.sh; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 &
S=.ab/port; B=/tmp/pb; mkdir -p $B
g++ -O3 -fopenmp -fcx-limited-range -std=c++17 -c $S/reference.cpp -o $B/ref.o
for o in 2_2_2_2 2_2_2_8; do
  IFS=_ read by bz bt gr <<< "$o"
  for v in ldg plain; do
    extra=""; [ $v = plain ] && extra="-DNO_LDG"
    nvcc -O3 -std=c++17 -arch=sm_90 $extra -DBY=$by -DBZ=$bz -DBT=$bt -DGRP=$gr -Xcompiler -fopenmp,-fcx-limited-range -o $B/m$o-$v $S/milc.cu $B/ref.o -lgomp > $R/build-$o-$v.log 2>&1 &
  done
done
wait
for f in $B/m2_2_2_8-ldg $B/m2_2_2_8-plain /tmp/mb/milc; do
  echo "$f: $(cuobjdump -sass -fun dslash_kernel $f 2>/dev/null | grep -c 'LDG.E.*CONSTANT') constant loads, $(cuobjdump -sass $f 2>/dev/null | grep -c 'LDG') LDG in all" >> $R/sass.txt
done
for round in 1 2; do
  /tmp/mb/milc --precision f32,f64 --kernels dslash --orders storage,2x2x2x4,2x2x2x16 --blocks 128,256 --samples 50 > $R/port-fast-$round.txt 2>&1
  for b in $B/m2_2_2_2-ldg $B/m2_2_2_8-ldg $B/m2_2_2_8-plain; do
    $b --precision f32,f64 --kernels dslash --blocks 256 --samples 50 > $R/port-$(basename $b)-$round.txt 2>&1
  done
  .ab/k run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 512 --samples 50 --json $R/sky-$round.json > $R/sky-$round.txt 2>&1
done
/tmp/mb/milc --precision f32,f64 --kernels cg --orders storage,2x2x2x4,2x2x2x16 --blocks 128,256 > $R/port-fast-cg.txt 2>&1
.ab/k run milc --set complex=pairs --precision f32,f64 --kernel cg --set operator=fused --layout aosoa-32 --wg 512 --json $R/sky-cg.json > $R/sky-cg.txt 2>&1
scripts/ab $R/lbm 2 "k=.ab/k" "lbm --kernel fused,propagate --layout aosoa-32 --precision f32 --wg 128,256,512,1024 --set pull=rows --samples 50" "stream --kernel copy,triad --precision f32 --samples 50" > $R/lbm.txt 2>&1
