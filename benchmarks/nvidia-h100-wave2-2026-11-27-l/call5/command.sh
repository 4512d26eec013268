set -x
R=$OUT/../r5; mkdir -p $R
pack() { cp .ab/call5.sh $R/command.sh; tar -czf $OUT/r5.tgz -C $OUT/.. r5; }
trap pack EXIT
baselines/milc/build.sh /tmp/mb > $R/build-milc.log 2>&1 &
baselines/comd/build.sh /tmp/cb > $R/build-comd.log 2>&1 &
.ab/ir stats milc --kernel dslash-fused --set complex=pairs --layout aosoa-32 --wg 256 --set tile-t=8 --precision f32,f64 --ir $R/ir-milc > $R/stats-milc.txt 2>&1
.ab/ir stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --ir $R/ir-comd > $R/stats-comd.txt 2>&1
wait
cuobjdump -sass /tmp/mb/milc > $R/sass-milc.txt 2>&1
ls /tmp/cb > $R/cb-ls.txt
for f in /tmp/cb/*; do [ -x $f ] && cuobjdump -sass $f > $R/sass-comd-$(basename $f).txt 2>&1; done
ls -la $R/ir-milc $R/ir-comd > $R/ir-ls.txt 2>&1
