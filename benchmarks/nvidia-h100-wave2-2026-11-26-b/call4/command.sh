scripts/ab $OUT/../ab4 2 "base=.ab/skylight-base stage=.ab/skylight-stage" \
 "comd --size large --kernel force,step --set variant=cell --layout aos --wg 128 --precision f32,f64 --samples 10"
mkdir -p $OUT/../c4
.ab/skylight-stage run comd --size large --kernel force --set variant=cell --layout aos,soa --wg 64,128,256 --precision f32,f64 --set stage=128,192,256,384,512 --samples 10 --quiet --json $OUT/../c4/sweep.json | grep "^comd" | awk '{print $2,$3,$4,$5,$10}'
.ab/skylight-stage stats comd --size small --precision f32,f64 --set variant=cell --layout aos --wg 128 --set stage=256 2>&1 | grep -A1 force_cell
tar czf $OUT/c4.tgz -C $OUT/../c4 .
