set -x
R=$OUT/../r5; mkdir -p $R
for r in 1 2; do
.ab/final run comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 64,128,256 --set stage=0,256,384,512 --json $R/small-$r.json > $R/small-$r.txt 2>&1
.ab/final run comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 --set stage=160,0,224,256 --samples 10 --json $R/large-$r.json > $R/large-$r.txt 2>&1
done
cp .ab/call5.sh $R/command.sh
tar -czf $OUT/r5.tgz -C $OUT/.. r5
