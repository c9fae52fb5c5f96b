#!/usr/bin/env bash
# The grayscale kernel's L2 hit rate over the default sweep's 13 block sizes, where --counters read
# about 2 percent below Nsight Compute's own reading of a sweep of one block size: Nsight Compute
# run by hand over the replay of the same 13-size sweep (BLOCK_SIZE_COUNTERS_REPLAY set, every
# metric --counters reads), then --counters, twice. One archive, $OUT/counters4.tgz.
set -u
R=$PWD
B=$R/.device/counters/target/release
W=/tmp/counters4 && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
M=dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/counters/COMMIT) ($(cat $R/.device/counters/STATE))"
  for round in 1 2; do
    echo "################ round $round: ncu --clock-control none --cache-control all --metrics (--counters') --csv --page raw --print-units base, over block-size-cuda with BLOCK_SIZE_COUNTERS_REPLAY set"
    BLOCK_SIZE_COUNTERS_REPLAY=0:$W/launched ncu --clock-control none --cache-control all --metrics $M --csv --page raw --print-units base $B/block-size-cuda 2>&1 | grep '^"' > replay13-$round.csv
    echo "################ round $round: block-size --counters --json counters13-$round.json"
    $B/block-size --counters --json counters13-$round.json > /dev/null 2>&1; echo "# exit status: $?"
  done
} > counters4.txt 2>&1
tar czf "$OUT/counters4.tgz" counters4.txt replay13-*.csv counters13-*.json launched
cat counters4.txt
