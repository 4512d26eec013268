mkdir -p $OUT/../c8
.ab/skylight-new run comd --samples 3 --quiet --json $OUT/../c8/comd-default.json | grep -E "^comd" | awk '{print $1,$2,$3,$4,$5,$10}'
.ab/skylight-new run comd --size large --kernel force,step --set variant=cell --layout aos,soa,aos4 --precision f32,f64,df64 --samples 3 --quiet --json $OUT/../c8/comd-large.json | grep -E "^comd" | awk '{print $1,$2,$3,$4,$5,$10}'
tar czf $OUT/c8.tgz -C $OUT/../c8 .
