set -x
R=$OUT/../r6; mkdir -p $R
pack() { cp .ab/call6.sh $R/command.sh; tar -czf $OUT/r6.tgz -C $OUT/.. r6; }
trap pack EXIT
.ab/ir stats milc --kernel dslash-fused --set complex=pairs --layout aosoa-32 --wg 256 --set tile-t=8 --precision f32 --ir $R/ir-milc > $R/stats-milc.txt 2>&1
ls -la $R/ir-milc > $R/ir-ls.txt 2>&1
for f in $R/ir-milc/*.bin; do [ -f "$f" ] && { file "$f"; head -c 64 "$f" | xxd; cuobjdump -sass "$f" 2>&1 | head -5; nvdisasm "$f" 2>&1 | head -5; } >> $R/bin-probe.txt 2>&1; done
