set -x
R=$OUT/../r3; mkdir -p $R
pack() { cp .ab/call3.sh $R/; cp -r ab3 $R/ 2>/dev/null; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
for b in chunk noclamp; do .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 > $R/stats-$b.txt 2>&1; done
OUT= scripts/ab ab3 2 "base=.ab/base chunk=.ab/chunk noclamp=.ab/noclamp" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 20" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128 --samples 5" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 30" > $R/ab.txt 2>&1
