baselines/device-run .ab/skylight-new snap
mkdir -p $OUT/../c12
.ab/skylight-new run snap --kernel compute_U,compute_Y,force --set twojmax=8,14 --precision f32,f64 --set variant=reorder,fused,column-major --wg 256 --samples 5 --quiet --json $OUT/../c12/snap-variants.json | grep "^snap" | awk '{print $1,$2,$3,$4,$5,$10}'
.ab/skylight-new table --native-only native-out/*.json > $OUT/../c12/table.txt 2>&1; cat $OUT/../c12/table.txt
tar czf $OUT/c12.tgz -C $OUT/../c12 .
