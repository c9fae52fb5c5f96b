#!/usr/bin/env bash
# Issue 10 evidence: the histogram workload and the grayscale sweep after the engine change,
# on the H200. Binaries of 5b80d03 built on the dev machine.
set -u
B=.device/ev10/target/release
run() { # file, args...  (appends)
    local file=$1; shift
    echo "################ block-size $*" >> "$OUT/$file"
    "$B/block-size" "$@" >> "$OUT/$file" 2>&1
    echo "# exit status: $?" >> "$OUT/$file"
}
for bins in 256 1024 4096; do
    run histogram-4k.txt --provenance --kernel histogram --bins $bins
    run histogram-66m.txt --provenance --kernel histogram --bins $bins --width 11520 --height 5760
done
for bins in 256 4096; do
    run compare-histogram.txt compare --provenance --kernel histogram --bins $bins
    run compare-histogram.txt compare --provenance --kernel histogram --bins $bins --width 11520 --height 5760
done
run grayscale.txt --provenance
run grayscale.txt compare --provenance --width 11520 --height 5760
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "# $($S --version | tail -1)"
  for tool in memcheck racecheck synccheck; do
    for case in "1x1 pixel, 256 bins|--width 1 --height 1 --bins 256" \
                "1000003x1 (a prime count), 1024 bins|--width 1000003 --height 1 --bins 1024" \
                "1021x997, 1 bin (every value in one bin)|--width 1021 --height 997 --bins 1" \
                "1021x997, 4096 bins (spread over all bins)|--width 1021 --height 997 --bins 4096"; do
      name=${case%%|*}; args=${case#*|}
      echo "################ $S --tool $tool --error-exitcode 99 block-size-cuda --kernel histogram $args --block-sizes 1,32,100,1024 --warmups 0 --runs 1   [$name]"
      $S --tool $tool --error-exitcode 99 $B/block-size-cuda --kernel histogram $args --block-sizes 1,32,100,1024 --warmups 0 --runs 1 2>&1 | grep -E "SUMMARY|Error|error|Occupancy model|configurations|^ +[0-9]+ "
      echo "# exit status: ${PIPESTATUS[0]}"
    done
  done
} > "$OUT/sanitizer.txt" 2>&1
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "# command: REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1 (cargo test --release -p block-size-runner --test gpu --no-run, built on the dev machine)"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > "$OUT/gpu-tests.txt" 2>&1
grep -h "exit status" "$OUT"/*.txt | sort | uniq -c
