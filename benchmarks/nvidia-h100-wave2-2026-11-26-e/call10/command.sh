R=$OUT/../r10; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6"
.ab/skylight-d run peak --kernel fma --precision f64,f32 --quiet --json $R/peak.json > $R/peak.txt 2>&1
.ab/skylight-d run $G --wg 256,512 --set share=1,4,8,16 --precision f64,f32 --quiet --json $R/d.json > $R/d.txt 2>&1
.ab/skylight-d run $G --wg 256,512 --set share=4,8,16 --precision df64 --quiet --json $R/ddf.json > $R/ddf.txt 2>&1
.ab/skylight-d run gpp --set order=nx --set inputs=random --samples 5 --set reduction=tree,subgroup --set unroll=6 --wg 256,512 --set share=16 --precision f64,f32,df64 --quiet --json $R/drand.json > $R/drand.txt 2>&1
.ab/skylight-b run $G --wg 512 --set share=16 --precision f64 --quiet --json $R/b.json > $R/b.txt 2>&1
tar czf $OUT/r10.tgz -C $R .
