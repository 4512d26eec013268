set -x
R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/final push=.ab/push" \
  "lbm --kernel propagate,fused,collide,step --layout soa,aosoa-32 --precision f32,f64 --wg 128,256" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
cp .ab/call2.sh $R/command.sh
tar -czf $OUT/r2.tgz -C $OUT/.. r2
