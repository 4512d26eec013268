set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh $R/; [ -d ab2 ] && cp -r ab2 $R/; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
for R_ in 0 3 7; do SKYLIGHT_COMD_RUN=$R_ .ab/w stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats-run$R_.txt 2>&1; done
OUT= scripts/ab ab2 2 "s=.ab/s w2=.ab/w2 w3=.ab/w3 w4=.ab/w4 w7=.ab/w7" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
  "comd --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --samples 20" > $R/ab.txt 2>&1
