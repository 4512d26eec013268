set -x
R=$OUT/../r5; mkdir -p $R
pack() { cp .ab/call5.sh $R/command.sh; tar -czf $OUT/r5.tgz -C $OUT/.. r5; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
# diagnostic: the port held to 64 registers a thread, as the Vulkan driver compiles Skylight's f32 D
rm -rf /tmp/p64 && cp -r baselines/milc /tmp/p64 && sed -i '101s/__launch_bounds__(MAX_BLOCK)/__launch_bounds__(MAX_BLOCK, 4)/' /tmp/p64/src/kernels.cuh && sed -n 100,103p /tmp/p64/src/kernels.cuh > $R/patch.txt
baselines/milc/build.sh /tmp/b-orig > $R/build-orig.log 2>&1 &
/tmp/p64/build.sh /tmp/b-r64 > $R/build-r64.log 2>&1; wait
for v in orig r64; do grep -A3 "Compiling entry function '_ZN4port13dslash_kernelIf" $R/build-$v.log | grep -E "Compiling|Used|spill" > $R/regs-$v.txt; done
for r in 1 2; do for v in orig r64; do /tmp/b-$v/milc --precision f32,f64 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 50 > $R/port-$v-r$r.txt 2>&1; done; done
