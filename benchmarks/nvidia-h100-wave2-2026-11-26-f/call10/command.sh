# builds: f = 8e26ab1; h = b6981a0 with gpp_accumulate's blocked loop as gpp_chain over each block's range (not committed); carry .gl .ab
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call10.sh
R=$OUT/../r10; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
G="gpp --set order=nx --set inputs=reference --samples 5 --wg 256"
scripts/ab $R/ab 2 "f=.ab/skylight-f h=.ab/skylight-h" \
 "$G --set share=16 --precision f32,df64 --set reduction=subgroup,tree" \
 "$G --set share=32 --precision f64 --set reduction=tree" > $R/ab.log 2>&1
tar czf $OUT/r10.tgz -C $R .
