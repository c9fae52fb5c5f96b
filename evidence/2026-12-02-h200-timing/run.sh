#!/usr/bin/env bash
# Issue 26 on the H200: the NVML probe (the energy counter's step, a read's cost, the clocks;
# events inside a captured graph), --timing graph against the other modes and against Nsight
# Compute at 256 threads on 11520 x 5760, the 4K sweep with --energy three times, the clocks of
# every row of a 66 M pixel sweep, the GPU tests. Binaries staged by stage.sh.
# Steps: all by default, or those named (bash run.sh 0 1 2). The device hands back at most
# eight files, so everything ends in one archive, $OUT/timing.tgz.
set -u
steps=" ${*:-0 1 2 3 4 5 6} "
step() { [[ $steps == *" $1 "* ]]; }
D=.device/timing
B=$D/target/release
E=evidence/2026-12-02-h200-timing
W="--width 11520 --height 5760"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"; }
rs() { echo "################ block-size $*"; "$B/block-size" "$@"; echo "# exit status: $?"; }
# 0. The probe: a C++ program of its own (probe.cu), compiled here.
if step 0; then
{
  stamp; echo "# command: nvcc -O2 -arch=sm_90 -o /tmp/probe $E/probe.cu -lnvidia-ml && /tmp/probe"
  nvcc -O2 -arch=sm_90 -o /tmp/probe $E/probe.cu -lnvidia-ml && /tmp/probe; echo "# exit status: $?"
} > "$OUT/probe.txt" 2>&1
fi
# 1. The timing modes at 256 threads on 66 M pixels, alternating twice, every one in one call.
if step 1; then
for pass in 1 2; do
  for mode in graph batch cold launch; do
    rs --provenance --stats --block-sizes 256 $W --timing $mode --json "$OUT/mode-$mode-$pass.json"
  done
done > "$OUT/modes-256-66m.txt" 2>&1
fi
# 2. Nsight Compute's kernel duration at the same configuration (clocks not locked), with its L2
if step 2; then
#    flush before every kernel and without.
N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{
  stamp; echo "# $($N --version | tail -1)"
  for cache in all none; do
    args="--block-sizes 256 $W --timing launch --runs 20 --warmups 0"
    echo "################ $N --metrics gpu__time_duration.sum --clock-control none --cache-control $cache -k regex:^grayscale\$ --csv block-size-cuda $args"
    $N --metrics gpu__time_duration.sum --clock-control none --cache-control $cache -k "regex:^grayscale\$" --csv $B/block-size-cuda $args 2>&1 | grep -E '"gpu__time_duration.sum"|ERROR|error'
    echo "# exit status: ${PIPESTATUS[0]}"
  done
} > "$OUT/ncu.txt" 2>&1
fi
# 3. The 4K sweep with --energy, three times; then by energy.
if step 3; then
{
  for pass in 1 2 3; do rs --provenance --stats --energy --json "$OUT/energy-4k-$pass.json"; done
  rs --stats --energy --objective energy
  rs --stats --energy --objective edp --search exhaustive
} > "$OUT/energy-4k.txt" 2>&1
fi
# 4. The clocks of every row of a 66 M pixel sweep; and a graph sweep of every block size.
if step 4; then
{
  rs --provenance --stats $W --json "$OUT/clocks-66m.json"
  rs --stats $W --timing graph
  rs --kernel histogram --bins 4096 --timing graph --stats
} > "$OUT/clocks-66m.txt" 2>&1
fi
# 5. The GPU tests (graph timing among the modes, and under compute-sanitizer memcheck).
if step 5; then
{
  stamp; echo "# command: REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > "$OUT/gpu-tests.txt" 2>&1
fi
# 6. What --energy costs a sweep: the 4K default sweep's wall time without and with it,
#    alternating, three times each.
if step 6; then
{
  stamp
  wall() { local label=$1; shift; local s e rc; s=$(date +%s.%N); "$@" > /dev/null 2>&1; rc=$?; e=$(date +%s.%N); echo "$label: $(awk "BEGIN {printf \"%.2f\", $e - $s}") s wall (exit $rc)"; }
  for pass in 1 2 3; do
    wall "block-size (4K default)" $B/block-size
    wall "block-size --energy (4K default)" $B/block-size --energy
  done
  echo "# exit status: 0"
} > "$OUT/energy-cost.txt" 2>&1
fi
grep -h "exit status" "$OUT"/*.txt | sort | uniq -c
tar -czf /tmp/timing.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/timing.tgz "$OUT/timing.tgz"
