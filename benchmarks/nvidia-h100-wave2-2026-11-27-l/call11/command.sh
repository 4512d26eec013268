set -x
baselines/device-run .ab/h milc > $OUT/../device-run.txt 2>&1
.ab/h run stream --kernel copy,triad --precision f32,f64 --samples 30 --json native-out/stream.json > native-out/logs/stream.txt 2>&1
cp $OUT/../device-run.txt native-out/logs/; cp .ab/call11.sh native-out/command.sh
tar -czf $OUT/native.tgz -C native-out .
