set -x
B="base=.ab/skylight-base pair=.ab/skylight-pair int64=.ab/skylight-int64"
scripts/ab $OUT/../ab1 2 "$B" \
 "gpp --precision f64 --set reduction=subgroup --set order=nx --set inputs=reference --wg 128,256 --set unroll=5,8 --samples 5" \
 "gpp --precision f32 --set reduction=subgroup --set order=nx --set inputs=reference --wg 256 --set unroll=5 --samples 5" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f64 --samples 10" \
 "snap --kernel compute_U,force --set twojmax=14 --precision f64 --wg 256 --samples 5"
mkdir -p $OUT/../st
for b in base pair int64; do
 .ab/skylight-$b stats gpp --size 64,80,4096 --precision f64,f32 --set reduction=subgroup --set order=nx --wg 128 > $OUT/../st/gpp-$b.txt 2>&1
 .ab/skylight-$b stats comd --size small --precision f64 --set variant=cell --layout aos --wg 128 > $OUT/../st/comd-$b.txt 2>&1
done
tar czf $OUT/st.tgz -C $OUT/../st .
