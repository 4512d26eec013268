set -x
R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/command.sh; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
mkdir -p /tmp/t && xz -dc .ab/t/tests.tar.xz | tar -C /tmp/t -xf -
cd tests
for b in /tmp/t/t-*; do
  n=$(basename $b)
  start=$SECONDS
  timeout 150 $b > $R/$n.txt 2>&1; rc=$?
  echo "$n rc=$rc $((SECONDS - start)) s $(grep -E '^test result' $R/$n.txt)" >> $R/summary.txt
done
