# builds: a = d020741, b = d020741 + r_sub_sloppy_raw (the commit after it); carry .gl .ab
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call1.sh
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --wg 256 --set share=16 --precision df64"
for b in a b; do .ab/skylight-$b stats $G --set reduction=subgroup --set unroll=6 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/ab 3 "a=.ab/skylight-a b=.ab/skylight-b" \
 "$G --set reduction=subgroup,tree --set unroll=6" > $R/ab.log 2>&1
.ab/skylight-b run $G --set reduction=subgroup --set unroll=4,8,10 --quiet --json $R/unroll.json > $R/unroll.txt 2>&1
tar czf $OUT/r1.tgz -C $R .
