#!/usr/bin/env bash
# Issue 27 on the H200 (one GPU): --device all through its worker-per-GPU supervisor against
# --device 0 (wall time of each, alternating), a sweep in two shards merged by block-size merge
# against the same sweep whole (rows, checks, diff), --device all --split, a fault on the GPU's
# worker under --device all, and the example's kernel of your own (26 configurations) in two
# shards merged; then a kernel whose PTX demands its block (bounds-example: .maxntid 256 and
# .reqntid 128), and the GPU tests. Binaries staged by stage.sh. Steps: all by default, or those
# named (bash run.sh 5 6). Everything ends in one archive, $OUT/fleet.tgz (the device hands back
# at most eight files).
set -u
steps=" ${*:-1 2 3 4 5 6} "
step() { [[ $steps == *" $1 "* ]]; }
D=.device/fleet
B=$D/target/release
W=/tmp/fleet && rm -rf $W && mkdir -p $W && cd $W || exit 1
R=$OLDPWD
B=$R/$B; D=$R/$D
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$B/$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
# 1. --device all against --device 0, alternating, three times each.
step 1 && {
  stamp
  for pass in 1 2 3; do
    run block-size --device all --provenance --json all-$pass.json --journal all-$pass.jsonl --emit-rust all-$pass.rs
    run block-size --device 0 --provenance --json one-$pass.json
  done
  for pass in 1 2 3; do echo "# all-$pass.jsonl: $(wc -l < all-$pass.jsonl) journal lines"; done
} > device-all.txt 2>&1
# 2. Two shards, one after the other, merged; the same sweep whole; diff.
step 2 && {
  stamp
  run block-size --provenance --json whole.json
  run block-size --provenance --shard 1/2 --json part-1.json
  run block-size --provenance --shard 2/2 --json part-2.json
  run block-size merge part-2.json part-1.json --json merged.json --emit-rust merged.rs --html merged.html
  run block-size diff whole.json merged.json
  python3 - <<'PY'
import json
whole, merged = json.load(open("whole.json")), json.load(open("merged.json"))
key = lambda row: (row["threads_per_block"], tuple(sorted(row.get("axes", {}).items())))
print("# configurations: whole", [key(r)[0] for r in whole["rows"]], "merged", [key(r)[0] for r in merged["rows"]])
print("# same configurations in the same order:", [key(r) for r in whole["rows"]] == [key(r) for r in merged["rows"]])
print("# failures: whole", len(whole["failures"]), "merged", len(merged["failures"]), "; rows failed or pruned in merged:", sum(1 for r in merged["rows"] if r["failed"] or r["pruned"]))
print("# merged_from:", [(p["shard"], p["date"]) for p in merged["merged_from"]])
PY
  run block-size --device all --split --json split.json
} > shards.txt 2>&1
# 3. A fault on the GPU's worker under --device all: the launch at 1024 threads faults; a fresh
#    worker measures the rest.
step 3 && {
  stamp
  run faults-example --device all --entry copy_faulting_at_1024 --n 16777216 --block-sizes 128,256,512,768,1024 --json fault.json
} > fault.txt 2>&1
# 4. The example's kernel of your own (its axes) in two shards, merged, and whole.
step 4 && {
  stamp
  run reduce-example --provenance --search exhaustive --json reduce-whole.json
  run reduce-example --provenance --shard 1/2 --json reduce-1.json
  run reduce-example --provenance --shard 2/2 --json reduce-2.json
  run block-size merge reduce-1.json reduce-2.json --json reduce-merged.json
  run block-size diff reduce-whole.json reduce-merged.json
} > reduce.txt 2>&1
# 5. The launch bounds: every default block size of each entry; those the PTX forbids pruned.
step 5 && {
  stamp
  run bounds-example --entry double_at_most_256 --json bounds-256.json
  run bounds-example --entry double_exactly_128 --json bounds-128.json
  run bounds-example --entry double_at_most_256 --block-sizes 512,1024
} > bounds.txt 2>&1
# 6. The GPU tests.
step 6 && {
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests.txt 2>&1
tar czf "$OUT/fleet.tgz" $(ls *.txt *.json *.jsonl *.rs *.rs.json *.html 2>/dev/null)
ls -la "$OUT"
