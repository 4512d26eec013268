mkdir -p $OUT/../c17
baselines/device-run .ab/skylight-final comd
.ab/skylight-final table --native-only native-out/*.json > $OUT/../c17/table.txt 2>&1; cat $OUT/../c17/table.txt
tar czf $OUT/c17.tgz -C $OUT/../c17 .
