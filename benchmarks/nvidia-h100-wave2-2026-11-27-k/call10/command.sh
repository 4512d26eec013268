set -x
R=$OUT/../r10; mkdir -p $R
M="milc --set complex=pairs --precision f32,f64 --kernel dslash-fused"
.ab/k run $M --layout soa,aosoa-32 --wg 128,256,512 --set tile-t=4,8,16 --json $R/layouts.json > $R/layouts.txt 2>&1
.ab/k run $M --layout soa --wg 256 --set block-y=1,2 --set block-z=1,2 --set block-t=1,2 --set tile-t=16,32 --json $R/soa.json > $R/soa.txt 2>&1
.ab/k run stream --kernel triad --precision f32,f64 --json $R/triad.json > $R/triad.txt 2>&1
cp .ab/call10.sh $R/command.sh
tar -czf $OUT/r10.tgz -C $OUT/.. r10
