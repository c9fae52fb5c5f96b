#!/usr/bin/env python3
"""Reads run.sh's spread files (in the folder given, default: this script's run1/) and prints, for
the default sweep and the histogram at 4096 bins, each counter's agreement with Nsight Compute's
own reading of the same replay run by hand: per row, the ratio of one --counters reading to the
by-hand reading of the same round (every round), the ratio of the medians of the five readings
each, and how far the five by-hand readings themselves spread (max over min)."""
import csv, json, os, statistics, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "run1")
FIELDS = {
    "dram__bytes.sum.per_second": ("dram_bytes_per_second", 1.0),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("achieved_occupancy_percent", 1.0),
    "smsp__thread_inst_executed_per_inst_executed.ratio": ("warp_efficiency_percent", 100.0 / 32.0),
    "smsp__sass_average_branch_targets_threads_uniform.pct": ("branch_efficiency_percent", 1.0),
    "lts__t_sector_hit_rate.pct": ("l2_hit_percent", 1.0),
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": ("barrier_stalls_per_issue", 1.0),
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": ("memory_stalls_per_issue", 1.0),
    "bank": ("shared_bank_conflicts", 1.0),
}
ROUNDS = range(1, 6)


def hand(name, round):
    rows = list(csv.reader(open(os.path.join(here, f"hand-{name}-{round}.csv"))))
    header, kernels = rows[0], [row for row in rows[1:] if row and row[0].isdigit()]
    value = lambda kernel, metric: float(kernel[header.index(metric)].replace(",", ""))
    readings = []
    for kernel in kernels:
        reading = {}
        for metric, (field, scale) in FIELDS.items():
            if metric == "bank":
                reading[field] = sum(value(kernel, f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum") for op in ("ld", "st"))
            else:
                reading[field] = value(kernel, metric) * scale
        readings.append(reading)
    return readings


def ours(name, round):
    return [row["counters"] for row in json.load(open(os.path.join(here, f"ours-{name}-{round}.json")))["rows"]]


def span(values):
    values = [v for v in values if v == v]
    return (min(values), max(values)) if values else (float("nan"), float("nan"))


for name in ("default", "histogram"):
    by_hand = [hand(name, r) for r in ROUNDS]
    mine = [ours(name, r) for r in ROUNDS]
    rows = len(mine[0])
    print(f"# {name}: {rows} rows, {len(by_hand[0])} kernels profiled by hand a round, {len(ROUNDS)} rounds")
    print(f"  {'counter':28} {'one/one (same round)':>22} {'median/median':>18} {'by hand max/min':>16}")
    for field, _ in FIELDS.values():
        single, medians, own = [], [], []
        for row in range(rows):
            h = [by_hand[r][row][field] for r in range(len(ROUNDS))]
            m = [mine[r][row].get(field, float("nan")) for r in range(len(ROUNDS))]
            single += [a / b for a, b in zip(m, h) if b]
            if statistics.median(h):
                medians.append(statistics.median(m) / statistics.median(h))
            if min(h) > 0:
                own.append(max(h) / min(h))
        s, md, o = span(single), span(medians), span(own)
        print(f"  {field:28} {s[0]:9.4f} to {s[1]:.4f} {md[0]:8.4f} to {md[1]:.4f} {o[1]:16.4f}")
