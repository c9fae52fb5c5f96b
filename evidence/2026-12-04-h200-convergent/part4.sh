#!/usr/bin/env bash
# A fresh `block-size new --cuda` project of the commit this stop lands (written and built here:
# gpu-bin/final.tar.xz holds its stripped worker and a MANIFEST), `compare` at n = 2^24 and 2^26
# with --json, on the H200. Run by the device tool from the repository root. ROUNDS (default 30,
# compare's own) sets --rounds, and the transcripts' names carry it when it is set.
set -u
rounds=${ROUNDS:-30}
tag=${ROUNDS:+-r$ROUNDS}
bins=/tmp/final && mkdir -p $bins && tar -xJf gpu-bin/final.tar.xz -C $bins
for n in 16777216 67108864; do
    {
        echo "\$ proj3-cuda compare --n $n --rounds $rounds --provenance --json $OUT/compare-final$tag-$n.json"
        $bins/proj3-cuda compare --n "$n" --rounds "$rounds" --provenance --json "$OUT/compare-final$tag-$n.json"
        echo "exit status $?"
        cat $bins/MANIFEST
    } >"$OUT/compare-final$tag-$n.txt" 2>&1
    tail -n 4 "$OUT/compare-final$tag-$n.txt"
done
