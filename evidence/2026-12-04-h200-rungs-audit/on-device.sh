#!/usr/bin/env bash
# ON THE DEVICE, from the repository root, carrying .device/pack (filled here by
# ../2026-12-03-h200-kernel-tuner/next-call.sh at the commit to check), $OUT set: the rungs with
# the screen's audit on the example's 192 configurations, four times each for the Rust and the
# nvcc PTX, alternating, every transcript with its provenance, --stats and standard error (where
# the audit's warning would be), each process timed from its start to its exit; then both GPU
# test suites (../2026-12-02-h200-block-shapes/gpu-tests.sh, REQUIRE_GPU=1). About 90 s.
# Back: rungs.tgz (the transcripts rungs-*.txt), gpu-tests.tgz, gpu-tests-log.txt.
set -u
: "${OUT:?set OUT to the output folder}"
tar xJf .device/pack/all.tar.xz || exit 1
(
    cd .device-carry/kt || exit 1
    chmod +x reduce-example
    SIZES=$(seq -s, 32 32 1024)
    for round in 1 2 3 4; do
        for source in rust cuda; do
            name=rungs-$source-$round
            s=$(date +%s.%N)
            {
                echo "# command: ./reduce-example --block-sizes $SIZES --grids one-wave,waves:2,waves:4 --provenance --stats --source $source --search rungs"
                echo "# binaries of $(head -n 1 COMMIT)"
                ./reduce-example --block-sizes "$SIZES" --grids one-wave,waves:2,waves:4 --provenance --stats \
                    --source "$source" --search rungs 2>&1
                c=$?
                echo "# exit status: $c; wall: $(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }') s"
            } > "$OUT/$name.txt"
            tail -n 1 "$OUT/$name.txt" | sed "s/^/$name: /"
        done
    done
    grep -l "^Warning: the rungs' screen" "$OUT"/rungs-*.txt | sed 's/^/audit warning in: /'
    tar -C "$OUT" -czf "$OUT/rungs.tgz" $(cd "$OUT" && ls rungs-*.txt) && rm "$OUT"/rungs-*.txt
)
timeout 150 bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh > "$OUT/gpu-tests-log.txt" 2>&1
echo "gpu-tests.sh: exit $?"
cat "$OUT/gpu-tests-log.txt"
