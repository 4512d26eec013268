set -x
R=$OUT/../r7; mkdir -p $R
pack() { cp .ab/call7.sh $R/command.sh; tar -czf $OUT/r7.tgz -C $OUT/.. r7; }
trap pack EXIT
export __GL_SHADER_DISK_CACHE_PATH=/tmp/glc __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
rm -rf /tmp/glc; mkdir -p /tmp/glc
.ab/u run milc --kernel dslash-fused --set complex=pairs --layout aosoa-32 --wg 256 --set tile-t=8 --precision f32 --size small --samples 3 > $R/run.txt 2>&1
find /tmp/glc -type f -exec ls -la {} \; > $R/glc-ls.txt
python3 .ab/carve.py /tmp/glc $R/elf > $R/carve.txt 2>&1
for f in $R/elf/*.elf; do echo "== $f"; cuobjdump -sass $f 2>&1 | head -3; nvdisasm -c $f 2>&1 | wc -l; done > $R/probe.txt 2>&1
for f in $R/elf/*.elf; do nvdisasm -c $f > ${f%.elf}.sass 2>&1; done
