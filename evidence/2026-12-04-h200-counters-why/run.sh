#!/usr/bin/env bash
# On the H200 (stage.sh's binaries, carried as .device/why): why a configuration or a build wins.
#   1. `compare --counters` of the 7b1698f template (its loop split around its barriers) and of
#      the template now, each against its nvcc twin: the gap lines with what the counters read;
#   2. `variants --counters` and `compare --counters` of the builtin grayscale kernel, and the
#      default sweep with --counters --html (the report's counters chart);
#   3. how far a counter moves between readings: the default sweep and the histogram at 4096
#      bins with --counters five times each, alternating with Nsight Compute run by hand over
#      the same replay (BLOCK_SIZE_COUNTERS_REPLAY set, every metric --counters reads);
#   4. the CLI's GPU tests (REQUIRE_GPU=1).
# One archive, $OUT/why.tgz; the lines that say why, on standard output. Carried as .device/why,
# or packed (tar -cJf gpu-bin/why.tar.xz .device/why) where the tree and it pass the carry limit.
set -u
R=$PWD
[ -d .device/why ] || tar -xJf gpu-bin/why.tar.xz || exit 1
B=$R/.device/why/target/release
W=/tmp/why && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
M=dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# $(nvcc --version | tail -1)"; echo "# $(ncu --version | tail -1)"; echo "# binaries of $(cat $R/.device/why/COMMIT) ($(cat $R/.device/why/STATE))"; sed 's/^/# /' $R/.device/why/PROJECTS; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
{
  stamp
  run $B/old compare --counters --provenance --json old-compare.json
  run $B/scaf compare --counters --json scaf-compare.json
} > why-compare.txt 2>&1
{
  stamp
  run $B/block-size variants --counters
  run $B/block-size compare --counters --json compare.json
  run $B/block-size --counters --provenance --json default.json --html report.html
} > why-builtin.txt 2>&1
{
  stamp
  for round in 1 2 3 4 5; do
    echo "################ round $round: ncu --clock-control none --cache-control all --metrics (--counters') --csv --page raw --print-units base, over block-size-cuda with BLOCK_SIZE_COUNTERS_REPLAY set"
    BLOCK_SIZE_COUNTERS_REPLAY=0:$W/launched ncu --clock-control none --cache-control all --metrics $M --csv --page raw --print-units base $B/block-size-cuda 2>&1 | grep '^"' > hand-default-$round.csv
    echo "################ round $round: block-size --counters --json ours-default-$round.json"
    $B/block-size --counters --json ours-default-$round.json > /dev/null 2>&1; echo "# exit status: $?"
    echo "################ round $round: the same, --kernel histogram --bins 4096"
    BLOCK_SIZE_COUNTERS_REPLAY=0:$W/launched-histogram ncu --clock-control none --cache-control all --metrics $M --csv --page raw --print-units base $B/block-size-cuda --kernel histogram --bins 4096 2>&1 | grep '^"' > hand-histogram-$round.csv
    $B/block-size --kernel histogram --bins 4096 --counters --json ours-histogram-$round.json > /dev/null 2>&1; echo "# exit status: $?"
  done
} > spread.txt 2>&1
{
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 $R/.device/why/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests.txt 2>&1
tar czf "$OUT/why.tgz" *.txt *.json *.csv report.html launched launched-histogram
grep -E "^(Warning|Bound|Counters|Error|  [0-9a-z]|[a-z_]+ at [0-9]|Rust |C\+\+ |old |scaf |nvcc )|exit status|more than 2 percent" why-compare.txt why-builtin.txt | cut -c1-260
grep -c "exit status: 0" spread.txt
tail -n 3 gpu-tests.txt
