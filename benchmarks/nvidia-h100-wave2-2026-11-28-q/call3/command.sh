set -x
R=$OUT/../r3; mkdir -p $R
pack() { cp .ab/call3.sh $R/; cp /tmp/mb/*.log $R/ 2>/dev/null; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
(baselines/milc/build.sh /tmp/mb > $R/port-build.log 2>&1; echo "build rc $?" >> $R/port-build.log) &
B=$!
S=".ab/rows run"
$S peak --quiet --kernel fma --precision f32,f64 --json $R/peak-skylight.json > $R/peak.txt 2>&1
$S stream --quiet --kernel copy,mul,add,triad,dot,nstream --precision f32,f64 --wg 256 --set epi=1 --samples 100 --json $R/bandwidth-skylight.json > $R/bandwidth.txt 2>&1
$S milc --quiet --precision f32,f64 --kernel dslash,dslash-fused,cg --layout aosoa-32 --set complex=pairs --set operator=fused --wg 512 --set reconstruct=18,12 --json $R/milc-skylight-1.json > $R/milc-skylight-1.txt 2>&1
$S milc --quiet --precision f32,f64 --kernel dslash,dslash-fused --layout aosoa-32 --set complex=pairs --wg 512 --set reconstruct=18,12 --runs-per-sample 20 --json $R/milc-skylight-2.json > $R/milc-skylight-2.txt 2>&1
wait $B
baselines/milc/run.sh /tmp/mb $R/milc-native.log --kernels dslash,cg --orders 2x2x2x4,2x2x2x8 --blocks 256 --reconstruct 18,12 > /dev/null 2>&1; echo "port rc $?" >> $R/port-build.log
.ab/rows native --code port --like $R/milc-skylight-1.json --like $R/milc-skylight-2.json --repository baselines/milc --commit "$(git rev-parse --short HEAD 2>/dev/null || echo worktree)+reconstruct" --build "nvcc -O3 -arch=sm_90" --json $R/milc-native.json $R/milc-native.log > $R/native.txt 2>&1
.ab/rows table $R/peak-skylight.json $R/bandwidth-skylight.json $R/milc-skylight-1.json $R/milc-skylight-2.json $R/milc-native.json > $R/table.txt 2>&1
