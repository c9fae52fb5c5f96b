#!/usr/bin/env bash
# Issue 19, the 4096-bin bar: the histogram's shapes (histogram, _x4, _x8, _x8k2, _x8k4, _x8k2c,
# _x8k2cs, _x8k4c) on the H200, in one device call. Binaries of branch `hist19` at ded5ff3, built
# on the dev machine (cargo build --release --locked -p block-size --bins, stripped), carried as
# .device/hist19/.
#
# In order, each step skipped once the script has run past its deadline (DEADLINE seconds):
#   1. variants --kernel histogram at 66 M pixels (11520 x 5760), 256 and 4096 bins, with the
#      device-to-device copy of as many bytes as a pass reads; variants (grayscale) at 66 M, whose
#      copy is the 506 MiB one of docs/variants.md;
#   2. compare --kernel <each shape>, 256 and 4096 bins, 66 M pixels;
#   3. the sweep of histogram_x8k2c and histogram_x8k2cs, 256 and 4096 bins, 66 M pixels;
#   4. compute-sanitizer memcheck, synccheck, racecheck over variants --kernel histogram (all 16
#      kernels) at 1 pixel and 1000003 pixels, 1, 7, 256 and 4096 bins, luma offsets 0, 1, 3, 5;
#   5. ncu on the fastest Rust row of step 1 at each bin count, and at 4096 bins on
#      histogram_x8k2c and histogram_x8k2cs with the L2 reduction counters.
set -u
B=.device/hist19
FRAME=(--width 11520 --height 5760)
SHAPES=(histogram histogram_x4 histogram_x8 histogram_x8k2 histogram_x8k4 histogram_x8k2c histogram_x8k2cs histogram_x8k4c)
START=$(date +%s)
DEADLINE=${DEADLINE:-300}
late() { [ $(( $(date +%s) - START )) -ge "$DEADLINE" ]; }
run() { # file, args...  (appends the command, its output and its exit status)
    local file=$1; shift
    if late; then echo "################ skipped (past ${DEADLINE} s): block-size $*" >> "$OUT/$file"; return; fi
    echo "################ block-size $*" >> "$OUT/$file"
    "$B/block-size" "$@" >> "$OUT/$file" 2>&1
    echo "# exit status: $?" >> "$OUT/$file"
}
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
    uname -r
} > "$OUT/env.txt" 2>&1

# 1. The variants against the copy.
for bins in 256 4096; do
    run variants.txt variants --provenance --kernel histogram --bins $bins "${FRAME[@]}" --runs 20
done
run variants.txt variants --provenance "${FRAME[@]}" --runs 20

# 2. Rust against C++, each shape.
for bins in 256 4096; do
    for shape in "${SHAPES[@]}"; do
        run compare.txt compare --provenance --kernel $shape --bins $bins "${FRAME[@]}"
    done
done

# 3. The sweeps of the two spread shapes with two copies at 4096 bins.
for bins in 256 4096; do
    for shape in histogram_x8k2c histogram_x8k2cs; do
        run sweeps.txt --provenance --kernel $shape --bins $bins "${FRAME[@]}"
    done
done

# 4. compute-sanitizer over every shape from both compilers (variants runs all 16).
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{
    echo "# $($S --version | tail -1)"
    for tool in memcheck synccheck racecheck; do
        sizes=100,1024
        [ $tool = memcheck ] && sizes=1,100,1024
        for case in "1 pixel, 1 bin|--width 1 --height 1 --bins 1" \
                    "1 pixel, 4096 bins, luma 1 pixel past a 16-byte boundary|--width 1 --height 1 --bins 4096 --offset 1" \
                    "1000003 pixels, 7 bins, luma 3 pixels past|--width 1000003 --height 1 --bins 7 --offset 3" \
                    "1000003 pixels, 256 bins, aligned|--width 1000003 --height 1 --bins 256" \
                    "1000003 pixels, 4096 bins, luma 5 pixels past|--width 1000003 --height 1 --bins 4096 --offset 5"; do
            name=${case%%|*}; args=${case#*|}
            command="$S --tool $tool --print-limit 20 --error-exitcode 99 block-size-cuda variants --kernel histogram $args --block-sizes $sizes --warmups 0 --runs 1"
            if late; then echo "################ skipped (past ${DEADLINE} s): $command   [$name]"; continue; fi
            echo "################ $command   [$name]"
            # shellcheck disable=SC2086
            timeout 60 $S --tool $tool --print-limit 20 --error-exitcode 99 $B/block-size-cuda variants --kernel histogram $args --block-sizes $sizes --warmups 0 --runs 1 2>&1
            echo "# exit status: $?"
        done
    done
} > "$OUT/sanitizer.txt" 2>&1

# 5. ncu: the fastest Rust row of each bin count (sections), then x8k2c and x8k2cs at 4096 bins
#    and 1024 threads with the L2 reduction counters.
N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SECTIONS=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section LaunchStats)
METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,lts__t_requests_srcunit_tex_op_red.sum,lts__t_sectors_srcunit_tex_op_red.sum
profile() { # label, entry, bins, threads, ncu options...
    local label=$1 entry=$2 bins=$3 threads=$4; shift 4
    local command="$N --clock-control none --kernel-name regex:^histogram --launch-count 1 $* block-size-cuda --kernel $entry --bins $bins ${FRAME[*]} --block-sizes $threads --timing launch --warmups 0 --runs 1"
    if late || [ -z "$entry" ]; then echo "################ skipped: $command   [$label]"; return; fi
    echo "################ $command   [$label]"
    timeout 60 $N --clock-control none --kernel-name regex:^histogram --launch-count 1 "$@" $B/block-size-cuda --kernel $entry --bins $bins "${FRAME[@]}" --block-sizes $threads --timing launch --warmups 0 --runs 1 2>&1
    echo "# exit status: $?"
}
{
    echo "# $($N --version | tail -1)"
    for bins in 256 4096; do
        best=$(awk -v want="--kernel histogram --bins $bins " '/^################/ { on = index($0, want) > 0 } on && /^Fastest Rust:/ { print; exit }' "$OUT/variants.txt")
        variant=$(echo "$best" | awk '{print $4}'); threads=$(echo "$best" | awk '{print $6}')
        entry=histogram; [ "$variant" != k1 ] && entry=histogram_$variant
        [ -z "$variant" ] && entry=""
        profile "$best" "$entry" $bins "$threads" "${SECTIONS[@]}"
    done
    for entry in histogram_x8k2c histogram_x8k2cs; do
        profile "counters, 4096 bins" $entry 4096 1024 --metrics $METRICS
    done
    profile "counters, 256 bins" histogram_x8k2 256 1024 --metrics $METRICS
} > "$OUT/ncu.txt" 2>&1

echo "# elapsed: $(( $(date +%s) - START )) s" >> "$OUT/env.txt"
grep -h "^Fastest Rust\|^Ceiling\|^Rust / C++" "$OUT/variants.txt"
grep -hE " 1024 " "$OUT/variants.txt" | grep -E "x8k2c|x8k2 "
grep -h "exit status" "$OUT"/*.txt | sort | uniq -c
grep -hE "^################|gpu__time|Duration|DRAM Throughput|lts__t_sectors" "$OUT/ncu.txt"
cat "$OUT/env.txt"
