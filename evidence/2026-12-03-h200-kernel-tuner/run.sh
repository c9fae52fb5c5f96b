#!/usr/bin/env bash
# Issue 29, part 1, ON THE DEVICE, from the carry folder that stage.sh fills:
#     OUT=/path/to/output bash run.sh
# Kernel Tuner 1.5.0 (cupy backend, NVRTC) against block-size on one space: the example's sum of
# squares (2^24 floats), block sizes 32, 64, ..., 1024 x items per thread 1, 4 x grid one wave,
# 2 waves, 4 waves = 192 configurations. See README.md.
#   0. facts: date, nvidia-smi, hashes, Python packages;
#   1. Kernel Tuner into a venv with the system's (and the calling venv's) packages, from wheels/;
#   2. two rounds, the second in reverse order: KT brute_force, block-size exhaustive (Rust
#      PTX), exhaustive (nvcc PTX of the same CUDA C++ that KT compiles), race, rungs (nvcc
#      PTX), KT model-based (bayes_opt where scikit-learn imports, else dual_annealing), each
#      one process timed from its start to its exit (date +%s.%N around it);
#   3. every winner re-measured by one harness, reduce-example --source cuda --runs 200 at its
#      block size and grid (KT's items_per_thread 1 is the entry sum_of_squares, 4 is
#      sum_of_squares_x4: one template in reduce.cu), two passes, the second reversed;
#   4. summarize.py writes side-by-side.md.
# Everything goes into one tarball, $OUT/kt.tgz. A step that fails is logged and the rest go on;
# a step of the rounds that would start past BUDGET seconds (default 380) is skipped and logged;
# the re-measures run whatever the time (about 2 s each), so the whole fits the device's 600 s.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 1
FINAL=${OUT:?set OUT to the output folder}
W=$(mktemp -d)
SCRATCH=$(mktemp -d)
START=$(date +%s.%N)
BUDGET=${BUDGET:-380}
ROUNDS=${ROUNDS:-2}
SIZES=$(seq -s, 32 32 1024)
AXES="--block-sizes $SIZES --grids one-wave,waves:2,waves:4"
BIN=./reduce-example
chmod +x "$BIN" 2>/dev/null

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
log() { echo "$*" | tee -a "$W/steps.txt"; }
over_budget() { awk -v e="$(since "$START")" -v b="$BUDGET" 'BEGIN { exit !(e > b) }'; }
# step NAME TIMEOUT COMMAND...: its output in NAME.txt, the command first, its exit status and
# wall time (process start to exit) last.
step() {
    local name=$1 limit=$2
    shift 2
    if [ -z "${ALWAYS:-}" ] && over_budget; then
        log "$name: SKIPPED (past the ${BUDGET} s budget at $(since "$START") s)"
        return 0
    fi
    local s c
    echo "# command: $*" > "$W/$name.txt"
    s=$(date +%s.%N)
    timeout "$limit" "$@" >> "$W/$name.txt" 2>&1
    c=$?
    local wall
    wall=$(since "$s")
    echo "# exit status: $c; wall: $wall s" >> "$W/$name.txt"
    log "$name: exit $c, wall $wall s (at $(since "$START") s)"
}

# 0. Facts.
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# host: $(uname -a)"
    echo "# commit: $(head -n 1 COMMIT 2>/dev/null)"
    nvidia-smi -q 2>&1 | sed -n '1,20p'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
    echo "# sha256"
    sha256sum reduce-example reduce.cu reduce.ptx reduce-nvcc.ptx tune.py run.sh summarize.py 2>&1
    echo "# python: $(python3 --version 2>&1) at $(command -v python3)"
    python3 -c 'import sys; print("prefix", sys.prefix, "base", sys.base_prefix)' 2>&1
    python3 -m pip list 2>/dev/null | grep -iE '^(numpy|scipy|cupy|cuda|pandas|scikit|pymoo|matplotlib|nvidia)' 2>&1
    nvcc --version 2>&1 | tail -n 2
} > "$W/facts.txt" 2>&1
cat "$W/facts.txt"

# 1. Kernel Tuner, offline. A venv with --system-site-packages, plus a .pth naming the calling
#    venv's site-packages where python3 is itself a venv (--system-site-packages reaches only the
#    base interpreter's), so numpy, scipy and cupy come from the device.
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
        export PYTHONPATH=$SCRATCH/site${PYTHONPATH:+:$PYTHONPATH}
    fi
    echo "KTPY=$KTPY"
    echo "$KTPY" > "$SCRATCH/ktpy"
    "$KTPY" -m pip check
    "$KTPY" -m pip list 2>/dev/null
    "$KTPY" -c 'import kernel_tuner, numpy, scipy, cupy; print("kernel_tuner", kernel_tuner.__version__ if hasattr(kernel_tuner, "__version__") else "?", "numpy", numpy.__version__, "scipy", scipy.__version__, "cupy", cupy.__version__); cupy.cuda.runtime.getDeviceCount()'
} > "$W/install.txt" 2>&1
KTPY=$(cat "$SCRATCH/ktpy" 2>/dev/null || echo python3)
[ "$KTPY" = python3 ] && export PYTHONPATH=$SCRATCH/site${PYTHONPATH:+:$PYTHONPATH}
tail -n 3 "$W/install.txt"
log "install: $(grep -c . "$W/install.txt") lines, KTPY=$KTPY, at $(since "$START") s"
"$KTPY" tune.py --self-test > "$W/self-test.txt" 2>&1
log "tune.py --self-test: exit $?"
# bayes_opt where its Gaussian process imports (scikit-learn), else scipy's dual_annealing.
if "$KTPY" -c 'import sklearn.gaussian_process' > "$W/sklearn.txt" 2>&1; then MODEL=bayes_opt; else MODEL=dual_annealing; fi
log "model-based strategy: $MODEL (max_fevals 48, a quarter of 192; sklearn: $(tail -n 1 "$W/sklearn.txt"))"

kt() { # NAME STRATEGY [tune.py options...]
    local name=$1 strategy=$2
    shift 2
    # A fresh cupy kernel cache for every run: no compile of an earlier run is reused.
    CUPY_CACHE_DIR=$(mktemp -d -p "$SCRATCH")
    export CUPY_CACHE_DIR
    step "$name" 240 "$KTPY" tune.py --strategy "$strategy" --out "$W" --name "$name" "$@"
}
bs() { # NAME reduce-example options...
    local name=$1
    shift
    step "$name" 150 "$BIN" $AXES --provenance --stats "$@" --json "$W/$name.json"
}
# 2. Rounds.
for round in $(seq 1 "$ROUNDS"); do
    steps=(kt-brute bs-rust-exhaustive bs-rust-race bs-rust-rungs bs-cuda-exhaustive bs-cuda-race bs-cuda-rungs kt-model)
    if [ $((round % 2)) -eq 0 ]; then
        steps=(kt-model bs-cuda-rungs bs-cuda-race bs-cuda-exhaustive bs-rust-rungs bs-rust-race bs-rust-exhaustive kt-brute)
    fi
    for s in "${steps[@]}"; do
        case $s in
            kt-brute) kt "kt-brute-$round" brute_force ;;
            kt-model) kt "kt-model-$round" "$MODEL" --max-fevals 48 ;;
            bs-rust-exhaustive) bs "bs-rust-exhaustive-$round" --source rust --search exhaustive ;;
            bs-rust-race) bs "bs-rust-race-$round" --source rust --search race ;;
            bs-rust-rungs) bs "bs-rust-rungs-$round" --source rust --search rungs ;;
            bs-cuda-exhaustive) bs "bs-cuda-exhaustive-$round" --source cuda --search exhaustive ;;
            bs-cuda-race) bs "bs-cuda-race-$round" --source cuda --search race ;;
            bs-cuda-rungs) bs "bs-cuda-rungs-$round" --source cuda --search rungs ;;
        esac
    done
done

# 3. Every winner re-measured by one harness, two passes, the second reversed.
"$KTPY" summarize.py winners "$W" > "$W/winners.txt" 2>&1
cat "$W/winners.txt"
mapfile -t launches < <(awk '!/^#/ && NF >= 3 { print $2 " " $3 }' "$W/winners.txt" | sort -u)
for pass in 1 2; do
    order=("${launches[@]}")
    if [ "$pass" -eq 2 ]; then
        order=()
        for ((i = ${#launches[@]} - 1; i >= 0; i--)); do order+=("${launches[$i]}"); done
    fi
    for launch in "${order[@]}"; do
        read -r block grid <<< "$launch"
        ALWAYS=1 step "remeasure-$block-${grid/:/}-$pass" 60 "$BIN" --source cuda --block-sizes "$block" --grids "$grid" \
            --runs 200 --provenance --stats --json "$W/remeasure-$block-${grid/:/}-$pass.json"
    done
done

# 4. The table.
"$KTPY" summarize.py table "$W" > "$W/side-by-side.md" 2> "$W/summarize-errors.txt"
log "summarize: exit $?; total $(since "$START") s"
cat "$W/side-by-side.md"
cp "$W/steps.txt" "$FINAL/steps.txt" 2>/dev/null
tar -C "$W" -czf "$FINAL/kt.tgz" .
ls -la "$FINAL"
rm -rf "$W" "$SCRATCH"
