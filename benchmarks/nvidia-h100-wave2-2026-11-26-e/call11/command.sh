R=$OUT/../r11; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
.ab/skylight-e run peak --kernel fma --precision f64,f32 --quiet --json $R/peak.json > $R/peak.txt 2>&1
scripts/ab $R/ab 1 "old=.ab/skylight-b new=.ab/skylight-e" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 512 --set share=16 --precision f64" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree,subgroup --set unroll=6 --wg 256 --set share=1,16 --precision f64,f32,df64" > $R/ab.log 2>&1
start=$SECONDS
.ab/skylight-e run all --quiet --json $R/all.json > $R/all.txt 2>&1; echo "run all rc=$? in $((SECONDS-start)) s" >> $R/all.txt
tar czf $OUT/r11.tgz -C $R .
