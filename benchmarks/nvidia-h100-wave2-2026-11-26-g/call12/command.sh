set -x
R=$OUT/../r12; mkdir -p $R
scripts/ab $R/ab 3 "last=.ab/last recip2=.ab/recip2" \
  "comd --size large --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128,256 --samples 10" \
  "comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
cp .ab/call12.sh $R/command.sh
tar -czf $OUT/r12.tgz -C $OUT/.. r12
