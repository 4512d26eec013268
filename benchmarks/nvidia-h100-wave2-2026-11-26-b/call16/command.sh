mkdir -p $OUT/../c16
baselines/device-run .ab/skylight-final su3 snap comd stream
.ab/skylight-final table --native-only native-out/*.json > $OUT/../c16/table.txt 2>&1; cat $OUT/../c16/table.txt
.ab/skylight-final run all --quiet --json $OUT/../c16/all.json > $OUT/../c16/all.txt 2>&1; echo "run all rc=$?"
grep -c " ok " $OUT/../c16/all.txt; grep -E "FAIL|ERROR|failed" $OUT/../c16/all.txt | head; tail -3 $OUT/../c16/all.txt
tar czf $OUT/c16.tgz -C $OUT/../c16 .
