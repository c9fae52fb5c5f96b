#!/usr/bin/env python3
"""Reads what run.sh brought back (in the folder given, default: this script's) and prints:
each counter block-size's JSON holds for a row against Nsight Compute's own reading of the same
kernel, configuration and input (ncu-own-1.txt), as a ratio, beside Nsight Compute's second
reading against its first (ncu-own-2.txt: its own spread from one process to the next); and each
row's median time with --counters over its median without, for the two alternated pairs of
default sweeps. An older run with one reading (ncu-own.txt) is read as the first alone."""
import csv, io, json, os, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
FIELDS = {
    "dram__bytes.sum.per_second": ("dram_bytes_per_second", 1.0),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("achieved_occupancy_percent", 1.0),
    "smsp__thread_inst_executed_per_inst_executed.ratio": ("warp_efficiency_percent", 100.0 / 32.0),
    "smsp__sass_average_branch_targets_threads_uniform.pct": ("branch_efficiency_percent", 1.0),
    "lts__t_sector_hit_rate.pct": ("l2_hit_percent", 1.0),
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": ("barrier_stalls_per_issue", 1.0),
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": ("memory_stalls_per_issue", 1.0),
}
BANK = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def own_readings(name):
    """{(kernel, variant, threads): {field: value}} from the file `name` of ncu's readings."""
    readings, label, lines = {}, None, []

    def flush():
        if label and lines:
            rows = list(csv.reader(io.StringIO("\n".join(lines))))
            header, data = rows[0], [row for row in rows[1:] if row and row[0].isdigit()]
            if data:
                values = dict(zip(header, data[0]))
                out = {}
                for metric, (field, scale) in FIELDS.items():
                    if number(values.get(metric, "")) is not None:
                        out[field] = number(values[metric]) * scale
                banks = [number(values.get(metric, "")) for metric in BANK]
                if all(bank is not None for bank in banks):
                    out["shared_bank_conflicts"] = sum(banks)
                readings[label] = out

    path = os.path.join(here, name)
    if not os.path.exists(path):
        return {}
    for line in open(path):
        if line.startswith("################ "):
            flush()
            words = line.split()[1:]
            # "grayscale THREADS", "scaf THREADS" or "histogram BINS THREADS"
            label, lines = (words[0], words[1] if len(words) == 3 else "", int(words[-1])), []
        elif line.startswith('"'):
            lines.append(line.rstrip("\n"))
    flush()
    return readings


def rows(name):
    return {row["threads_per_block"]: row for row in json.load(open(os.path.join(here, name)))["rows"]}


first = own_readings("ncu-own-1.txt") or own_readings("ncu-own.txt")
second = own_readings("ncu-own-2.txt")


def ratio(a, b):
    if a is None or b is None:
        return "n/a"
    if b == 0:
        return "both 0" if a == 0 else "n/a (ncu 0)"
    return f"{a / b:.4f}"


print("counter                        block-size     ncu's own    ratio    ncu again / ncu")
files = {"grayscale": "default-counters-1.json", "256": "histogram-256.json", "4096": "histogram-4096.json", "scaf": "scaf-sweep.json"}
for (kernel, variant, threads), own in sorted(first.items()):
    ours = rows(files[variant or kernel])[threads].get("counters", {})
    again = second.get((kernel, variant, threads), {})
    title = f"{kernel} {variant + ' bins ' if variant else ''}at {threads} threads"
    print(f"# {title}")
    for field, value in own.items():
        mine = ours.get(field)
        print(f"  {field:30} {mine!s:>13}  {value!s:>13}  {ratio(mine, value):>8}  {ratio(again.get(field), value):>8}")

print("\nmedian ms with --counters over without, alternated runs (1: counters then plain, 2: the same again)")
for pair in (1, 2):
    with_counters, plain = rows(f"default-counters-{pair}.json"), rows(f"default-plain-{pair}.json")
    ratios = [with_counters[t]["median_ms"] / plain[t]["median_ms"] for t in sorted(plain)]
    print(f"  pair {pair}: " + " ".join(f"{r:.3f}" for r in ratios) + f"   range {min(ratios):.3f} to {max(ratios):.3f}")
plain = [rows(f"default-plain-{p}.json") for p in (1, 2)]
ratios = [plain[0][t]["median_ms"] / plain[1][t]["median_ms"] for t in sorted(plain[0])]
print(f"  for scale, plain 1 over plain 2: range {min(ratios):.3f} to {max(ratios):.3f}")
