# build: skylight-f = 8e26ab1 (release, stripped); carry .gl .ab .native .baselines-bin
# .native/src: baselines/export-sources of BabelStream 57637d5, su3_bench dce01b6, Ludwig 7a12d00 (src target mpi_s Makefile.mk version.h); .baselines-bin: snap (TestSNAP Kokkos_V2), gpp (BerkeleyGW-Kernels-CPP Kokkos 5ef713b), both Kokkos 3.7.02 / nvcc 11.8
# device: gunzip .ab/*.gz; chmod +x .ab/*; . scripts/gpu-setup; bash .ab/call7.sh
R=$OUT/../r7; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt
start=$SECONDS
.ab/skylight-f run all --quiet --json $R/all.json > $R/all.txt 2>&1; echo "run all rc=$? in $((SECONDS-start)) s" >> $R/all.txt
tar czf $OUT/r7.tgz -C $R .
start=$SECONDS
baselines/device-run .ab/skylight-f lbm su3 > $R/native.log 2>&1; echo "device-run rc=$? in $((SECONDS-start)) s" >> $R/native.log
tar czf $OUT/r7.tgz -C $R .
