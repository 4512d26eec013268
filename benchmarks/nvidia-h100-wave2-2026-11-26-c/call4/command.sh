# Device call 4 (H100). skylight-exp = branch de-registers-experiment (de_regs: the dU row in
# registers, unrolled by the host); local = the old walk with YZERO and DEREMAKE, regs = de_regs with YZERO, noyz = de_regs alone.
mkdir -p $OUT/../c4
.ab/regs stats snap --precision f64,f32,df64 --set twojmax=8,14 --set variant=fused --wg 128 2>&1 | grep -B1 -A1 "de_regs" > $OUT/../c4/stats.txt
cat $OUT/../c4/stats.txt
tar czf $OUT/c4.tgz -C $OUT/../c4 .
scripts/ab $OUT/../ab4 2 "local=.ab/local regs=.ab/regs" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f64 --set variant=fused --wg 64,128,256 --samples 10" \
  "snap --kernel compute_dE,force --set twojmax=8,14 --precision f32 --set variant=fused --wg 64,128,256 --samples 10"
scripts/ab $OUT/../ab4d 1 "regs=.ab/regs noyz=.ab/noyz" \
  "snap --kernel compute_Y,compute_dE --set twojmax=14 --precision df64 --set variant=fused --wg 128,256 --samples 5"
baselines/device-run .ab/regs snap
.ab/regs table --native-only native-out/*.json 2>&1 | tee $OUT/../c4/table.txt | grep -i "snap |"
tar czf $OUT/c4.tgz -C $OUT/../c4 .
