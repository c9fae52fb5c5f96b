#!/usr/bin/env bash
# The H200 evidence of `block-size diff` and the HTML report, in one device call: one release
# binary of branch `report` (the commit in COMMIT beside it), run as
#
#   warmup     a 4K sweep at 256 threads, 50 samples: so that neither twin is the GPU's first work
#   twin-a     the default 4K sweep, --provenance --json
#   twin-b     the same again, --provenance --json --html              (diff twin-a twin-b: SAME)
#   launch     the same sweep with --timing launch: the same kernel, PTX, frame and grid, each
#              sample one launch between its own events, so every sample carries the fixed cost
#              of a launch that batch timing's ten back-to-back launches hide (about 3 us at 4K on
#              the H200, docs/statistics-and-exports.md): the deliberate slowdown, expected
#              SLOWER wherever 3 us is over 2 % of a row's time (every 4K row: 0.036-0.08 ms)
#   contended  the default sweep again while a second block-size process sweeps a 16384 x 16384
#              frame on the same GPU (the GPU time-slices the two contexts): the same kernel
#              slowed by a neighbour, if the events see it; no verdict is expected in advance
#
# Everything goes to $OUT/run.log and $OUT/evidence.tar.gz (the JSONs, the HTML, each
# transcript). Usage on the device: bash .device/report/run.sh
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
B="$here/block-size"
work=$(mktemp -d)
exec > >(tee "$OUT/run.log") 2>&1

say() { echo; echo "== $*"; }
clocks() {
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader 2>&1
}
sweep() {
    local name=$1
    shift
    say "$name: block-size $*"
    echo "before: $(clocks)"
    local start=$(date +%s.%N)
    "$B" "$@" >"$work/$name.txt" 2>"$work/$name.stderr"
    local code=$?
    echo "exit $code after $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s; after: $(clocks)"
    cat "$work/$name.txt" "$work/$name.stderr"
}

say "commit $(cat "$here/COMMIT"), $(date -u +%FT%TZ)"
uname -a
nvidia-smi
"$B" --version

sweep warmup --block-sizes 256 --runs 50
sweep twin-a --provenance --json "$work/twin-a.json"
sweep twin-b --provenance --json "$work/twin-b.json" --html "$work/twin-b.html"
sweep launch --provenance --timing launch --json "$work/launch.json"

say "competitor: block-size --width 16384 --height 16384 --block-sizes 256 --warmups 0 --runs 3000"
"$B" --width 16384 --height 16384 --block-sizes 256 --warmups 0 --runs 3000 >"$work/competitor.txt" 2>&1 &
competitor=$!
for _ in $(seq 1 240); do
    grep -q '^Timing:' "$work/competitor.txt" && break
    kill -0 "$competitor" 2>/dev/null || break
    sleep 0.5
done
sleep 1
echo "competitor running: $(clocks)"
sweep contended --provenance --json "$work/contended.json"
kill "$competitor" 2>/dev/null
wait "$competitor" 2>/dev/null
say "competitor's transcript (killed once the contended sweep was done)"
cat "$work/competitor.txt"

tar czf "$OUT/evidence.tar.gz" -C "$work" .
ls -la "$work"
