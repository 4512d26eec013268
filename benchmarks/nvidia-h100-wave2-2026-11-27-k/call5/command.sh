set -x
R=$OUT/../r5; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
M="milc --layout aosoa-32 --set complex=pairs --precision f32,f64 --kernel dslash-fused"
scripts/ab $R/ab 2 "none=.ab/s nonez=.ab/nz share=.ab/sshare sharez=.ab/sz" \
  "$M --wg 256,512" \
  "$M --wg 256,512 --set block-y=4 --set tile-t=8" \
  "lbm --kernel fused --layout aosoa-32 --precision f32 --wg 128,256" \
  "stream --kernel triad --precision f32,f64" > $R/ab.log 2>&1
cp .ab/call5.sh $R/command.sh
tar -czf $OUT/r5.tgz -C $OUT/.. r5
