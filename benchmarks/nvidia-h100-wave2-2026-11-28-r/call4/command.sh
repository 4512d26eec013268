R=$OUT/../r4; mkdir -p $R
pack() { cp .ab/call4.sh $R/; tar -czf $OUT/r4.tgz -C $OUT/.. r4; }
trap pack EXIT
for i in 1 2; do
  .ab/h run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout aosoa-32 --wg 64,128,512 --set tile-t=4,8,16 --samples 30 --json $R/a-$i.json > $R/a-$i.txt 2>&1
  .ab/h run milc --set complex=pairs --precision f32,f64 --kernel dslash-fused --layout soa --wg 128,256 --set tile-t=8,16 --samples 30 --json $R/s-$i.json > $R/s-$i.txt 2>&1
done
