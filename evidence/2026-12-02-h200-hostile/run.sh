#!/usr/bin/env bash
# Issue 25 (hostile input) on a GPU: the binaries that ../2026-12-01-h200-one-door/stage.sh
# builds here (into .device/one-door/, carried), run on the device. The GPU tests with
# REQUIRE_GPU=1, then what the CPU tests check on the mock worker, on the real driver: a sweep
# whose every row faults still writing every export with its failures; an export into a FIFO
# with a reader waiting; a sweep killed with SIGKILL mid-write, then resumed into the journal it
# resumes, twice; outputs naming one file by two paths; --emit-rust over a hand-written file,
# then with --force. Every transcript is the programs' own output; `#` lines are this script's.
set -u
D=.device/one-door
B=$D/target/release
OUT=${OUT:-$(mktemp -d)}
if [ ! -d /work/main/target/release ] || [ -L /work/main/target/release ]; then
    mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
fi
header() {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# block-size commit: $(cat $D/COMMIT); $(cat $D/STATE)"
}
run() { # the command; its output and exit status into hostile.txt
    echo "################ $*" >> "$OUT/hostile.txt"
    timeout 120 "$@" >> "$OUT/hostile.txt" 2>&1
    echo "# exit status: $?" >> "$OUT/hostile.txt"
}
header > "$OUT/gpu-tests.txt"
for test in "$B"/deps/gpu-*; do
    echo "################ REQUIRE_GPU=1 $test --test-threads=1" >> "$OUT/gpu-tests.txt"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" timeout 500 "$test" --test-threads=1 >> "$OUT/gpu-tests.txt" 2>&1
    echo "# exit status: $?" >> "$OUT/gpu-tests.txt"
done
header > "$OUT/hostile.txt"
W=$(mktemp -d)
echo "old" > "$W/all.json"
run "$B/faults-example" --entry copy_faulting_at_1024 --n 1000003 --block-sizes 1024 --runs 3 \
    --json "$W/all.json" --csv "$W/all.csv" --html "$W/all.html" --emit-rust "$W/all.rs"
echo "# all.json: $(head -c 300 "$W/all.json" | tr '\n' ' ')..." >> "$OUT/hostile.txt"
echo "# all.json failed rows: $(grep -c '"failed"' "$W/all.json"); all.csv lines: $(wc -l < "$W/all.csv"); all.html bytes: $(wc -c < "$W/all.html"); all.rs: $(ls "$W/all.rs" 2>&1)" >> "$OUT/hostile.txt"
mkfifo "$W/export.fifo"
(cat "$W/export.fifo" > "$W/from-fifo.json") &
run "$B/block-size" --block-sizes 64,256 --runs 3 --json "$W/export.fifo"
wait
echo "# the FIFO's reader got $(wc -c < "$W/from-fifo.json") bytes, $(grep -c threads_per_block "$W/from-fifo.json") rows" >> "$OUT/hostile.txt"
# Killed mid-sweep with SIGKILL (no chance to finish a line), then resumed into the same journal.
"$B/block-size" --width 11520 --height 5760 --min-runs 200 --journal "$W/j.jsonl" > /dev/null 2>&1 &
sleep 3; kill -9 $! 2>/dev/null; wait 2>/dev/null; sleep 1
echo "# after the SIGKILL, block-size-cuda processes still running: $(pgrep -c -x block-size-cuda || true)" >> "$OUT/hostile.txt"
echo "# killed with SIGKILL after 3 s: the journal holds $(wc -l < "$W/j.jsonl") line end(s), last byte $(tail -c 1 "$W/j.jsonl" | od -An -c | tr -d ' ')" >> "$OUT/hostile.txt"
run "$B/block-size" --width 11520 --height 5760 --min-runs 200 --block-sizes 64,128,256,512,1024 --journal "$W/j.jsonl" --resume "$W/j.jsonl"
run "$B/block-size" --width 11520 --height 5760 --min-runs 200 --block-sizes 64,128,256,512,1024 --journal "$W/j.jsonl" --resume "$W/j.jsonl"
mkdir -p "$W/d"
run "$B/block-size" --block-sizes 64 --json "$W/d/s.json" --csv "$W/d/../d/s.json"
printf 'fn main() { println!("mine"); }\n' > "$W/main.rs"
run "$B/block-size" --block-sizes 64,256 --runs 3 --emit-rust "$W/main.rs"
echo "# main.rs now: $(head -1 "$W/main.rs")" >> "$OUT/hostile.txt"
run "$B/block-size" --block-sizes 64,256 --runs 3 --emit-rust "$W/main.rs" --force
echo "# main.rs now: $(head -1 "$W/main.rs")" >> "$OUT/hostile.txt"
grep -h "^################\|exit status\|test result\|^# " "$OUT"/*.txt
