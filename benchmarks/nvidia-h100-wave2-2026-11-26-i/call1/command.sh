set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 2 "base=.ab/base filt=.ab/filt filt64=.ab/filt64" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
scripts/ab $R/ab-df64 2 "base=.ab/base filt=.ab/filt" \
  "comd --size large --kernel force --precision df64 --layout aos --set variant=cell --wg 128" > $R/ab-df64.log 2>&1
scripts/ab $R/stage 1 "filt=.ab/filt" \
  "comd --size large --kernel force --precision f32 --layout aos,soa --set variant=cell --wg 128,256 --set stage=128,192,256,384,512" > $R/stage.log 2>&1
.ab/filt stats comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 > $R/stats-filt.txt 2>&1
.ab/filt64 stats comd --size large --kernel force --precision f64 --layout aos --set variant=cell --wg 128 > $R/stats-filt64.txt 2>&1
baselines/device-run .ab/filt comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call1.sh $R/command.sh
tar -czf $OUT/r1.tgz -C $OUT/.. r1
