set -x
R=$OUT/../r8; mkdir -p $R
pack() { cp .ab/call8.sh $R/; cp -r ab8 $R/ 2>/dev/null; tar -czf $OUT/r8.tgz -C $OUT/.. r8; }
trap pack EXIT
SKYLIGHT_RUN=4 .ab/x stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats.txt 2>&1
OUT= scripts/ab ab8 2 "base=.ab/b r1=.ab/r1 r2=.ab/r2 r3=.ab/r3 r4=.ab/r4 r7=.ab/r7" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 20" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 30" > $R/ab.txt 2>&1
