set -x
R=$OUT/../r1; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
(which ncu nsys; ls /usr/local/cuda/bin; ncu --version) > $R/tools.txt 2>&1
.ab/h stats milc --kernel dslash-fused --layout aosoa-32 --set complex=pairs --precision f32,f64 --wg 128,256,512,1024 > $R/stats-milc.txt 2>&1
.ab/h stats lbm --kernel fused,collide --layout aosoa-32 --precision f32 --wg 128,256 --set pull=load,rows > $R/stats-lbm.txt 2>&1
baselines/milc/build.sh .native/bin/milc > $R/build.log 2>&1
for p in f64 f32; do
  ncu -k regex:dslash_kernel -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Chart --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    .native/bin/milc/milc --precision $p --kernels dslash --blocks 128 --samples 3 --warmup 0 > $R/ncu-$p.txt 2>&1
done
cp .ab/call1.sh $R/command.sh
tar -czf $OUT/r1.tgz -C $OUT/.. r1
