# build: skylight-e = 25f8096 with an experimental switch (not committed): SKYLIGHT_NO_ZERO_INIT set makes wgpu skip zero-initialising workgroup memory (PipelineCompilationOptions) and naga emit no polyfill in the precise df64 path; zi-on / zi-off are the two wrappers
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call4.sh
R=$OUT/../r4; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
scripts/ab $R/zi 2 "on=.ab/zi-on off=.ab/zi-off" \
 "comd --size large --kernel force --precision f32,f64 --layout aos --set variant=cell --wg 128 --samples 10" \
 "comd --size default --kernel force,step --precision f32,f64 --layout aos --set variant=cell --wg 128,256 --set stage=0,512" \
 "snap --kernel force --precision f64,f32 --set twojmax=8,14 --set variant=reorder,fused --wg 128 --samples 10" \
 "gpp --set order=nx --set inputs=reference --samples 5 --precision f64,f32 --set reduction=subgroup,tree" \
 "stream --kernel dot --precision f32,f64 --wg 256 --set epi=1" \
 "milc --precision f32,f64 --kernel cg --layout aosoa-32 --set operator=fused --set complex=pairs --wg 512" > $R/zi.log 2>&1
tar czf $OUT/r4.tgz -C $R .
