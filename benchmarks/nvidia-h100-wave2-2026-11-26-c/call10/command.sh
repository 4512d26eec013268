# Device call 10 (H100): the build of f0e5d67 beside TestSNAP.
mkdir -p $OUT/../c10
baselines/device-run .ab/skylight-final snap
.ab/skylight-final table --native-only native-out/*.json 2>&1 | tee $OUT/../c10/table.txt | grep -i "snap |"
.ab/skylight-final run snap --kernel compute_U,compute_Y,compute_dE,force --set twojmax=8,14 --precision f64,f32,df64 --wg 256 --samples 10 --quiet --json $OUT/../c10/snap-kernels.json | grep "^snap" | awk '{print $1,$2,$3,$4,$5,$10}' | tee $OUT/../c10/kernels.txt
tar czf $OUT/c10.tgz -C $OUT/../c10 .
