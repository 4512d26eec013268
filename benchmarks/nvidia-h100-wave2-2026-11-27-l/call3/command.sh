set -x
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
pack() { cp .ab/call3.sh $R/command.sh; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 || exit 1
/tmp/mb/milc --precision f32,f64 --kernels dslash --orders storage,2x2x2x4,2x2x2x8,2x2x2x16 --blocks 128,256 --samples 50 > $R/port-1.txt 2>&1
scripts/ab $R/milc 2 "k=.ab/k u=.ab/u" "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 128,256,512 --set tile-t=4,8,16 --samples 50" "stream --kernel copy,triad --precision f32,f64 --samples 50" > $R/milc.txt 2>&1
/tmp/mb/milc --precision f32,f64 --kernels dslash --orders storage,2x2x2x4,2x2x2x8,2x2x2x16 --blocks 128,256 --samples 50 > $R/port-2.txt 2>&1
