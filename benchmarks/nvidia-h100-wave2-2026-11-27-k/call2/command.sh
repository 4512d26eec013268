set -x
R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
S=.ab/port; B=/tmp/pb; mkdir -p $B
g++ -O3 -fopenmp -fcx-limited-range -std=c++17 -c $S/reference.cpp -o $B/ref.o
for o in 1_1_1_1 2_2_2_2 2_2_1_1 2_2_2_1 4_4_2_2 2_2_2_8 2_2_4_16 8_8_2_2; do
  IFS=_ read by bz bt gr <<< "$o"
  nvcc -O3 -std=c++17 -arch=sm_90 -DBY=$by -DBZ=$bz -DBT=$bt -DGRP=$gr -Xcompiler -fopenmp,-fcx-limited-range -o $B/m$o $S/milc.cu $B/ref.o -lgomp > $R/build-$o.log 2>&1 &
done
wait
# lbm while nothing else runs: workgroup zeroing on (h) and off (z: same build plus SKYLIGHT_NO_ZERO_WG)
for round in 1 2; do
for b in h z; do
  if [ $b = z ]; then export SKYLIGHT_NO_ZERO_WG=1; else unset SKYLIGHT_NO_ZERO_WG; fi
  .ab/z run lbm --kernel fused,propagate,step --layout aosoa-32,soa --precision f32,f64 --wg 128,256 --set pull=rows --json $R/lbm-$b-$round.json > $R/lbm-$b-$round.txt 2>&1
  .ab/z run stream --kernel copy,triad --precision f32,f64 --json $R/stream-$b-$round.json > $R/stream-$b-$round.txt 2>&1
done
done
SKYLIGHT_NO_ZERO_WG=1 .ab/z stats lbm --kernel fused --layout aosoa-32 --precision f32 --wg 128,256 --set pull=rows > $R/stats-lbm-z.txt 2>&1
unset SKYLIGHT_NO_ZERO_WG
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for o in 1_1_1_1 2_2_2_2 2_2_1_1 2_2_2_1 4_4_2_2 2_2_2_8 2_2_4_16 8_8_2_2; do
  for p in f64 f32; do
    $B/m$o --precision $p --kernels dslash --blocks 256 --samples 20 --warmup 0.5 > $R/time-$o-$p.txt 2>&1
    ncu -k regex:dslash_kernel -c 1 --metrics $M $B/m$o --precision $p --kernels dslash --blocks 256 --samples 2 --warmup 0 > $R/ncu-$o-$p.txt 2>&1
  done
done
cp .ab/call2.sh $R/command.sh
tar -czf $OUT/r2.tgz -C $OUT/.. r2
