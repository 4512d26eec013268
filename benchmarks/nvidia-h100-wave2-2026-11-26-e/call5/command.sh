R=$OUT/../r5; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
for round in 1 2; do
.ab/skylight-b run peak --kernel fma --precision f64 --quiet --json $R/peak-$round.json > $R/peak-$round.txt 2>&1
.ab/skylight-a run gpp --set reduction=subgroup --set order=nx --set inputs=reference --samples 5 --precision f64 --wg 128 --quiet --json $R/a-$round.json > $R/a-$round.txt 2>&1
.ab/skylight-b run gpp --set reduction=tree,subgroup --set order=nx --set inputs=reference --samples 5 --precision f64 --wg 512 --set share=8,16 --set unroll=4,5,6,8 --quiet --json $R/b-$round.json > $R/b-$round.txt 2>&1
done
.ab/skylight-b run gpp --set reduction=tree --set order=xn --set inputs=reference --samples 5 --precision f64 --wg 512 --set share=16 --quiet --json $R/bxn.json > $R/bxn.txt 2>&1
.ab/skylight-b run gpp --set reduction=tree --set order=nx --set inputs=reference --samples 5 --precision f32,df64 --wg 256,512 --set share=1,4,16 --quiet --json $R/bp.json > $R/bp.txt 2>&1
tar czf $OUT/r5.tgz -C $R .
