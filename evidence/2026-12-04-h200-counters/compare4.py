#!/usr/bin/env python3
"""Reads run4.sh's files (in the folder given, default: this script's run4/) and prints, for each
round and each of the default sweep's 13 block sizes, each counter --counters read over Nsight
Compute's own reading of the replay of the same sweep, run by hand: their ratios' range per
counter."""
import csv, json, os, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "run4")
FIELDS = {
    "dram__bytes.sum.per_second": ("dram_bytes_per_second", 1.0),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("achieved_occupancy_percent", 1.0),
    "smsp__thread_inst_executed_per_inst_executed.ratio": ("warp_efficiency_percent", 100.0 / 32.0),
    "smsp__sass_average_branch_targets_threads_uniform.pct": ("branch_efficiency_percent", 1.0),
    "lts__t_sector_hit_rate.pct": ("l2_hit_percent", 1.0),
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": ("memory_stalls_per_issue", 1.0),
}
for round in (1, 2):
    rows = list(csv.reader(open(os.path.join(here, f"replay13-{round}.csv"))))
    header, kernels = rows[0], [row for row in rows[1:] if row and row[0].isdigit()]
    ours = json.load(open(os.path.join(here, f"counters13-{round}.json")))["rows"]
    print(f"# round {round}: {len(kernels)} kernels profiled by hand, {len(ours)} rows of --counters")
    for metric, (field, scale) in FIELDS.items():
        column = header.index(metric)
        ratios = []
        for kernel, row in zip(kernels, ours):
            own = float(kernel[column].replace(",", "")) * scale
            mine = row["counters"][field]
            ratios.append(mine / own if own else float("nan"))
        print(f"  {field:30} {min(ratios):.4f} to {max(ratios):.4f}")
    l2 = header.index("lts__t_sector_hit_rate.pct")
    print("  l2_hit_percent by hand:    " + " ".join(f"{float(k[l2]):.2f}" for k in kernels))
    print("  l2_hit_percent --counters: " + " ".join(f"{row['counters']['l2_hit_percent']:.2f}" for row in ours))
