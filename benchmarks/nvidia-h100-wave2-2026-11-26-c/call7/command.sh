# Device call 7 (H100): skylight-exp = the f64 clamp of call 6 folded into Y_PAD_ZERO; SKYLIGHT_PAD_ALL=1 (.ab/padall) enables it in f32 too.
mkdir -p $OUT/../c7
scripts/ab $OUT/../ab7 2 "base=.ab/skylight-exp padall=.ab/padall" \
  "snap --kernel compute_Y,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 128,256 --samples 10"
baselines/device-run .ab/skylight-exp snap
.ab/skylight-exp table --native-only native-out/*.json 2>&1 | tee $OUT/../c7/table.txt | grep -i "snap |"
.ab/skylight-exp run snap --set variant=collapse,column-major,reorder,fused --kernel compute_Y,force --precision f64 --wg 256 --samples 3 --quiet --json $OUT/../c7/snap-variants-f64.json | grep "^snap" | awk '{print $1,$2,$3,$4,$5,$10}' | tee $OUT/../c7/variants.txt
tar czf $OUT/c7.tgz -C $OUT/../c7 .
