set -x
R=$OUT/../r11; mkdir -p $R
.ab/last run all --json $R/all.json > $R/all.txt 2>&1
baselines/device-run .ab/last comd > $R/device-run.log 2>&1
cp -r native-out $R/native-out
cp .ab/call11.sh $R/command.sh
tar -czf $OUT/r11.tgz -C $OUT/.. r11
