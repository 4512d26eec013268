set -x
R=$OUT/../r7; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "load=.ab/pload rows=.ab/prows lanes=.ab/planes" \
  "lbm --kernel fused,propagate,step --layout aosoa-32,soa --precision f32,f64 --wg 128,256" \
  "stream --kernel copy,triad --precision f32,f64" > $R/ab.log 2>&1
.ab/l run lbm --kernel collide,fused,propagate --layout aosoa-32 --precision f32,f64 --wg 512,1024 --set pull=lanes --json $R/wide.json > $R/wide.txt 2>&1
.ab/l stats lbm --kernel fused,propagate --layout aosoa-32 --precision f32,f64 --wg 256 --set pull=load,rows,lanes > $R/stats.txt 2>&1
cp .ab/call7.sh $R/command.sh
tar -czf $OUT/r7.tgz -C $OUT/.. r7
