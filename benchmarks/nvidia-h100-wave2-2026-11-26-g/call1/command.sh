set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt
for b in base coarse; do .ab/$b stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/ab 2 "base=.ab/base coarse=.ab/coarse" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --samples 10" \
  "comd --size default --kernel force,step --precision f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,256,512" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128 --samples 5" > $R/ab.log 2>&1
cp .ab/call1.sh $R/command.sh
tar -czf $OUT/r1.tgz -C $OUT/.. r1
