set -x
R=$OUT/../r9; mkdir -p $R
pack() { cp .ab/call9.sh $R/command.sh; tar -czf $OUT/r9.tgz -C $OUT/.. r9; }
trap pack EXIT
.ab/u run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout soa,aosoa-16,aosoa-32 --wg 256 --set tile-t=4,8,16 --samples 30 --json $R/layouts.json > $R/layouts.txt 2>&1
.ab/u run lbm --kernel fused --layout soa,aosoa-16,aosoa-32 --precision f32 --wg 128,256 --set pull=rows,load --samples 30 --json $R/lbm.json > $R/lbm.txt 2>&1
.ab/u run stream --kernel copy,triad --precision f32,f64 --samples 30 --json $R/stream.json > $R/stream.txt 2>&1
