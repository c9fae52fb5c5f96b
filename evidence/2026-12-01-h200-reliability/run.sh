#!/usr/bin/env bash
# Faults, hangs and signals on the H200: a test kernel that faults at 1024 threads per block
# and one that hangs at 512, swept through the library (faults-example, sweep_and_print); SIGINT
# 4 s into a long block-size sweep, then --resume; an unwritable output; compute-sanitizer
# memcheck on the recovery path; the GPU tests. Release binaries built without a GPU, carried
# as .device/ev16/target/release.
set -u
B=.device/ev16/target/release
mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
W=$(mktemp -d)
head() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# commit: $(cat .device/ev16/COMMIT)"; }
step() { echo "################ $*"; }
{
  head
  A="--n 16777216 --block-sizes 128,256,512,768,1024 --provenance"
  step "faults-example --entry copy_faulting_at_1024 $A --format json --output $W/fault.json"
  $B/faults-example --entry copy_faulting_at_1024 $A --format json --output $W/fault.json; echo "# exit status: $?"
  echo "# rows in the JSON (threads_per_block, median_ms, failed):"
  python3 -c "import json;[print(r['threads_per_block'], r['median_ms'], r['failed']) for r in json.load(open('$W/fault.json'))['rows']]"
  step "faults-example --entry copy_faulting_at_1024 --n 16777216 --block-sizes 128,256,512,768,1024 (the table)"
  $B/faults-example --entry copy_faulting_at_1024 --n 16777216 --block-sizes 128,256,512,768,1024; echo "# exit status: $?"
  step "faults-example --entry copy_hanging_at_512 --n 16777216 --block-sizes 128,256,512,768,1024 --launch-timeout 5"
  s=$(date +%s); $B/faults-example --entry copy_hanging_at_512 --n 16777216 --block-sizes 128,256,512,768,1024 --launch-timeout 5; c=$?
  echo "# exit status: $c after $(( $(date +%s) - s )) s"
  step "faults-example --entry copy_hanging_at_512 --n 16777216 --block-sizes 512,1024 (the default timeout)"
  s=$(date +%s); $B/faults-example --entry copy_hanging_at_512 --n 16777216 --block-sizes 512,1024; c=$?
  echo "# exit status: $c after $(( $(date +%s) - s )) s"
} > "$OUT/faults.txt" 2>&1
{
  head
  A="--width 11520 --height 5760 --min-runs 400 --provenance"
  step "timeout --preserve-status -s INT 4 block-size $A --format json --output $W/int.json --journal $W/int.jsonl"
  s=$(date +%s%N); timeout --preserve-status -s INT 4 $B/block-size $A --format json --output $W/int.json --journal $W/int.jsonl; c=$?
  echo "# exit status: $c after $(( ($(date +%s%N) - s) / 1000000 )) ms"
  echo "# JSON: ended_early and rows:"; python3 -c "import json;d=json.load(open('$W/int.json'));print(d.get('ended_early'));[print(r['threads_per_block'], r['samples'], r['median_ms']) for r in d['rows']]"
  echo "# journal lines: $(wc -l < $W/int.jsonl)"
  step "block-size $A --resume $W/int.jsonl --journal $W/int.jsonl"
  s=$(date +%s%N); $B/block-size $A --resume $W/int.jsonl --journal $W/int.jsonl; c=$?
  echo "# exit status: $c after $(( ($(date +%s%N) - s) / 1000000 )) ms; journal lines now: $(wc -l < $W/int.jsonl)"
  step "timeout --preserve-status -s INT 4 block-size $A (the table on stdout)"
  timeout --preserve-status -s INT 4 $B/block-size $A; echo "# exit status: $?"
  step "block-size --format json --output /proc/self/x.json (no GPU work: the time says so)"
  s=$(date +%s%N); $B/block-size --format json --output /proc/self/x.json; c=$?
  echo "# exit status: $c after $(( ($(date +%s%N) - s) / 1000000 )) ms"
} > "$OUT/signals.txt" 2>&1
{
  head
  step "$S --tool memcheck --target-processes all faults-example --entry copy_faulting_at_1024 --n 1000003 --block-sizes 256,1024,512 --runs 2 --warmups 0"
  timeout 300 $S --tool memcheck --target-processes all $B/faults-example --entry copy_faulting_at_1024 --n 1000003 --block-sizes 256,1024,512 --runs 2 --warmups 0 2>&1 | grep -E "SUMMARY|Invalid|rror|check failed|threads per block:|of best|^ +[0-9]+ " | head -40
  echo "# exit status: ${PIPESTATUS[0]}"
  for t in "$B"/deps/gpu-*; do
    step "REQUIRE_GPU=1 $t --test-threads=1"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" timeout 400 "$t" --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  done
} > "$OUT/sanitizer-and-tests.txt" 2>&1
grep -h "exit status\|test result" "$OUT"/*.txt
