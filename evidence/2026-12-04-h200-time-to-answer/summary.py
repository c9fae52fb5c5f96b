#!/usr/bin/env python3
"""Summarises a bench.sh call: for each sweep, old and new, the median wall (ms) over the rounds
and its Time: parts; new's wall against the floor plus its samples plus 0.15 s; rungs against
exhaustive; and whether each search's winner (fastest_threads_per_block, with its axes) is in
the noise-tie set (rows within_noise_of_best) of every exhaustive run of the same binaries.
   summary.py RUNS_DIR   (the runs/ folder of time-to-answer.tar.gz)"""
import gzip, json, re, statistics, sys
from pathlib import Path

runs = Path(sys.argv[1])
walls, parts, winners, ties = {}, {}, {}, {}
for text in sorted(runs.glob("*.txt")):
    m = re.match(r"(.+)-(old|new)-(\d+)$", text.stem)
    if not m or m.group(3) == "0":
        continue
    name, which, _ = m.groups()
    body = text.read_text()
    wall = re.search(r"wall: (\d+) ms", body)
    time = re.search(r"^Time: ([\d.]+) s.*samples ([\d.]+) s", body, re.M)
    if wall:
        walls.setdefault((name, which), []).append(int(wall.group(1)))
    if time:
        parts.setdefault((name, which), []).append(float(time.group(2)))
    path = runs / (text.stem + ".json.gz")
    if path.exists():
        doc = json.load(gzip.open(path))
        key = lambda row: (row["threads_per_block"], json.dumps(row.get("axes"), sort_keys=True))
        best = [key(r) for r in doc["rows"] if r.get("fraction_of_best") == 1.0 and r.get("pruned") is None]
        winners.setdefault((name, which), []).append(best[:1])
        ties.setdefault((name, which), []).append({key(r) for r in doc["rows"] if r.get("within_noise_of_best")} | set(best[:1]))

def med(values):
    return statistics.median(values) if values else float("nan")

floor = {which: med(walls.get(("floor", which), [])) for which in ("old", "new")}
print(f"floor (one configuration, one sample): old {floor['old']:.0f} ms, new {floor['new']:.0f} ms (medians)")
# A sweep's own floor where the call measured one at its size (floor-66m for the 66m sweeps).
own_floor = {name[len("floor-"):]: med(walls.get((name, "new"), [])) for name, which in walls if name.startswith("floor-")}
if own_floor:
    print("floors at a sweep's own size (new): " + ", ".join(f"{k} {v:.0f} ms" for k, v in sorted(own_floor.items())))
print(f"{'sweep':22} {'old ms':>8} {'new ms':>8} {'new/old':>8} {'new samples s':>14} {'floor+samples+150':>18} {'own floor+samples+150':>22}")
for name in sorted({name for name, _ in walls}):
    old, new = med(walls.get((name, "old"), [])), med(walls.get((name, "new"), []))
    samples = med(parts.get((name, "new"), []))
    bound = floor["new"] + samples * 1000 + 150
    line = f"{name:22} {old:8.0f} {new:8.0f} {new / old:8.3f} {samples:14.3f} {bound:12.0f} {'ok' if new <= bound else 'over':5}"
    size = name.split("-")[0]
    if size in own_floor and not name.startswith("floor"):
        own = own_floor[size] + samples * 1000 + 150
        line += f" {own:16.0f} {'ok' if new <= own else 'over'}"
    print(line)
print()
for family in ("4k", "66m", "family", "reduce"):
    for which in ("old", "new"):
        ex = walls.get((f"{family}-exhaustive", which))
        for search in ("exhaustive", "race", "rungs"):
            got = walls.get((f"{family}-{search}", which))
            if not ex or not got:
                continue
            sets = ties.get((f"{family}-exhaustive", which), [])
            picked = winners.get((f"{family}-{search}", which), [])
            inside = sum(1 for w in picked for s in sets if w and w[0] in s)
            # exhaustive against itself: how often one run's winner is in another run's tie set.
            print(f"{family:7} {which}: {search} {med(got):.0f} ms against exhaustive {med(ex):.0f} ms "
                  f"({med(got) / med(ex):.2f}); winners {[w[0][0] if w else None for w in picked]}, "
                  f"inside {inside} of {len(picked) * len(sets)} exhaustive tie sets")
