R=$OUT/../r7; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree,subgroup --set unroll=6"
.ab/skylight-b run $G --wg 128 --set share=8,16,32 --precision f64,f32 --quiet --json $R/w128.json > $R/w128.txt 2>&1
.ab/skylight-b run $G --wg 256 --set share=16,32,64 --precision f64,f32 --quiet --json $R/w256.json > $R/w256.txt 2>&1
.ab/skylight-b run $G --wg 512 --set share=16,32,64 --precision f64,f32 --quiet --json $R/w512.json > $R/w512.txt 2>&1
.ab/skylight-b run gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 128,256 --set share=16,32 --precision df64 --quiet --json $R/df64.json > $R/df64.txt 2>&1
tar czf $OUT/r7.tgz -C $R .
