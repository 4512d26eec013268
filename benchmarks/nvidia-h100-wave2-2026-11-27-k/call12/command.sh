set -x
R=$OUT/../r12; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 || { tar -czf $OUT/r12.tgz -C $OUT/.. r12; exit 1; }
/tmp/mb/milc --kernels dslash,cg --orders storage,2x2x2x4,2x2x2x16 --blocks 128,256 > $R/port.txt 2>&1
.ab/k run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused,cg --set operator=fused --layout aosoa-32 --wg 512 --json $R/sky.json > $R/sky.txt 2>&1
/tmp/mb/milc --kernels dslash --orders storage,2x2x2x4,2x2x2x16 --blocks 128,256 > $R/port2.txt 2>&1
.ab/k run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 512 --json $R/sky2.json > $R/sky2.txt 2>&1
cp .ab/call12.sh $R/command.sh
tar -czf $OUT/r12.tgz -C $OUT/.. r12
