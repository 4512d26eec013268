set -x
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final rows=.ab/rows" \
  "lbm --kernel propagate,fused,step --layout soa,aosoa-32 --precision f32,f64 --wg 128,256" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
scripts/ab $R/sweep 2 "rows=.ab/rows" \
  "lbm --kernel propagate,fused,step --layout soa,aosoa-8,aosoa-32,aos --precision f32,f64 --wg 128,256,512 --set pull=rows" \
  "lbm --kernel collide --layout soa,aosoa-32 --precision f32,f64 --wg 128,256" \
  "stream --kernel copy,triad --precision f32,f64" > $R/sweep.log 2>&1
.ab/rows stats lbm --kernel propagate,fused --layout aosoa-32 --precision f32,f64 --wg 128,256 --set pull=load,rows > $R/stats.txt 2>&1
cp .ab/call3.sh $R/command.sh
tar -czf $OUT/r3.tgz -C $OUT/.. r3
