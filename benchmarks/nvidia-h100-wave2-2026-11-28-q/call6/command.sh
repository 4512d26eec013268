gunzip -f .ab/*.gz; chmod +x .ab/h; . scripts/gpu-setup; mkdir -p $OUT/../r6
timeout 300 .ab/h run all --quiet --json $OUT/../r6/all.json > $OUT/../r6/all.txt 2>&1
tar -czf $OUT/r6.tgz -C $OUT/.. r6
