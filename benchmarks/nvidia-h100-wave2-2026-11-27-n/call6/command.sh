set -x
R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
export OMP_NUM_THREADS=16
baselines/comd/build.sh /tmp/c > $R/build-comd.log 2>&1 &
baselines/milc/build.sh /tmp/m > $R/build-milc.log 2>&1; wait
/tmp/c/comd_port --cpu-only --sizes 6 --runs-per-sample 20 > $R/comd-cpu-rps.txt 2>&1; echo "rc $?" >> $R/comd-cpu-rps.txt
/tmp/m/milc --cpu-only --L 4 --T 8 --runs-per-sample 20 > $R/milc-cpu-rps.txt 2>&1; echo "rc $?" >> $R/milc-cpu-rps.txt
.ab/s2 run milc --kernel dslash,dslash-fused --layout aosoa-32 --set complex=pairs --wg 128,512 --precision f32,f64 --json $R/milc-sky-1.json > $R/milc-sky-1.txt 2>&1
.ab/s2 run milc --kernel dslash,dslash-fused --layout aosoa-32 --set complex=pairs --wg 128,512 --precision f32,f64 --runs-per-sample 20 --json $R/milc-sky-20.json > $R/milc-sky-20.txt 2>&1
baselines/milc/run.sh /tmp/m $R/milc-native.log --kernels dslash --orders 2x2x2x8 --blocks 128,256 > /dev/null 2>&1; echo "rc $?" > $R/milc-run-rc.txt
.ab/s2 native --code port --like $R/milc-sky-1.json --like $R/milc-sky-20.json --repository baselines/milc --commit 4deed5f --build "nvcc -O3 -arch=sm_90" --json $R/milc-native.json $R/milc-native.log > $R/native.txt 2>&1
.ab/s2 run stream --kernel copy,triad --precision f32,f64 --json $R/stream.json > /dev/null 2>&1
.ab/s2 run peak --kernel fma --precision f32,f64 --json $R/peak.json > /dev/null 2>&1
.ab/s2 table --native-only $R/milc-sky-1.json $R/milc-sky-20.json $R/milc-native.json $R/stream.json $R/peak.json > $R/table.md 2>&1
