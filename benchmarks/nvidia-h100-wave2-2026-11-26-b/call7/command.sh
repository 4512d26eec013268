baselines/device-run .ab/skylight-new comd stream
mkdir -p $OUT/../c7
.ab/skylight-new stats snap --precision f64 --set twojmax=14 --set variant=fused --wg 256 > $OUT/../c7/snap-stats.txt 2>&1
.ab/skylight-new stats comd --size large --precision f32,f64,df64 --set variant=cell --layout aos --wg 128 > $OUT/../c7/comd-stats.txt 2>&1
cat $OUT/../c7/snap-stats.txt | grep -B1 "Register" | head -40
.ab/skylight-new table --native-only native-out/*.json > $OUT/../c7/table.txt 2>&1; cat $OUT/../c7/table.txt
tar czf $OUT/c7.tgz -C $OUT/../c7 .
