# build: skylight-e = 25f8096 with the experimental SKYLIGHT_NO_ZERO_INIT switch of call 4 (not committed); carry .gl .ab
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call5.sh
R=$OUT/../r5; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
for s in 0 256 512; do
 .ab/skylight-e stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --set stage=$s > $R/stats-s$s.txt 2>&1
done
.ab/skylight-e stats comd --size large --kernel force --precision f64 --layout aos --set variant=atom --wg 128 > $R/stats-atom.txt 2>&1
tar czf $OUT/r5.tgz -C $R .
