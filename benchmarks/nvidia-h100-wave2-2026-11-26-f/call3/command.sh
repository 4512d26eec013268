# build: skylight-d = 25f8096 (built as bd73b24 + r_sq_add_raw); carry .gl .ab (and .native, .baselines-bin for device-run; comd builds from baselines/comd/src)
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call3.sh
R=$OUT/../r3; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
S=.ab/skylight-d
$S run comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 64,128,256 --set stage=0,256,512,1024 --quiet --json $R/stage-default.json > $R/stage-default.txt 2>&1
$S run comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --set stage=0,256,512 --samples 10 --quiet --json $R/stage-large.json > $R/stage-large.txt 2>&1
start=$SECONDS
baselines/device-run $S comd > $R/native.log 2>&1; echo "device-run rc=$? in $((SECONDS-start)) s" >> $R/native.log
tar czf $OUT/r3.tgz -C $R .
