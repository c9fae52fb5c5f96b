#!/usr/bin/env bash
# Issue 43, the third call: what a supervised sweep's journal costs, and the supervisor's wait.
# gpu-bin/journal.tar.xz holds stripped release binaries, one folder each (ORDER):
#   421d7c1  reduce-example as one program, unsupervised (before issue 46 made it a launcher),
#            and block-size; run4 and run5 of ../2026-12-04-h200-time-to-answer ran these as "old"
#   bf959aa  the launchers over supervised workers, each journal entry synced (fdatasync)
#   new      the working tree (FIX in MANIFEST): a supervisor's temporary journal written and not
#            synced (the user's --journal still synced), and the supervisor woken at its worker's
#            exit instead of a 20 ms poll
# and "bf959aa-direct": bf959aa's reduce-example-cuda run by itself (no supervisor, no journal).
# Alternating, three rounds, --stats --json, wall by date +%s%N: the reduce example's 192
# configurations (rungs, exhaustive), the grayscale family (rungs), the default sweep and the
# floor (one configuration, one sample). From the repository root; writes $OUT/journal.tgz.
set -u
FINAL=$OUT
W=$(mktemp -d)
B=$(mktemp -d)
tar -xJf gpu-bin/journal.tar.xz -C "$B"
REDUCE=(--block-sizes "$(seq -s, 32 32 1024)" --grids one-wave,waves:2,waves:4)
FAMILY=(--grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8)
FLOOR=(--block-sizes 256 --runs 1 --warmups 0)
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm --format=csv,noheader)"
    echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
    sed 's/^/# /' "$B/MANIFEST"
    echo "# temporary folder: ${TMPDIR:-/tmp} on $(df -P "${TMPDIR:-/tmp}" | tail -1 | awk '{print $1}'), $(findmnt -no FSTYPE -T "${TMPDIR:-/tmp}" 2>/dev/null)"
} > "$W/head.txt"
timed() { # label, program, args...
    local label=$1; shift
    local f="$W/$label-$round"
    local s; s=$(date +%s%N)
    "$@" --stats --json "$f.json" > "$f.txt" 2>&1
    local c=$?
    echo "$label $round: exit $c, wall $(( ($(date +%s%N) - s) / 1000000 )) ms, $(grep -m1 '^Time:' "$f.txt" | sed 's/.*samples \([0-9.]*\) s.*the rest \([0-9.]*\) s./samples \1 s, the rest \2 s/')" >> "$W/walls.txt"
}
for c in $(cat "$B/ORDER"); do "$B/$c/block-size" "${FLOOR[@]}" > /dev/null 2>&1; "$B/$c/reduce-example" "${FLOOR[@]}" > /dev/null 2>&1; done
for round in 1 2 3; do
    for c in $(cat "$B/ORDER"); do
        timed "reduce-rungs-$c" "$B/$c/reduce-example" "${REDUCE[@]}" --search rungs
        timed "reduce-exhaustive-$c" "$B/$c/reduce-example" "${REDUCE[@]}" --search exhaustive
        timed "family-rungs-$c" "$B/$c/block-size" "${FAMILY[@]}" --search rungs
        timed "4k-$c" "$B/$c/block-size"
        timed "floor-$c" "$B/$c/block-size" "${FLOOR[@]}"
    done
    timed reduce-rungs-bf959aa-direct "$B/bf959aa/reduce-example-cuda" "${REDUCE[@]}" --search rungs
    timed reduce-exhaustive-bf959aa-direct "$B/bf959aa/reduce-example-cuda" "${REDUCE[@]}" --search exhaustive
done
cat "$W/head.txt"
sort -s -k1,1 "$W/walls.txt"
gzip -9 "$W"/*.json
tar -czf "$FINAL/journal.tgz" -C "$W" .
