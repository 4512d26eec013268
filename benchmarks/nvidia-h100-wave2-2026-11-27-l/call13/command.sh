baselines/device-run .ab/h milc > native-out-run.txt 2>&1
cp native-out-run.txt native-out/logs/device-run.txt; cp .ab/call13.sh native-out/command.sh
tar -czf $OUT/native.tgz -C native-out .
