#!/usr/bin/env bash
# ON THE DEVICE, from the Kernel Tuner carry folder (stage.sh puts this script, ab-summary.py and
# reduce-example-before beside that carry's reduce-example):
#     bash ab.sh > $OUT/ab.txt 2>&1
# Whole processes of reduce-example before open_early (BEFORE, the commit of the line below) and
# after it (the carry's COMMIT), in pairs, the order flipped every pair, each timed from its
# start to its exit with date +%s.%N, its --stats `Time:` line beside it:
#   one    one configuration, one sample, no warm-up, 2^24 floats (the host data to overlap);
#   small  the same at 1024 floats (next to nothing to overlap: the control);
#   rungs  the example's 192 configurations (block sizes 32..1024 x items/thr 1, 4 x grids
#          one-wave, waves:2, waves:4), --search rungs, the default budget;
#   exhaustive  the same, --search exhaustive.
# Then ab-summary.py: each case's median before and after, and their difference.
cd "$(dirname "$0")" || exit 1
chmod +x reduce-example reduce-example-before
SIZES=$(seq -s, 32 32 1024)
AXES="--block-sizes $SIZES --grids one-wave,waves:2,waves:4"
echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "# before: $(cat BEFORE 2>/dev/null) $(sha256sum reduce-example-before | cut -c1-16)"
echo "# after:  $(head -n 1 COMMIT) $(sha256sum reduce-example | cut -c1-16)"
run() { # CASE WHICH ARGS...
    local case=$1 which=$2 binary=./reduce-example
    shift 2
    [ "$which" = before ] && binary=./reduce-example-before
    local s c
    s=$(date +%s.%N)
    "$binary" "$@" --stats > ab-out.txt 2>&1
    c=$?
    awk -v a="$s" -v b="$(date +%s.%N)" -v c="$c" -v k="$case" -v w="$which" -v t="$(grep '^Time:' ab-out.txt)" \
        'BEGIN { printf "%-10s %-6s %8.1f ms exit %d | %s\n", k, w, 1e3 * (b - a), c, t }'
}
pairs() { # CASE COUNT ARGS...
    local case=$1 count=$2
    shift 2
    for i in $(seq 1 "$count"); do
        if [ $((i % 2)) -eq 1 ]; then run "$case" before "$@"; run "$case" after "$@"
        else run "$case" after "$@"; run "$case" before "$@"; fi
    done
}
echo "# command: one: --block-sizes 256 --runs 1 --warmups 0; small: the same --n 1024; rungs, exhaustive: $AXES --search rungs|exhaustive (each with --stats)"
pairs one 8 --block-sizes 256 --runs 1 --warmups 0
pairs small 4 --block-sizes 256 --runs 1 --warmups 0 --n 1024
pairs rungs 6 $AXES --search rungs
pairs exhaustive 3 $AXES --search exhaustive
rm -f ab-out.txt

