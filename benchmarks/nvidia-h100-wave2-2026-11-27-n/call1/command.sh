set -x
R=$OUT/../r1; mkdir -p $R
pack() { cp .ab/call1.sh $R/; tar -czf $OUT/r1.tgz -C $OUT/.. r1; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
export OMP_NUM_THREADS=16
baselines/comd/build.sh /tmp/c > $R/build-comd.log 2>&1 &
baselines/milc/build.sh /tmp/m > $R/build-milc.log 2>&1; wait
for r in 1 2; do
  for rps in 1 20; do
    /tmp/c/comd_port --sizes 20 --precisions f32,f64 --kernels force,step --mappings cell --wgs 128,256 --samples 20 --runs-per-sample $rps > $R/port-comd-$rps-r$r.txt 2>&1
    .ab/n run comd --size default --kernel force,step --precision f32,f64 --layout aos --variant cell --wg 128,256 --set stage=0,512 --samples 20 --runs-per-sample $rps --json $R/sky-comd-$rps-r$r.json > $R/sky-comd-$rps-r$r.txt 2>&1
  done
done
/tmp/m/milc --precision f32,f64 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 30 --runs-per-sample 20 > $R/port-milc-20.txt 2>&1
.ab/n run milc --set complex=pairs --kernel dslash-fused --layout aosoa-32 --wg 512 --precision f32,f64 --samples 30 --runs-per-sample 20 --json $R/sky-milc-20.json > $R/sky-milc-20.txt 2>&1
/tmp/m/milc --precision f32 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 30 > $R/port-milc-1.txt 2>&1
/tmp/c/comd_port --sizes 20 --runs-per-sample 0 > $R/port-comd-bad.txt 2>&1; echo "rc $?" >> $R/port-comd-bad.txt
/tmp/m/milc --runs-per-sample 0 > $R/port-milc-bad.txt 2>&1; echo "rc $?" >> $R/port-milc-bad.txt
