scripts/ab $OUT/../ab5 2 "base=.ab/skylight-base stage=.ab/skylight-stage stage2=.ab/skylight-stage2" \
 "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
mkdir -p $OUT/../c5
.ab/skylight-stage2 run comd --size large --kernel force --set variant=cell --layout aos --wg 64,128,256 --precision f32,f64 --set stage=128,192,256,320,384,512,768 --samples 10 --quiet --json $OUT/../c5/sweep.json | grep "^comd" | awk '{print $2,$3,$4,$5,$10}'
.ab/skylight-stage2 stats comd --size small --precision f32,f64 --set variant=cell --layout aos --wg 128 --set stage=256 2>&1 | grep -A1 force_cell
tar czf $OUT/c5.tgz -C $OUT/../c5 .
