#!/usr/bin/env bash
# hist19 experiment (not evidence): merge variants of histogram_x8k2c / _x8k2 at 256 and 4096 bins.
set -u
B=.device/hist19
FRAME=(--width 11520 --height 5760)
START=$(date +%s)
DEADLINE=${DEADLINE:-200}
late() { [ $(( $(date +%s) - START )) -ge "$DEADLINE" ]; }
run() { local file=$1; shift
    if late; then echo "################ skipped: block-size $*" >> "$OUT/$file"; return; fi
    echo "################ block-size $*" >> "$OUT/$file"
    "$B/block-size" "$@" >> "$OUT/$file" 2>&1; echo "# exit status: $?" >> "$OUT/$file"; }
{ echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } > "$OUT/env.txt" 2>&1
run variants.txt variants --kernel histogram --bins 4096 "${FRAME[@]}" --runs 20 --block-sizes 512,1024
run variants.txt variants --kernel histogram --bins 256 "${FRAME[@]}" --runs 20 --block-sizes 512,1024
run variants.txt variants "${FRAME[@]}" --runs 20
run variants.txt variants --kernel histogram --bins 4096 "${FRAME[@]}" --runs 20 --block-sizes 1024
run variants.txt variants --kernel histogram --bins 256 "${FRAME[@]}" --runs 20 --block-sizes 1024
N=/usr/local/cuda/bin/ncu
prof() { # bins kernel [extra ncu args]
    local bins=$1 k=$2; shift 2
    if late; then echo "######## skipped ncu $bins $k $*"; return; fi
    echo "######## ncu $bins bins $k $*"
    timeout 60 $N --clock-control none --kernel-name regex:^histogram --launch-count 1 "$@" $B/block-size-cuda --kernel $k --bins $bins "${FRAME[@]}" --block-sizes 1024 --timing launch --warmups 0 --runs 1 2>&1 | grep -v "^  *[-]*$"
    echo "# exit status: $?"
}
SECT=(--section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section WarpStateStats)
MET=(--metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_atom.sum,lts__t_requests_srcunit_tex_op_red.sum,lts__t_sectors_srcunit_tex_op_red.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed)
{
for k in histogram_x8k2c histogram_x8k2c_m0 histogram_x8k2c_m4 histogram_x8k2; do prof 4096 $k "${SECT[@]}"; done
for k in histogram_x8k2c histogram_x8k2c_m0 histogram_x8k2c_m2 histogram_x8k2c_m3 histogram_x8k2c_m4 histogram_x8k2 histogram_x8k2_m0; do prof 4096 $k "${MET[@]}"; done
for k in histogram_x8k2 histogram_x8k2_m0 histogram_x8k2_m4 histogram_x8k2c; do prof 256 $k "${MET[@]}"; done
prof 256 histogram_x8k2 "${SECT[@]}"
} > "$OUT/ncu.txt" 2>&1
echo "# elapsed: $(( $(date +%s) - START )) s" >> "$OUT/env.txt"
grep -hE "^################|^Fastest|^Ceiling|^Rust / C\+\+| 1024 " "$OUT/variants.txt" | head -150
cat "$OUT/env.txt"
