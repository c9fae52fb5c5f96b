#!/usr/bin/env bash
# Where cold and batch times differ from ncu's gpu__time_duration at 66 M pixels, 256 threads:
# batch with 1, 10 and 100 launches per sample (per-launch gap vs per-event-pair cost), cold,
# for k1 (the sweep) and vec4 (variants); then the 4.3 G-pixel row under bash's time (real,
# user, sys). Binaries of b04e632.
set -u
B=.device/ev13/target/release
W="--width 11520 --height 5760"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
rs() { echo "################ block-size $*"; "$B/block-size" "$@" | grep -E "^Timing|^ +256 |Rust +(k1|vec4) +256|C\+\+ +(k1|vec4) +256|Ceiling"; echo "# exit status: ${PIPESTATUS[0]}"; }
for pass in 1 2; do
  for lps in 1 10 100; do rs --timing batch --launches-per-sample $lps --block-sizes 256 --runs 20 $W; done
  rs --timing cold --block-sizes 256 --runs 20 $W
  rs --timing launch --block-sizes 256 --runs 20 $W
  rs variants --timing batch --block-sizes 256 --runs 20 $W
  rs variants --timing cold --block-sizes 256 --runs 20 $W
done
echo "################ time block-size --width 65536 --height 65537 --block-sizes 256"
time "$B/block-size" --width 65536 --height 65537 --block-sizes 256 > /tmp/big.txt 2>&1
echo "# exit status: $?"; grep -E "^ +256|Image" /tmp/big.txt
