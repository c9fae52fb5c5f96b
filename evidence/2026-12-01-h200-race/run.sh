#!/usr/bin/env bash
# Exhaustive against race on the H200: the example's sum of squares (reduce-example, 2^24
# floats) over 100 block sizes (10, 20, ..., 1000) x items/thr 1 and 4 = 200 configurations,
# batch timing, the default noise stop except 0.2 s a row at most, alternating
# exhaustive, race, exhaustive, race. Wall time of each whole run (process start to exit).
# Release binary built without a GPU, carried as .device/axes/reduce-example.
set -u
B=.device/axes/reduce-example
SIZES=$(seq -s, 10 10 1000)
A="--block-sizes $SIZES --max-time-per-row 0.2 --stats --provenance"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "# commit: $(cat .device/axes/COMMIT)"
  echo "# arguments: $A"
} > "$OUT/head.txt"
for round in 1 2; do
  for search in exhaustive race; do
    f="$OUT/$search-$round.txt"
    s=$(date +%s%N)
    $B $A --search $search --emit-rust "/tmp/$search-$round.rs" > "$f" 2>&1
    c=$?
    echo "# exit status: $c; wall: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$f"
    cat "/tmp/$search-$round.rs.json" >> "$f" 2>/dev/null
    tail -n 2 "$f" | head -n 1
    grep -h "exit status" "$f"
  done
done
cp /tmp/race-2.rs "$OUT/winner-race-2.rs"
