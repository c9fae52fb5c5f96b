#!/usr/bin/env bash
# Issue 29, part 3, first look: where a sweep's wall time goes on the H200, from whole
# processes alone (the binaries of the landed commit, before any cut), one device call.
# The example's space (reduce-example, 2^24 floats; 32 block sizes x items/thr 1, 4 x grid
# one-wave, waves:2, waves:4 = 192 configurations, batch timing) and slices of it:
#   - one configuration, one sample, no warm-up: the process's one-off cost (start, context,
#     PTX JIT, the host data and its upload, the reference, the table);
#   - 192 configurations at a fixed --runs 1 --warmups 0, then --runs 10, then --runs 40: the
#     cost of a visit and of a sample;
#   - the default budget, exhaustive and race, with and without --stats (the SM clock read
#     after every chunk of samples), alternating.
# Wall time of each process, start to exit, by date +%s%N. Staged by stage.sh into .device/wall.
set -u
B=.device/wall
FINAL=$OUT
OUT=$(mktemp -d)
SIZES=$(seq -s, 32 32 1024)
AXES="--block-sizes $SIZES --grids one-wave,waves:2,waves:4"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader)"
  echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
  echo "# binaries of $(cat $B/COMMIT) ($(cat $B/STATE))"
  echo "# axes: $AXES"
} > "$OUT/head.txt"
timed() { # name, args...
  local name=$1; shift
  local f="$OUT/$name.txt" s c
  echo "# command: $B/reduce-example $*" > "$f"
  s=$(date +%s%N)
  $B/reduce-example "$@" --json "$OUT/$name.json" >> "$f" 2>&1
  c=$?
  echo "# exit status: $c; wall: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$f"
  echo "$name: $(tail -n 1 "$f")" | tee -a "$OUT/walls.txt"
}
# The first process JITs the PTX into the driver's cache; the rest find it there.
timed first-one --block-sizes 1024 --runs 1 --warmups 0 --provenance
for round in 1 2 3; do
  timed one-$round --block-sizes 1024 --runs 1 --warmups 0
  timed one-stats-$round --block-sizes 1024 --runs 1 --warmups 0 --stats --provenance
done
for round in 1 2; do
  for runs in 1 10 40; do
    timed fixed$runs-$round $AXES --runs $runs --warmups 0
  done
  timed fixed10w3-$round $AXES --runs 10 --warmups 3
  for search in exhaustive race; do
    timed default-$search-$round $AXES --search $search
    timed default-$search-stats-$round $AXES --search $search --stats --provenance
  done
done
if command -v nsys >/dev/null; then
  nsys profile -o "$OUT/exhaustive" --trace=cuda,osrt --stats=true \
      $B/reduce-example $AXES --search exhaustive > "$OUT/nsys-exhaustive.txt" 2>&1
  rm -f "$OUT/exhaustive.nsys-rep" "$OUT/exhaustive.sqlite"
else
  echo "no nsys on the device" > "$OUT/nsys-exhaustive.txt"
fi
gzip "$OUT"/*.json
tar -C "$OUT" -czf "$FINAL/wall.tgz" .
