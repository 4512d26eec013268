set -x
R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
.ab/t stats lbm --kernel collide,propagate,fused --layout aosoa-32 --precision f32,f64 --wg 128,256 --set pull=load,rows > $R/stats-lbm.txt 2>&1
.ab/t stats comd --kernel force --precision f32,f64,df64 > $R/stats-comd.txt 2>&1
.ab/t stats milc --kernel dslash-fused,cg --set operator=fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 512 > $R/stats-milc.txt 2>&1
.ab/t stats stream --kernel dot --precision f32,f64 > $R/stats-stream.txt 2>&1
cp .ab/call6.sh $R/command.sh
tar -czf $OUT/r6.tgz -C $OUT/.. r6
