# Device call 12 (H100): skylight-c11 = call 11's build; skylight-new = every pass loading an atom's inputs before storing (the load-first kicks, drift, gather and fused step);
# c11old / newold set SKYLIGHT_STEP_OLD=1 (the seven-pass step).
mkdir -p $OUT/../c12
scripts/ab $OUT/../ab12 2 "c11old=.ab/c11old c11=.ab/skylight-c11 newold=.ab/newold new=.ab/skylight-new" \
  "comd --size large --kernel advance_velocity,advance_position,redistribute,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
baselines/device-run .ab/skylight-new comd
.ab/skylight-new table --native-only native-out/*.json 2>&1 | tee $OUT/../c12/table.txt | grep -i "comd |"
tar czf $OUT/c12.tgz -C $OUT/../c12 .
