R=$OUT/../r14; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for round in 1 2; do
.ab/skylight-g run stream --kernel copy,triad --precision f32,f64 --quiet --json $R/stream-$round.json > $R/stream-$round.txt 2>&1
.ab/skylight-g run lbm --kernel fused,propagate --layout soa,aosoa-8,aosoa-16,aosoa-32 --wg 128,256,512 --set vvl=1,2 --precision f32 --quiet --json $R/lbm-$round.json > $R/lbm-$round.txt 2>&1
done
tar czf $OUT/r14.tgz -C $R .
