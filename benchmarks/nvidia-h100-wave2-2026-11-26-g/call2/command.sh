set -x
R=$OUT/../r2; mkdir -p $R
for b in coarse2 win; do .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 --set stage=0,256,512 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/ab 2 "base=.ab/base coarse2=.ab/coarse2 win=.ab/win" \
  "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --set stage=0,256,512 --samples 10" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 256 --samples 10" \
  "comd --size large --kernel step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128 --set stage=0,256 --samples 5" > $R/ab.log 2>&1
cp .ab/call2.sh $R/command.sh
tar -czf $OUT/r2.tgz -C $OUT/.. r2
