#!/usr/bin/env python3
"""Reads run3.sh's files (in the folder given, default: this script's run3/) and prints, for each
round, the L2 hit rate, DRAM rate and achieved occupancy of the grayscale kernel at 256 threads as
Nsight Compute read them over the replay alone, over a sweep's first launch, and as --counters
read them (over the replay, beside the timed process)."""
import csv, json, os, sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "run3")
header = next(csv.reader(open(os.path.join(here, "header.csv"))))
FIELDS = [("lts__t_sector_hit_rate.pct", "l2_hit_percent", 1.0), ("dram__bytes.sum.per_second", "dram_bytes_per_second", 1e-9),
          ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_percent", 1.0)]


def ncu(name):
    row = next(csv.reader(open(os.path.join(here, name))))
    values = dict(zip(header, row))
    return [float(values[metric].replace(",", "")) * scale for metric, _, scale in FIELDS]


print("round  source                          L2 hit %   DRAM GB/s   occ achv %")
for round in (1, 2, 3):
    counters = json.load(open(os.path.join(here, f"counters-{round}.json")))["rows"][0]["counters"]
    ours = [counters[field] * scale for _, field, scale in FIELDS]
    for source, values in (("ncu over the replay alone", ncu(f"replay-{round}.csv")),
                           ("ncu over a sweep's first launch", ncu(f"first-{round}.csv")),
                           ("--counters", ours)):
        print(f"{round:>5}  {source:31} {values[0]:>8.2f}  {values[1]:>10.0f}  {values[2]:>10.2f}")
