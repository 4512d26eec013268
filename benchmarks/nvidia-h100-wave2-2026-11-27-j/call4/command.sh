set -x
R=$OUT/../r4; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "together=.ab/a split=.ab/b" \
  "lbm --kernel propagate,fused,step --layout soa,aosoa-32 --precision f32,f64 --wg 128,256 --set pull=rows" \
  "lbm --kernel fused,collide --layout aosoa-32 --precision f32,f64 --wg 128" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
SKY_ROWS_SPLIT=pf .ab/rowsx stats lbm --kernel propagate,fused --layout aosoa-32 --precision f32,f64 --wg 128,256 --set pull=rows > $R/stats-split.txt 2>&1
cp .ab/call4.sh $R/command.sh
tar -czf $OUT/r4.tgz -C $OUT/.. r4
