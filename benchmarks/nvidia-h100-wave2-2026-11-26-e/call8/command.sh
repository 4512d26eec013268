R=$OUT/../r8; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
scripts/ab $R/ab 2 "none=.ab/skylight-c blk=.ab/blk shr=.ab/shr" \
 "gpp --set order=nx --set inputs=reference,random --samples 5 --set reduction=tree --set unroll=6 --wg 256,512 --set share=16 --precision f64" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 256 --set share=1,16 --precision f32,df64" > $R/ab.log 2>&1
for b in skylight-c blk shr; do .ab/$b stats gpp --set order=nx --set inputs=reference --set reduction=tree --set unroll=6 --wg 256,512 --set share=16 --precision f64,df64 > $R/stats-$b.txt 2>&1; done
grep -h "max rel" $R/ab/*.txt | sed -E 's/ +[0-9.]+ (ms|us).*max rel. error ([0-9.e-]+) \(tol.*/ \2/' | sort | uniq > $R/errors.txt
tar czf $OUT/r8.tgz -C $R .
