# builds: b = bd73b24, c = bd73b24 + r_sq_add_raw (the commit after it; f32, f64, stream and comd compile the same as b); carry .gl .ab .native .baselines-bin
# .native/src: baselines/export-sources BabelStream 57637d5; .baselines-bin/gpp: baselines/gpp/build.sh (BerkeleyGW-Kernels-CPP Kokkos 5ef713b, Kokkos 3.7.02)
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call2.sh
R=$OUT/../r2; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --wg 256 --set share=16 --precision df64"
.ab/skylight-c stats $G --set reduction=subgroup --set unroll=6 > $R/stats-c.txt 2>&1
scripts/ab $R/ab 3 "b=.ab/skylight-b c=.ab/skylight-c" \
 "$G --set reduction=subgroup,tree --set unroll=6" > $R/ab.log 2>&1
start=$SECONDS
baselines/device-run .ab/skylight-c gpp stream comd > $R/native.log 2>&1; echo "device-run rc=$? in $((SECONDS-start)) s" >> $R/native.log
tar czf $OUT/r2.tgz -C $R .
