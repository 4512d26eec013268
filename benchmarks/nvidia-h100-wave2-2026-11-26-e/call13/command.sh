R=$OUT/../r13; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
scripts/ab $R/ab 2 "h4=.ab/skylight-g h2=.ab/h2 h8=.ab/h8" \
 "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f64 --samples 10" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 64,256 --precision f64 --samples 10" > $R/ab.log 2>&1
for b in skylight-g h2 h8; do .ab/$b stats comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f64 > $R/stats-$b.txt 2>&1; done
tar czf $OUT/r13.tgz -C $R .
