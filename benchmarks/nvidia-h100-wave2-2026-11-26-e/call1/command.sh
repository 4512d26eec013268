R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for b in a b; do .ab/skylight-$b stats gpp --precision f64 --set reduction=subgroup --set order=nx --set inputs=reference --wg 128 > $R/stats-gpp-$b.txt 2>&1; done
scripts/ab $R/ab 3 "a=.ab/skylight-a b=.ab/skylight-b" \
 "gpp --precision f64 --set reduction=subgroup --set order=nx --set inputs=reference --wg 128 --samples 5" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f64 --samples 10" \
 "snap --kernel compute_U,compute_dE,force --twojmax 14 --precision f64 --samples 10" > $R/ab.log 2>&1
tar czf $OUT/r1.tgz -C $R .
