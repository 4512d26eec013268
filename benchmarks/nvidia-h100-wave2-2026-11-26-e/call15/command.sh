R=$OUT/../r15; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
.ab/skylight-h run peak --kernel fma --precision f64 --quiet --json $R/peak.json > $R/peak.txt 2>&1
start=$SECONDS
.ab/skylight-h run all --quiet --json $R/all.json > $R/all.txt 2>&1; echo "run all rc=$? in $((SECONDS-start)) s" >> $R/all.txt
tar czf $OUT/r15.tgz -C $R .
