set -x
R=$OUT/../r3; mkdir -p $R
pack() { cp .ab/call3.sh .ab/*.diff $R/; tar -czf $OUT/r3.tgz -C $OUT/.. r3; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
# diagnostics of the port: loads kept from crossing directions (barrier), a kept loop over directions (loop)
for v in barrier loop; do rm -rf /tmp/p-$v && cp -r baselines/milc /tmp/p-$v && patch /tmp/p-$v/src/wilson.cuh < .ab/$v.diff > $R/patch-$v.txt 2>&1; done
baselines/milc/build.sh /tmp/b-orig > $R/build-orig.log 2>&1 &
/tmp/p-barrier/build.sh /tmp/b-barrier > $R/build-barrier.log 2>&1 &
/tmp/p-loop/build.sh /tmp/b-loop > $R/build-loop.log 2>&1; wait
for v in orig barrier loop; do grep -A1 "dslash_kernel" $R/build-$v.log | grep -E "Used" | head -20 > $R/regs-$v.txt; ls -la /tmp/b-$v/milc >> $R/built.txt; done
for r in 1 2; do for v in orig barrier loop; do /tmp/b-$v/milc --precision f32,f64 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 50 > $R/port-$v-r$r.txt 2>&1; done; done
