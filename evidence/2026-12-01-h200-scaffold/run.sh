#!/usr/bin/env bash
# A project made by `block-size new /tmp/scaf-ev --name stencil-demo` (block-size at the commit
# in COMMIT), its host crate built with `cargo build --release` on a machine without a GPU, run
# on the H200: the default sweep with provenance, the corrupt-output self-test, and
# compute-sanitizer synccheck, racecheck and memcheck on its stencil3 kernel.
set -u
B=.device/scaffold
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# block-size commit: $(cat $B/COMMIT)"
echo "################ stencil-demo --provenance"; S0=$(date +%s%N); timeout 120 $B/stencil-demo --provenance; echo "# exit status: $? ($(( ($(date +%s%N)-S0)/1000000 )) ms)"
echo "################ stencil-demo --n 1000003 --corrupt-output 7 --runs 2 --warmups 0"; timeout 120 $B/stencil-demo --n 1000003 --corrupt-output 7 --runs 2 --warmups 0; echo "# exit status: $?"
for tool in synccheck racecheck memcheck; do
  echo "################ $S --tool $tool --error-exitcode 99 stencil-demo --n 1000003 --block-sizes 1,31,32,100,256,1000,1024 --timing launch --runs 1 --warmups 0"
  timeout 300 $S --tool $tool --error-exitcode 99 $B/stencil-demo --n 1000003 --block-sizes 1,31,32,100,256,1000,1024 --timing launch --runs 1 --warmups 0 2>&1 | grep -E "SUMMARY|rror|agrees|configurations"
  echo "# exit status: ${PIPESTATUS[0]}"
done
