R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
G="gpp --set reduction=subgroup --set order=nx --set inputs=reference --samples 5 --precision f64,f32"
.ab/skylight-a run $G --wg 128 --quiet --json $R/a.json > $R/a.txt 2>&1
.ab/skylight-b run $G --wg 128 --set share=1,2,4 --quiet --json $R/b128.json > $R/b128.txt 2>&1
.ab/skylight-b run $G --wg 256 --set share=1,2,4,8 --quiet --json $R/b256.json > $R/b256.txt 2>&1
.ab/skylight-b run $G --wg 512 --set share=2,4,8,16 --quiet --json $R/b512.json > $R/b512.txt 2>&1
.ab/skylight-b run gpp --set reduction=tree --set order=nx --set inputs=reference --samples 5 --precision f64,f32 --wg 128,256 --set share=1,4 --quiet --json $R/btree.json > $R/btree.txt 2>&1
.ab/skylight-a run $G --wg 128 --quiet --json $R/a2.json > $R/a2.txt 2>&1
tar czf $OUT/r3.tgz -C $R .
