set -x
R=$OUT/../r1; mkdir -p $R
pack() { cp .ab/call1.sh $R/; cp -r ab1 $R/ 2>/dev/null; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
.ab/d stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=direct,cell --wg 64,128,256 > $R/stats.txt 2>&1
OUT= scripts/ab ab1 2 "base=.ab/b direct=.ab/d" \
  "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 20" \
  "comd --size large --kernel force --precision f32,f64 --layout aos,soa --set variant=direct --wg 64,128,256 --samples 20" \
  "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell,direct --wg 128,256 --samples 20" > $R/ab.txt 2>&1
.ab/d run comd --size large --kernel force --precision df64 --layout aos --set variant=cell,direct --wg 128 --samples 5 > $R/df64.txt 2>&1
