#!/usr/bin/env bash
# Issue 17 on the H200, one device call. Release binaries built without a GPU (commit in
# .device/axes17/COMMIT), carried as .device/axes17/.
#   1. Time to an answer: the example's sum of squares (reduce-example, 2^24 floats) over three
#      axes, 32 block sizes (32, 64, ..., 1024) x items/thr 1, 4 x grid policy one-wave, waves:2,
#      waves:4 = 192 configurations, batch timing, alternating exhaustive, race, exhaustive,
#      race. First at a tight noise budget (--max-noise 0.001, 0.2 s a row at most), where rows
#      need many samples; then once each at the default budget (0.5 percent, 0.5 s a row).
#      Wall time of each whole process, start to exit. Each run writes its JSON (every row's
#      samples, why it stopped) and --emit-rust its winner.
#   2. The axes of this repository's kernels at 66 M pixels: grayscale's vector width x pixels
#      per thread, and the histogram's bins (x8k2c, 1, 256 and 4096 bins).
# Everything is written to a folder and comes back as one tarball (the device tool returns only
# a few files).
set -u
B=.device/axes17
FINAL=$OUT
OUT=$(mktemp -d)
SIZES=$(seq -s, 32 32 1024)
AXES="--block-sizes $SIZES --grids one-wave,waves:2,waves:4 --stats"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader)"
  echo "# commit: $(cat $B/COMMIT)"
  echo "# axes: $AXES"
} > "$OUT/head.txt"
timed() { # name, args...
  local name=$1; shift
  local f="$OUT/$name.txt" s c
  s=$(date +%s%N)
  $B/reduce-example "$@" --json "$OUT/$name.json" --emit-rust "/tmp/$name.rs" > "$f" 2>&1
  c=$?
  echo "# exit status: $c; wall: $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$f"
  echo "$name: $(tail -n 1 "$f")"
  cp "/tmp/$name.rs" "$OUT/$name.rs" 2>/dev/null
}
for round in 1 2; do
  for search in exhaustive race; do
    timed "tight-$search-$round" $AXES --provenance --max-noise 0.001 --max-time-per-row 0.2 --search $search
  done
done
for search in exhaustive race; do
  timed "default-$search" $AXES --provenance --search $search
done
F="--width 11520 --height 5760"
for args in "--vector-width 1,4 --pixels-per-thread 1,2,4,8 --block-sizes 128,256,512,768,1024" \
            "--kernel histogram_x8k2c --bins 1,256,4096 --block-sizes 128,256,512,768,1024"; do
  echo "################ block-size --provenance $F $args" >> "$OUT/builtin-axes.txt"
  $B/block-size --provenance $F $args >> "$OUT/builtin-axes.txt" 2>&1
  echo "# exit status: $?" >> "$OUT/builtin-axes.txt"
done
grep -h "exit status" "$OUT/builtin-axes.txt"
tar -C "$OUT" -czf "$FINAL/axes.tar.gz" .
