R=$OUT/../r8; mkdir -p $R
export __GL_SHADER_DISK_CACHE_PATH=/tmp/glc __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
rm -rf /tmp/glc; mkdir -p /tmp/glc
.ab/u run milc --kernel dslash-fused --set complex=pairs --layout aosoa-32 --wg 256 --set tile-t=8 --precision f32 --size small --samples 3 > $R/run.txt 2>&1
cp -r /tmp/glc $R/
cp .ab/call8.sh $R/command.sh; tar -czf $OUT/r8.tgz -C $OUT/.. r8
