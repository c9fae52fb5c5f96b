#!/usr/bin/env bash
# Issue 43, item 4, ON THE DEVICE, from the carry folder that stage.sh fills:
#     cd .device-carry/kt-family && OUT=$OUT bash run.sh        (ROUNDS=2, BUDGET=300 by default)
# Kernel Tuner 1.5.0 brute force (cupy backend, NVRTC) against block-size on one space, the
# grayscale family: block-size --grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8,
# 13 block sizes x 5 kernels (k1, vec4, k2, k4, k8) = 65 configurations, the 3840 x 2160 frame.
#   0. facts: date, nvidia-smi, nvcc --version, hashes (SHA256SUMS), Python and its packages;
#   1. Kernel Tuner into a venv with the system's (and the calling venv's) packages, from wheels/,
#      as ../2026-12-03-h200-kernel-tuner/run.sh does; tune_family.py --self-test;
#   2. one untimed block-size run (its PTX JIT-compiled into the driver's cache, as bench.sh's
#      warm run), then ROUNDS rounds, the even ones in reverse order: block-size --search
#      exhaustive, race, rungs (--stats --json) and tune_family.py (Kernel Tuner brute force, a
#      fresh cupy cache each run), each one process timed from its start to its exit
#      (date +%s.%N around it);
#   3. every run's winner re-measured by one harness, block-size on that configuration alone
#      (--block-sizes B --vector-width V --pixels-per-thread P --grid per-item --runs 200), two
#      passes, the second reversed; and by Kernel Tuner on the C++ build (tune_family.py --only
#      B:V:P,... --iterations 200), two passes;
#   4. summarize.py: summary.txt.
# Everything goes into one tarball, $OUT/kt-family.tgz, with summary.txt and steps.txt beside it.
# A step that fails is logged and the rest go on; a step of the rounds that would start past
# BUDGET seconds is skipped and logged; the re-measures run whatever the time.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 1
FINAL=${OUT:?set OUT to the output folder}
W=$(mktemp -d)
SCRATCH=$(mktemp -d)
START=$(date +%s.%N)
BUDGET=${BUDGET:-300}
ROUNDS=${ROUNDS:-2}
FAMILY=(--grid per-item --vector-width "1,4" --pixels-per-thread "1,2,4,8")
BIN=./block-size
chmod +x ./block-size ./block-size-cuda 2>/dev/null

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
log() { echo "$*" | tee -a "$W/steps.txt"; }
over_budget() { awk -v e="$(since "$START")" -v b="$BUDGET" 'BEGIN { exit !(e > b) }'; }
# step NAME TIMEOUT COMMAND...: its output in NAME.txt, the command first, its exit status and
# wall time (process start to exit, s and ms) last.
step() {
    local name=$1 limit=$2
    shift 2
    if [ -z "${ALWAYS:-}" ] && over_budget; then
        log "$name: SKIPPED (past the ${BUDGET} s budget at $(since "$START") s)"
        return 0
    fi
    local s c wall
    echo "# command: $*" > "$W/$name.txt"
    s=$(date +%s.%N)
    timeout "$limit" "$@" >> "$W/$name.txt" 2>&1
    c=$?
    wall=$(since "$s")
    echo "# exit status: $c; wall: $wall s ($(awk -v w="$wall" 'BEGIN { printf "%.0f", w * 1000 }') ms)" >> "$W/$name.txt"
    log "$name: exit $c, wall $wall s (at $(since "$START") s)"
}

# 0. Facts.
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# host: $(uname -a)"
    echo "# commit: $(head -n 1 COMMIT 2>/dev/null)"
    sed 's/^/# COMMIT: /' COMMIT 2>/dev/null
    nvidia-smi -q 2>&1 | sed -n '1,20p'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,persistence_mode --format=csv 2>&1
    echo "# nvcc: $(command -v nvcc || echo 'not on PATH')"
    nvcc --version 2>&1 | tail -n 3
    echo "# sha256sum -c SHA256SUMS"
    sha256sum -c SHA256SUMS 2>&1
    echo "# python: $(python3 --version 2>&1) at $(command -v python3)"
    python3 -c 'import sys; print("prefix", sys.prefix, "base", sys.base_prefix)' 2>&1
    python3 -m pip list 2>/dev/null | grep -iE '^(numpy|scipy|cupy|cuda|pandas|scikit|pymoo|nvidia)' 2>&1
} > "$W/facts.txt" 2>&1
cat "$W/facts.txt"

# 1. Kernel Tuner, offline: a venv with --system-site-packages, plus a .pth naming the calling
#    venv's site-packages where python3 is itself a venv, so numpy, scipy and cupy come from the
#    device (../2026-12-03-h200-kernel-tuner/run.sh, step 1).
V=$SCRATCH/venv
{
    python3 -m venv --system-site-packages "$V" && echo "venv: $V"
    outer=$(python3 -c 'import site, sys; print(site.getsitepackages()[0] if sys.prefix != sys.base_prefix else "")')
    if [ -n "$outer" ] && [ -x "$V/bin/python" ]; then
        purelib=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
        echo "$outer" > "$purelib/calling-venv.pth"
        echo "calling venv's packages: $outer (in $purelib/calling-venv.pth)"
    fi
    if [ -x "$V/bin/python" ]; then
        KTPY=$V/bin/python
        echo "## pip install --no-index --find-links wheels kernel_tuner"
        if ! "$KTPY" -m pip install --no-index --find-links wheels kernel_tuner; then
            echo "## that did not resolve offline (see above); every wheel of wheels/ without dependencies instead"
            "$KTPY" -m pip install --no-index --find-links wheels --no-deps wheels/*.whl
        fi
    else
        echo "## no venv (python3 -m venv failed): pip install --target, on PYTHONPATH"
        python3 -m pip install --no-index --no-deps --target "$SCRATCH/site" wheels/*.whl
        KTPY=python3
    fi
    echo "KTPY=$KTPY"
    echo "$KTPY" > "$SCRATCH/ktpy"
    "$KTPY" -m pip check
    "$KTPY" -m pip list 2>/dev/null
    "$KTPY" -c 'import kernel_tuner, numpy, scipy, cupy; print("kernel_tuner", getattr(kernel_tuner, "__version__", "?"), "numpy", numpy.__version__, "scipy", scipy.__version__, "cupy", cupy.__version__); cupy.cuda.runtime.getDeviceCount()'
    "$KTPY" -c 'import cupy; print("cupy: devices", cupy.cuda.runtime.getDeviceCount(), "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion(), "NVRTC", cupy.cuda.nvrtc.getVersion())'
} > "$W/install.txt" 2>&1
KTPY=$(cat "$SCRATCH/ktpy" 2>/dev/null || echo python3)
[ "$KTPY" = python3 ] && export PYTHONPATH=$SCRATCH/site${PYTHONPATH:+:$PYTHONPATH}
tail -n 3 "$W/install.txt"
log "install: $(grep -c . "$W/install.txt") lines, KTPY=$KTPY, at $(since "$START") s"
"$KTPY" tune_family.py --self-test > "$W/self-test.txt" 2>&1
log "tune_family.py --self-test: exit $? ($(tail -n 1 "$W/self-test.txt"))"

kt() { # NAME [tune_family.py options...]
    local name=$1
    shift
    # A fresh cupy kernel cache for every run: no compile of an earlier run is reused.
    CUPY_CACHE_DIR=$(mktemp -d -p "$SCRATCH")
    export CUPY_CACHE_DIR
    step "$name" "${KT_LIMIT:-180}" "$KTPY" tune_family.py --out "$W" --name "$name" "$@"
    # Kernel Tuner leaves a failing configuration's source here (temp_*): into the tarball.
    for temp in temp_*; do [ -e "$temp" ] && mv -f -- "$temp" "$W/$name.$temp"; done
}
bs() { # NAME --search SEARCH
    local name=$1
    shift
    step "$name" 120 "$BIN" "${FAMILY[@]}" --stats "$@" --json "$W/$name.json"
}

# 2. The rounds, after one untimed run that leaves the PTX in the driver's JIT cache.
ALWAYS=1 step bs-warm 60 "$BIN" --block-sizes 256 --runs 1 --warmups 0
for round in $(seq 1 "$ROUNDS"); do
    steps=(bs-exhaustive bs-race bs-rungs kt-brute)
    if [ $((round % 2)) -eq 0 ]; then
        steps=(kt-brute bs-rungs bs-race bs-exhaustive)
    fi
    for s in "${steps[@]}"; do
        case $s in
            kt-brute) kt "kt-brute-$round" --strategy brute_force ;;
            bs-*) bs "$s-$round" --search "${s#bs-}" ;;
        esac
    done
done

# 3. Every winner re-measured by one harness (block-size, two passes, the second reversed),
#    then all of them by Kernel Tuner on the C++ build (two passes).
"$KTPY" summarize.py winners "$W" > "$W/winners.txt" 2>&1
cat "$W/winners.txt"
mapfile -t launches < <(awk '!/^#/ && NF >= 4 { print $2 " " $3 " " $4 }' "$W/winners.txt" | sort -u -k1,1n -k2,2n -k3,3n)
for pass in 1 2; do
    order=("${launches[@]}")
    if [ "$pass" -eq 2 ]; then
        order=()
        for ((i = ${#launches[@]} - 1; i >= 0; i--)); do order+=("${launches[$i]}"); done
    fi
    for launch in "${order[@]}"; do
        read -r block width pixels <<< "$launch"
        ALWAYS=1 step "remeasure-$block-$width-$pixels-$pass" 60 "$BIN" --block-sizes "$block" \
            --vector-width "$width" --pixels-per-thread "$pixels" --grid per-item --runs 200 --stats \
            --json "$W/remeasure-$block-$width-$pixels-$pass.json"
    done
done
only=$(printf '%s\n' "${launches[@]}" | awk 'NF == 3 { printf "%s%s:%s:%s", (n++ ? "," : ""), $1, $2, $3 }')
if [ -n "$only" ]; then
    for pass in 1 2; do
        ALWAYS=1 KT_LIMIT=150 kt "kt-remeasure-$pass" --only "$only" --iterations 200
    done
else
    log "no winner to re-measure"
fi

# 4. The summary.
"$KTPY" summarize.py table "$W" > "$W/summary.txt" 2> "$W/summarize-errors.txt"
log "summarize: exit $?; total $(since "$START") s"
cat "$W/summary.txt"
cp "$W/summary.txt" "$W/steps.txt" "$FINAL/" 2>/dev/null
tar -C "$W" -czf "$FINAL/kt-family.tgz" .
ls -la "$FINAL"
rm -rf "$W" "$SCRATCH"
