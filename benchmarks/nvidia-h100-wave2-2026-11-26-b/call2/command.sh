B="base=.ab/skylight-base nozero=.ab/skylight-nozero"
scripts/ab $OUT/../ab2 2 "$B" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 --set round=9,27 --samples 10" \
 "snap --kernel compute_U,force --set twojmax=8,14 --precision f64 --wg 256 --samples 5" \
 "gpp --precision f64,df64 --set reduction=subgroup --set order=nx --set inputs=reference --wg 128 --set unroll=5 --samples 5" \
 "milc --kernel dot,cg --layout soa --precision f32,f64 --wg 256" \
 "stream --kernel dot --precision f32,f64"
