#!/usr/bin/env bash
# Issue 43, the second call: where the process floor goes, by marks in the program itself, and
# whether the driver's teardown can be left to the process's exit. From the repository root on
# the device, carrying gpu-bin (tl.tar.xz: block-size, block-size-cuda, reduce-example and
# reduce-example-cuda built at the commit in tl/COMMIT with a temporary patch, not committed,
# that prints "timeline <unix µs> <pid> <mark>" to standard error where BLOCK_SIZE_TIMELINE is
# set: the launcher's main, the driver check, the worker's main, the measurement's start, the
# device opened, the host data, the journal and sensors, the search's start and end, the
# measurement returned (the device dropped), the table delivered, the worker's and the
# launcher's exit). The shell prints its own marks before and after each process. Alternating,
# three rounds:
#   cuda_floor PTX        the driver alone, with its teardown
#   cuda_floor PTX exit   the driver alone, exiting with the context alive
#   floor                 tl/block-size --block-sizes 256 --runs 1 --warmups 0 --stats
#   reduce-exhaustive     tl/reduce-example over the bench's 192 configurations, --search exhaustive --stats
#   reduce-rungs          the same, --search rungs
# Writes $OUT/timeline.tgz.
set -u
FINAL=$OUT
W=$(mktemp -d)
T=$(mktemp -d)
tar -xJf gpu-bin/tl.tar.xz -C "$T"
export PATH="$PATH:/usr/local/cuda/bin"
nvcc -O2 -o "$W/cuda_floor" evidence/2026-12-05-h200-floor/cuda_floor.c -lcuda || exit 1
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm --format=csv,noheader)"
    echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
    echo "# timeline binaries: $(cat "$T/COMMIT")"
    echo "# kernels/ptx/grayscale.ptx sha256 $(sha256sum kernels/ptx/grayscale.ptx | cut -c1-64)"
} > "$W/head.txt"
REDUCE=(--block-sizes "$(seq -s, 32 32 1024)" --grids one-wave,waves:2,waves:4)
marked() { # name, program, args...
    local name=$1; shift
    local f="$W/$name-$round.txt"
    echo "timeline $(( $(date +%s%N) / 1000 )) shell start $name" > "$f"
    BLOCK_SIZE_TIMELINE=1 "$@" >> "$f" 2>&1
    local c=$?
    echo "timeline $(( $(date +%s%N) / 1000 )) shell end $name (exit $c)" >> "$f"
}
round=0 marked warm "$T/block-size" --block-sizes 256 --runs 1 --warmups 0
round=0 marked warm-reduce "$T/reduce-example" --block-sizes 256 --runs 1 --warmups 0
for round in 1 2 3; do
    marked cuda_floor "$W/cuda_floor" kernels/ptx/grayscale.ptx
    marked cuda_floor-exit "$W/cuda_floor" kernels/ptx/grayscale.ptx exit
    marked floor "$T/block-size" --block-sizes 256 --runs 1 --warmups 0 --stats
    marked reduce-exhaustive "$T/reduce-example" "${REDUCE[@]}" --search exhaustive --stats
    marked reduce-rungs "$T/reduce-example" "${REDUCE[@]}" --search rungs --stats
done
cat "$W/head.txt"
for f in "$W"/*-[123].txt; do
    python3 - "$f" <<'PY'
import sys
marks = []
for line in open(sys.argv[1]):
    if line.startswith("timeline "):
        parts = line.split(maxsplit=3)
        marks.append((int(parts[1]), parts[3].strip() if len(parts) > 3 else ""))
    elif line.startswith(("cuInit", "Time:")):
        print("   ", line.strip()[:200])
start = marks[0][0] if marks else 0
print(sys.argv[1].rsplit("/", 1)[-1] + ": " + ", ".join(f"{(t - start) / 1000:.1f} {m}" for t, m in marks))
PY
done
tar -czf "$FINAL/timeline.tgz" -C "$W" .
