R=$OUT/../r5; mkdir -p $R
pack() { cp .ab/call5.sh $R/; tar -czf $OUT/r5.tgz -C $OUT/.. r5; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build.txt 2>&1 || exit 1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 50 > $R/smi.csv 2>&1 &
smi=$!
for i in 1 2; do
  date +%T.%N > $R/t-port-$i.txt
  /tmp/mb/milc --precision f64 --kernels dslash --orders 2x2x2x8 --blocks 128 --reconstruct 12 > $R/port-$i.txt 2>&1
  date +%T.%N >> $R/t-port-$i.txt
  /tmp/mb/milc --precision f64 --kernels dslash --orders 2x2x2x8 --blocks 128 --reconstruct 12 --runs-per-sample 20 > $R/port20-$i.txt 2>&1
  date +%T.%N >> $R/t-port-$i.txt
  .ab/h run milc --set complex=pairs --precision f64 --kernel dslash-fused --layout aosoa-32 --wg 512 --runs-per-sample 20 --json $R/sky20-$i.json > $R/sky20-$i.txt 2>&1
  date +%T.%N >> $R/t-port-$i.txt
done
kill $smi
