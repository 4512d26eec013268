# build: skylight-e = 25f8096 with the experimental SKYLIGHT_NO_ZERO_INIT switch of call 4 (not committed); carry .gl .ab
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call6.sh
R=$OUT/../r6; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
for s in 0 512; do
 SKYLIGHT_NO_ZERO_INIT=1 .ab/skylight-e stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --set stage=$s > $R/stats-off-s$s.txt 2>&1
done
for z in on off; do
 if [ $z = off ]; then export SKYLIGHT_NO_ZERO_INIT=1; fi
 .ab/skylight-e run comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,256,512 --samples 10 --quiet --json $R/large-$z.json > $R/large-$z.txt 2>&1
done
tar czf $OUT/r6.tgz -C $R .
