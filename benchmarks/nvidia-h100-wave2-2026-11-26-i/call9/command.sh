set -x
R=$OUT/../r9; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
scripts/ab $R/ab 3 "base=.ab/final pscan=.ab/pscan" \
  "comd --size large --kernel force --precision f32,f64,df64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128" > $R/ab.log 2>&1
cp .ab/call9.sh $R/command.sh
tar -czf $OUT/r9.tgz -C $OUT/.. r9
