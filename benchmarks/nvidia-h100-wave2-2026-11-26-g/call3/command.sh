set -x
R=$OUT/../r3; mkdir -p $R
for b in coarse2 pair; do .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128,256 --set stage=0,192,256 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/ab 2 "coarse2=.ab/coarse2 pair=.ab/pair" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --samples 10" \
  "comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 --set stage=192,256 --samples 10" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128 --samples 5" > $R/ab.log 2>&1
cp .ab/call3.sh $R/command.sh
tar -czf $OUT/r3.tgz -C $OUT/.. r3
