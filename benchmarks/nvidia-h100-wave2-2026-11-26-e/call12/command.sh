R=$OUT/../r12; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
scripts/ab $R/ab 2 "plain=.ab/plain filt=.ab/skylight-f" \
 "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f64 --samples 10" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 64,256 --precision f64 --samples 10" \
 "comd --size default --kernel force,step --set variant=cell --layout aos --wg 128 --precision f64 --samples 10" > $R/ab.log 2>&1
for b in plain skylight-f; do .ab/$b stats comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f64 > $R/stats-$b.txt 2>&1; done
tar czf $OUT/r12.tgz -C $R .
