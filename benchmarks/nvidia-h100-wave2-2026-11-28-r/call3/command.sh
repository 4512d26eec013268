timeout 585 baselines/device-run .ab/h milc > $OUT/device-run.txt 2>&1
.ab/h table --native-only native-out/*.json > $OUT/table.txt 2>&1
