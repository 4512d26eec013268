set -x
R=$OUT/../r5; mkdir -p $R
pack() { cp .ab/call5.sh $R/; tar -czf $OUT/r5.tgz -C $OUT/.. r5; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
T=.ab/t
for round in 1 2; do
  $T run snap --quiet --kernel force --set twojmax=14 --set variant=fused --precision f64 --wg 192,224,256,288,320,384 --samples 20 --json $R/snap-r$round.json > $R/snap-r$round.txt 2>&1
  $T run comd --quiet --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 96,128,160,192 --samples 10 --json $R/comd-r$round.json > $R/comd-r$round.txt 2>&1
done
