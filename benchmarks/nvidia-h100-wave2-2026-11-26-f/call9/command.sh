# builds: f = 8e26ab1; g = 8e26ab1 with comd.wgsl's inside() and interact() reading the LJ coefficients from the uniform at each use (c(6u) .. c(10u)) instead of from the Lj value loaded once (not committed); carry .gl .ab
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call9.sh
R=$OUT/../r9; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
for b in f g; do .ab/skylight-$b stats comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 > $R/stats-$b.txt 2>&1; done
scripts/ab $R/ab 3 "f=.ab/skylight-f g=.ab/skylight-g" \
 "comd --size large --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
 "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" > $R/ab.log 2>&1
tar czf $OUT/r9.tgz -C $R .
