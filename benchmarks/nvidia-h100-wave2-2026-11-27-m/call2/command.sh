set -x
R=$OUT/../r2; mkdir -p $R
pack() { cp .ab/call2.sh $R/command.sh; tar -czf $OUT/r2.tgz -C $OUT/.. r2; }
trap pack EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
# diagnostic: the port with plain loads in place of __ldg
rm -rf /tmp/mp && cp -r baselines/milc /tmp/mp
sed -i 's/return __ldg(p);/return *p;/' /tmp/mp/src/wilson.cuh
sed -i "s/__restrict__//g" /tmp/mp/src/kernels.cuh
grep -n "return \*p;" /tmp/mp/src/wilson.cuh > $R/patch.txt
baselines/milc/build.sh /tmp/mb > $R/build.log 2>&1 &
/tmp/mp/build.sh /tmp/mbp > $R/build-plain.log 2>&1; wait
grep -E "registers|Function properties for _Z" $R/build.log | grep -B1 -i "registers" | head -60 > $R/regs.txt
grep -E "registers" $R/build-plain.log | head -60 > $R/regs-plain.txt
for r in 1 2; do for b in mb mbp; do /tmp/$b/milc --precision f32,f64 --kernels dslash --orders 2x2x2x8 --blocks 256 --samples 50 > $R/port-$b-r$r.txt 2>&1; done; done
for b in mb mbp; do cuobjdump -sass /tmp/$b/milc | grep -oE "LDG[.A-Z0-9]*" | sort | uniq -c > $R/ldg-$b.txt 2>&1; done
.ab/h run milc --set complex=pairs --precision f32 --kernel dslash-fused --layout soa,aosoa-32 --wg 256,512 --set tile-t=4,8 --samples 50 --json $R/sky.json > $R/sky.txt 2>&1
