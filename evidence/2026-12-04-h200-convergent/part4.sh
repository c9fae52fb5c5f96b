#!/usr/bin/env bash
# A fresh `block-size new --cuda` project of the commit this stop lands (written and built here:
# gpu-bin/final.tar.xz holds its stripped worker and a MANIFEST), `compare` at n = 2^24 and 2^26
# with --json, on the H200. Run by the device tool from the repository root.
set -u
bins=/tmp/final && mkdir -p $bins && tar -xJf gpu-bin/final.tar.xz -C $bins
for n in 16777216 67108864; do
    {
        echo "\$ proj3-cuda compare --n $n --provenance --json $OUT/compare-final-$n.json"
        $bins/proj3-cuda compare --n "$n" --provenance --json "$OUT/compare-final-$n.json"
        echo "exit status $?"
        cat $bins/MANIFEST
    } >"$OUT/compare-final-$n.txt" 2>&1
    tail -n 4 "$OUT/compare-final-$n.txt"
done
