#!/usr/bin/env bash
# Issue 47's --counters on the H200: the default sweep (grayscale 3840 x 2160, the seed's 13
# block sizes) and the luma histogram at 256 and 4096 bins with --counters; the default sweep
# without them, alternated with it twice, for the times; `compare --counters` of a fresh
# `block-size new --cuda` project's kernel against its CUDA C++ twin, and its sweep; Nsight
# Compute's own reading of the same kernels, configurations and input (the first launch of a
# sweep at one block size, the metrics block-size asks for, the same --clock-control none and
# --cache-control all), twice, for compare.py; and the CLI's GPU tests (REQUIRE_GPU=1). Binaries
# staged by stage.sh. Everything ends in one archive, $OUT/counters.tgz.
set -u
R=$PWD
B=$R/.device/counters/target/release
W=/tmp/counters && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/counters/COMMIT) ($(cat $R/.device/counters/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
# The metrics block-size asks for (runner/src/measure/profiler/ncu.rs, METRICS).
M=dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
{
  stamp
  run ncu --version
  run $B/block-size --counters --provenance --json default-counters-1.json
  run $B/block-size --json default-plain-1.json
  run $B/block-size --counters --json default-counters-2.json
  run $B/block-size --json default-plain-2.json
  run $B/block-size --kernel histogram --bins 256 --counters --json histogram-256.json
  run $B/block-size --kernel histogram --bins 4096 --counters --json histogram-4096.json
  run $B/scaf --counters --json scaf-sweep.json
  run $B/scaf compare --counters --json scaf-compare.json
} > counters.txt 2>&1
# Nsight Compute's own reading: the first launch at one block size of the same sweep; twice, for
# its own spread from one process to the next.
for pass in 1 2; do
{
  stamp
  for threads in 32 256 1024; do
    echo "################ grayscale $threads"
    ncu --clock-control none --cache-control all --metrics $M -k regex:^grayscale$ -c 1 --csv --page raw --print-units base \
      $B/block-size-cuda --block-sizes $threads --timing launch --warmups 0 --runs 1 --search exhaustive 2>&1 | grep '^"'
  done
  for bins in 256 4096; do
    echo "################ histogram $bins 256"
    ncu --clock-control none --cache-control all --metrics $M -k regex:^histogram -c 1 --csv --page raw --print-units base \
      $B/block-size-cuda --kernel histogram --bins $bins --block-sizes 256 --timing launch --warmups 0 --runs 1 --search exhaustive 2>&1 | grep '^"'
  done
  echo "################ scaf 256"
  ncu --clock-control none --cache-control all --metrics $M -k regex:^stencil3$ -c 1 --csv --page raw --print-units base \
    $B/scaf-cuda --block-sizes 256 --timing launch --warmups 0 --runs 1 --search exhaustive 2>&1 | grep '^"'
} > ncu-own-$pass.txt 2>&1
done
{
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 $R/.device/counters/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests.txt 2>&1
tar czf "$OUT/counters.tgz" $(ls *.txt *.json 2>/dev/null)
grep -E "^(Warning|Bound|Counters|  [0-9])|exit status" counters.txt | head -60
tail -n 3 ncu-own-2.txt gpu-tests.txt
grep -A30 'scaf compare' counters.txt | tail -25
