set -x
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
M="milc --layout aosoa-32 --set complex=pairs --precision f32,f64"
scripts/ab $R/ab 2 "none=.ab/s share=.ab/sshare" \
  "$M --kernel dslash-fused --wg 128,256,512" \
  "$M --kernel cg --set operator=fused --wg 128,256,512" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
.ab/s run $M --kernel dslash-fused --wg 256,512 --set share=auto --set block-y=2,4 --set block-z=1,2 --set block-t=2,4 --set tile-t=4,8 --json $R/orders.json > $R/orders.txt 2>&1
.ab/s stats $M --kernel dslash-fused,cg --set operator=fused --wg 256,512 --set share=none,auto > $R/stats.txt 2>&1
cp .ab/call3.sh $R/command.sh
tar -czf $OUT/r3.tgz -C $OUT/.. r3
