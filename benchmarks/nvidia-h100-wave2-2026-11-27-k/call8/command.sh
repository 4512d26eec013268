set -x
R=$OUT/../r8; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $R/gpu.txt 2>&1
baselines/comd/build.sh /tmp/cb > $R/build.log 2>&1
for p in f32 f64; do
  ncu -k regex:force_cell -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    --metrics smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum \
    /tmp/cb/comd_port --sizes 80 --precisions $p --kernels force --mappings cell --wgs 128 --samples 3 --warmup-s 0 > $R/ncu-comd-$p.txt 2>&1
done
cp .ab/call8.sh $R/command.sh
tar -czf $OUT/r8.tgz -C $OUT/.. r8
