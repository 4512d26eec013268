# Device call 11 (H100): skylight-exp = f0e5d67 plus the fused step (clear_cells, advance_bin, gather_cells, force with the kick);
# SKYLIGHT_STEP_OLD=1 the seven-pass step, SKYLIGHT_MAXCELL=1 the occupancy maximum taken per cell in gather_cells.
mkdir -p $OUT/../c11
.ab/old run comd --size large --kernel advance_velocity,advance_position,redistribute,force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10 --quiet | grep "^comd" | awk '{print $1,$2,$3,$4,$5,$10}' | tee $OUT/../c11/breakdown.txt
tar czf $OUT/c11.tgz -C $OUT/../c11 .
scripts/ab $OUT/../ab11 2 "old=.ab/old oldmax=.ab/oldmax fused=.ab/skylight-exp fusedmax=.ab/fusedmax" \
  "comd --size large --kernel redistribute,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
baselines/device-run .ab/fusedmax comd
.ab/skylight-exp table --native-only native-out/*.json 2>&1 | tee $OUT/../c11/table.txt | grep -i "comd |"
tar czf $OUT/c11.tgz -C $OUT/../c11 .
