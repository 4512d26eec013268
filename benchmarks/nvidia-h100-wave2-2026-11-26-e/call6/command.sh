R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --wg 256,512 --set share=1,4,8,16 --set unroll=5,6,8"
.ab/skylight-b run peak --kernel fma --precision f64,f32 --quiet --json $R/peak.json > $R/peak.txt 2>&1
.ab/skylight-b run $G --set reduction=tree,subgroup --precision f64 --quiet --json $R/f64.json > $R/f64.txt 2>&1
.ab/skylight-b run $G --set reduction=tree,subgroup --precision f32 --quiet --json $R/f32.json > $R/f32.txt 2>&1
.ab/skylight-b run $G --set reduction=tree --precision df64 --quiet --json $R/df64.json > $R/df64.txt 2>&1
.ab/skylight-a run gpp --set order=nx --set inputs=reference --samples 5 --wg 128,256 --set reduction=tree,subgroup --precision f64,f32,df64 --quiet --json $R/a.json > $R/a.txt 2>&1
tar czf $OUT/r6.tgz -C $R .
