set -x
R=$OUT/../r4; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
pack() { cp .ab/call4.sh $R/command.sh; tar -czf $OUT/r4.tgz -C $OUT/.. r4; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 &
for b in k v; do .ab/$b stats comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 128 > $R/stats-comd-$b.txt 2>&1; done
scripts/ab $R/comd 2 "k=.ab/k v=.ab/v" "comd --size large --kernel force --precision f32 --layout aos --set variant=cell --wg 64,128,256 --samples 20" > $R/comd.txt 2>&1
scripts/ab $R/cg 2 "k=.ab/k u=.ab/u" "milc --set complex=pairs --precision f32,f64 --kernel cg --set operator=fused --layout aosoa-32 --wg 256,512 --set tile-t=4,8 --samples 10" > $R/cg.txt 2>&1
.ab/u run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 256 --set block-y=2,4 --set block-z=1,2 --set block-t=1,2 --set tile-t=4,8 --samples 30 --json $R/blocks.json > $R/blocks.txt 2>&1
wait
/tmp/mb/milc --precision f32,f64 --kernels cg --orders 2x2x2x4,2x2x2x8 --blocks 128,256 > $R/port-cg.txt 2>&1
