#!/usr/bin/env bash
# Issue 43: time to answer, old binaries against new, alternating, in one device call.
# Each sweep of the issue's table runs as a whole process with --stats (its `Time:` line) and
# --json (its rows, for the winners and the noise-tie sets), wall time by date +%s%N:
#   floor      one configuration, one sample, no warm-up: the process's fixed cost (at 4K;
#              floor-66m at 66 M pixels, whose host data and upload the 4K floor lacks)
#   4k         the default sweep (4K frame, 13 block sizes), exhaustive, race and rungs
#   66m        --width 11520 --height 5760, exhaustive, race and rungs
#   family     the grayscale family (--grid per-item --vector-width 1,4
#              --pixels-per-thread 1,2,4,8, 65 configurations), exhaustive, race and rungs
#   tiny       --width 256 --height 256 (a 2 µs kernel)
#   hist       --kernel histogram --bins 4096
#   reduce     reduce-example's 192 configurations, exhaustive, race and rungs
# (run4 on added floor-66m and the race of 66m, family and reduce.)
# ROUNDS rounds (default 2), old and new alternating within each sweep, the order flipped
# every round. Run from the repository root with gpu-bin/bin.tar.xz (stage.sh) carried.
set -u
FINAL=$OUT
OUT=$(mktemp -d)
B=$(mktemp -d)
tar -xJf gpu-bin/bin.tar.xz -C "$B"
ROUNDS=${ROUNDS:-2}
FAMILY="--grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8"
REDUCE="--block-sizes $(seq -s, 32 32 1024) --grids one-wave,waves:2,waves:4"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader)"
  echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
  sed 's/^/# /' "$B/MANIFEST"
} > "$OUT/head.txt"
cat "$OUT/head.txt"
mkdir -p "$OUT/runs"
timed() { # which (old|new), name, program, args...
  local which=$1 name=$2 program=$3; shift 3
  local f="$OUT/runs/$name-$which-$round.txt" s c
  echo "# command: $program $*" > "$f"
  s=$(date +%s%N)
  "$B/$which/$program" "$@" --stats --json "$OUT/runs/$name-$which-$round.json" >> "$f" 2>&1
  c=$?
  echo "# exit status: $c; wall: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$f"
  echo "$name $which $round: $(grep -m1 '^Time:' "$f" | cut -c1-60) | $(tail -n 1 "$f")" >> "$OUT/walls.txt"
}
both() { # name, program, args...
  if [ $((round % 2)) = 1 ]; then timed old "$@"; timed new "$@"; else timed new "$@"; timed old "$@"; fi
}
# The first processes JIT the PTX into the driver's cache; the rest find it there.
for which in old new; do round=0 timed $which warm block-size --block-sizes 256 --runs 1 --warmups 0; done
for round in $(seq 1 "$ROUNDS"); do
  both floor block-size --block-sizes 256 --runs 1 --warmups 0
  both floor-66m block-size --width 11520 --height 5760 --block-sizes 256 --runs 1 --warmups 0
  both 4k-exhaustive block-size
  both 4k-race block-size --search race
  both 4k-rungs block-size --search rungs
  both 66m-exhaustive block-size --width 11520 --height 5760
  both 66m-race block-size --width 11520 --height 5760 --search race
  both 66m-rungs block-size --width 11520 --height 5760 --search rungs
  both family-exhaustive block-size $FAMILY --search exhaustive
  both family-race block-size $FAMILY --search race
  both family-rungs block-size $FAMILY --search rungs
  both tiny block-size --width 256 --height 256
  both hist block-size --kernel histogram --bins 4096
  both reduce-exhaustive reduce-example $REDUCE --search exhaustive
  both reduce-race reduce-example $REDUCE --search race
  both reduce-rungs reduce-example $REDUCE --search rungs
done
cat "$OUT/walls.txt"
gzip -9 "$OUT"/runs/*.json
tar -czf "$FINAL/time-to-answer.tar.gz" -C "$OUT" .
cp "$OUT/walls.txt" "$OUT/head.txt" "$FINAL/"
