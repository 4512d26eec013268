set -x
R=$OUT/../r9; mkdir -p $R
pack() { cp .ab/call9.sh .ab/runs20.diff $R/; tar -czf $OUT/r9.tgz -C $OUT/.. r9; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
rm -rf /tmp/pr && cp -r baselines/milc /tmp/pr && patch /tmp/pr/src/milc.cu < .ab/runs20.diff > $R/patch.txt 2>&1
baselines/milc/build.sh /tmp/b-orig > $R/build-orig.log 2>&1 &
/tmp/pr/build.sh /tmp/b-r20 > $R/build-r20.log 2>&1; wait
for r in 1 2; do
  for v in orig r20; do /tmp/b-$v/milc --precision f32,f64 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 30 > $R/port-$v-r$r.txt 2>&1; done
  for rps in 1 20; do .ab/n run milc --set complex=pairs --kernel dslash-fused --layout aosoa-32 --wg 512 --precision f32,f64 --samples 30 --runs-per-sample $rps --json $R/sky-$rps-r$r.json > $R/sky-$rps-r$r.txt 2>&1; done
done
