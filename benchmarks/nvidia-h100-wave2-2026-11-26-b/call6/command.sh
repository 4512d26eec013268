scripts/ab $OUT/../ab6 2 "base=.ab/skylight-base stage2=.ab/skylight-stage2 stage3=.ab/skylight-stage3" \
 "comd --size large --kernel force --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
mkdir -p $OUT/../c6
.ab/skylight-stage3 run comd --size large --kernel force --set variant=cell --layout aos --wg 128,256 --precision f32,f64 --set stage=128,192,256,384,512 --samples 10 --quiet --json $OUT/../c6/sweep.json | grep "^comd" | awk '{print $2,$3,$4,$5,$10}'
.ab/skylight-stage3 stats comd --size small --precision f32,f64 --set variant=cell --layout aos --wg 128 --set stage=256 2>&1 | grep -A1 force_cell
tar czf $OUT/c6.tgz -C $OUT/../c6 .
