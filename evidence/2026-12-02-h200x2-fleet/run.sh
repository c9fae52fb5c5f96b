#!/usr/bin/env bash
# Issue 28, ready for nvidia-h200-x2 (two H200s of one host), NOT RUN: the kind was not lent in
# the session that wrote it. Binaries staged by evidence/2026-12-02-h200-fleet/stage.sh (carry
# .device/fleet). Everything ends in one archive, $OUT/x2.tgz.
#   1. block-size --device all at 11520 x 5760 (both GPUs at once, a worker each) against
#      --device 0 alone, alternating twice: both tables, every row checked, the wall times
#      (goal: --device all at most 1.15 x one GPU's).
#   2. One sweep split across both GPUs: the example's 192 configurations (reduce-example, 2^24
#      floats, 32 block sizes x items/thr 1, 4 x grids one-wave, waves:2, waves:4) at a tight
#      noise budget (--max-noise 0.001, 0.2 s a row at most), as --shard 1/2 on GPU 0 and
#      --shard 2/2 on GPU 1 at once, merged by block-size merge, against the whole sweep on GPU 0
#      (goal: at most 0.6 x); the same at the default budget; and block-size --device all
#      --split (this repository's kernel over its axes) against --device 0.
#   3. A fault on one GPU while the other sweeps: faults-example's faulting entry on GPU 1 beside
#      block-size on GPU 0 (GPU 0's rows all kept); and faults-example --device all, each GPU's
#      worker restarted on its own (exit 1, the fault named, every other row kept).
#   4. --emit-rust from both GPUs into one file: one module (one model).
set -u
D=$PWD/.device/fleet
B=$D/target/release
W=/tmp/x2 && rm -rf $W && mkdir -p $W && cd $W || exit 1
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv,noheader | sed 's/^/# gpu: /'; echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$B/$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
F="--width 11520 --height 5760"
SIZES=$(seq -s, 32 32 1024)
AXES="--block-sizes $SIZES --grids one-wave,waves:2,waves:4"
TIGHT="--max-noise 0.001 --max-time-per-row 0.2"
{
  stamp
  for pass in 1 2; do
    run block-size --device all --provenance $F --json all-$pass.json --emit-rust all-$pass.rs
    run block-size --device 0 --provenance $F --json one-$pass.json
  done
} > 1-device-all.txt 2>&1
both() { # name, options...: shard 1/2 on GPU 0 and 2/2 on GPU 1 at once, merged
  local name=$1; shift
  echo "################ reduce-example --device 0 --shard 1/2 & reduce-example --device 1 --shard 2/2 $* ; block-size merge"
  local s=$(date +%s.%N)
  "$B/reduce-example" --device 0 --shard 1/2 "$@" --json $name-1.json > $name-1.txt 2>&1 & local p1=$!
  "$B/reduce-example" --device 1 --shard 2/2 "$@" --json $name-2.json > $name-2.txt 2>&1 & local p2=$!
  wait $p1; local c1=$?; wait $p2; local c2=$?
  "$B/block-size" merge $name-1.json $name-2.json --json $name-merged.json --emit-rust $name.rs; local c3=$?
  echo "# exit status: shards $c1 $c2, merge $c3; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s (both shards and the merge)"
}
{
  stamp
  run reduce-example --device 0 --provenance $AXES $TIGHT --search exhaustive --json tight-one.json
  both tight --provenance $AXES $TIGHT
  run block-size diff tight-one.json tight-merged.json
  run reduce-example --device 0 --provenance $AXES --search exhaustive --json default-one.json
  both default --provenance $AXES
  run block-size diff default-one.json default-merged.json
  run block-size --device all --split --provenance $F --pixels-per-thread 1,2,4 --json split.json
  run block-size --device 0 --provenance $F --pixels-per-thread 1,2,4 --search exhaustive --json split-one.json
  run block-size diff split-one.json split.json
} > 2-split.txt 2>&1
{
  stamp
  echo "################ block-size --device 0 $F & faults-example --device 1 --entry copy_faulting_at_1024 --n 16777216"
  "$B/block-size" --device 0 $F --json beside.json > beside.txt 2>&1 & p=$!
  run faults-example --device 1 --entry copy_faulting_at_1024 --n 16777216 --block-sizes 128,256,512,768,1024 --json fault-1.json
  wait $p; echo "# block-size --device 0 exit status: $?"; cat beside.txt
  run faults-example --device all --entry copy_faulting_at_1024 --n 16777216 --block-sizes 128,256,512,768,1024 --json fault-all.json
} > 3-fault.txt 2>&1
{
  stamp
  for pass in 1 2; do echo "# all-$pass.rs.json: $(python3 -c "import json; print(len(json.load(open('all-$pass.rs.json'))['winners']), 'winner(s)')")"; done
  grep -n "pub mod" all-1.rs
} > 4-emit.txt 2>&1
tar czf "$OUT/x2.tgz" $(ls *.txt *.json *.rs *.rs.json 2>/dev/null)
ls -la "$OUT"
