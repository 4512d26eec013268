set -x
R=$OUT/../r9; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
M="milc --layout aosoa-32 --set complex=pairs --precision f32,f64"
.ab/k run $M --kernel dslash-fused --wg 256,512 --set tile-t=4,8,16,32,64 --json $R/tiles.json > $R/tiles.txt 2>&1
.ab/k run $M --kernel dslash-fused --wg 256,512 --set block-y=1,4 --set block-z=1,2,4 --set block-t=1,2,4 --set tile-t=16 --json $R/blocks.json > $R/blocks.txt 2>&1
.ab/k run stream --kernel triad --precision f32,f64 --json $R/triad.json > $R/triad.txt 2>&1
cp .ab/call9.sh $R/command.sh
tar -czf $OUT/r9.tgz -C $OUT/.. r9
