R=$OUT/../r9; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
scripts/ab $R/ab 2 "old=.ab/skylight-b d32=.ab/skylight-d d8=.ab/d8 d128=.ab/d128" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 256,512 --set share=16 --precision f64" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 256 --set share=1,16 --precision f32,df64" \
 "gpp --set order=nx --set inputs=reference --samples 5 --set reduction=tree --set unroll=6 --wg 256 --set share=1 --precision f64" > $R/ab.log 2>&1
grep -h "max rel" $R/ab/*.txt | sed -E 's/ +[0-9.]+ (ms|us).*max rel. error ([0-9.e-]+) \(tol.*/ \2/' | sort | uniq > $R/errors.txt
tar czf $OUT/r9.tgz -C $R .
