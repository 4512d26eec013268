set -x
R=$OUT/../r1; mkdir -p $R
pack() { cp .ab/call1.sh $R/command.sh; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
git log --oneline -1 > $R/commit.txt
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1; echo "build exit $?" >> $R/build.log
/tmp/mb/milc --precision f32,f64 --kernels dslash --orders storage,2x2x2x8 --blocks 256 --samples 50 > $R/port.txt 2>&1; echo "port exit $?" >> $R/port.txt
for b in h c; do .ab/$b stats milc --kernel dslash-fused,cg --set complex=pairs --layout aosoa-32 --wg 512 --precision f32,f64,df64 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/milc 2 "h=.ab/h c=.ab/c" \
 "milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256,512 --samples 50" \
 "milc --set complex=pairs --precision f32,f64 --kernel cg --layout aosoa-32 --wg 512 --samples 10" \
 "milc --precision f32,f64,df64 --kernel dslash-fused --samples 30" \
 "stream --kernel copy,triad --precision f32,f64 --samples 50" > $R/ab.txt 2>&1
