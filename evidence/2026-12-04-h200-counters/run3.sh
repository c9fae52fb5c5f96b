#!/usr/bin/env bash
# Where the 2 percent between --counters' L2 hit rate and Nsight Compute's own reading of the
# grayscale kernel comes from (binaries of stage.sh): Nsight Compute run by hand over the replay
# itself (BLOCK_SIZE_COUNTERS_REPLAY set, no timed process beside it), over a sweep's first launch
# as before, and --counters again, each at 256 threads, three times in turn. One archive,
# $OUT/counters3.tgz.
set -u
R=$PWD
B=$R/.device/counters/target/release
W=/tmp/counters3 && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/counters/COMMIT) ($(cat $R/.device/counters/STATE))"; }
M=dram__bytes.sum.per_second,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
NCU="ncu --clock-control none --cache-control all --metrics $M -k regex:^grayscale$ --csv --page raw --print-units base"
{
  stamp
  for round in 1 2 3; do
    echo "################ round $round: ncu over the replay alone"
    BLOCK_SIZE_COUNTERS_REPLAY=0:$W/launched $NCU $B/block-size-cuda --block-sizes 256 2>&1 | grep '^"[0-9]' > replay-$round.csv
    echo "################ round $round: ncu over a sweep's first launch"
    $NCU -c 1 $B/block-size-cuda --block-sizes 256 --timing launch --warmups 0 --runs 1 --search exhaustive 2>&1 | grep '^"[0-9]' > first-$round.csv
    echo "################ round $round: --counters"
    $B/block-size --block-sizes 256 --counters --json counters-$round.json > /dev/null 2>&1; echo "exit $?"
  done
} > counters3.txt 2>&1
# The header of the raw page, once, to read the columns by name.
$NCU -c 1 $B/block-size-cuda --block-sizes 256 --timing launch --warmups 0 --runs 1 --search exhaustive 2>&1 | grep '^"ID"' > header.csv
tar czf "$OUT/counters3.tgz" counters3.txt header.csv replay-*.csv first-*.csv counters-*.json
ls
