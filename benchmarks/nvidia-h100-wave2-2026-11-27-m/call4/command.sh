set -x
R=$OUT/../r4; mkdir -p $R
pack() { cp .ab/call4.sh $R/command.sh; tar -czf $OUT/r4.tgz -C $OUT/.. r4; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
.ab/h stats milc --kernel dslash-fused --set complex=pairs --layout aosoa-32,soa --wg 256,512,1024 --precision f32,f64 > $R/stats.txt 2>&1
for r in 1 2; do .ab/h run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 512,1024 --set tile-t=4,8 --samples 50 --json $R/sky-r$r.json > $R/sky-r$r.txt 2>&1; done
