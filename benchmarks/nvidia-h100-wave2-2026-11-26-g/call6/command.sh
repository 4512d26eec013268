set -x
R=$OUT/../r6; mkdir -p $R
scripts/ab $R/ab 2 "final=.ab/final refac=.ab/refac three=.ab/three" \
  "comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size large --kernel step --precision f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
for r in 1 2; do
.ab/refac run comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 96,112,128,160 --samples 10 --json $R/wg-large-$r.json > $R/wg-large-$r.txt 2>&1
.ab/refac run comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 96,112,128,160 --json $R/wg-default-$r.json > $R/wg-default-$r.txt 2>&1
done
cp .ab/call6.sh $R/command.sh
tar -czf $OUT/r6.tgz -C $OUT/.. r6
