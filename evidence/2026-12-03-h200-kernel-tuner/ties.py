"""Each race and rungs run against each exhaustive run of the same PTX, from a run folder of
run.sh (json.gz or json): the wall-time ratio (whole processes, run.sh's lines), the samples
ratio, and whether the search's winner is in the exhaustive run's noise-tie set (its rows marked
within_noise_of_best, the fastest included); exhaustive runs against each other too, the yardstick of
how often two exhaustive runs agree. Then where each run's samples went, and the same-round pairs
(race and rungs round K against exhaustive round K). Run: python3 ties.py run/"""
import glob, gzip, json, os, re, sys

folder = sys.argv[1]

def load(name):
    for path in (os.path.join(folder, name + ".json.gz"), os.path.join(folder, name + ".json")):
        if os.path.exists(path):
            with (gzip.open(path) if path.endswith(".gz") else open(path)) as f:
                return json.load(f)
    return None

def wall(name):
    text = open(os.path.join(folder, name + ".txt")).read()
    return float(re.search(r"# exit status: \d+; wall: ([0-9.]+) s", text).group(1))

def key(row):
    return (row["threads_per_block"], tuple(sorted(row["axes"].items())))

def winner(sweep):
    rows = [r for r in sweep["rows"] if r.get("median_ms") is not None and not r.get("failed") and not r.get("pruned")]
    return min(rows, key=lambda r: r["median_ms"])

names = sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(folder, "bs-*.txt"))})
for source in ("rust", "cuda"):
    exhaustive = [n for n in names if n.startswith(f"bs-{source}-exhaustive-")]
    for search in ("exhaustive", "race", "rungs"):
        for name in (n for n in names if n.startswith(f"bs-{source}-{search}-")):
            sweep = load(name)
            best = winner(sweep)
            samples = sum(r.get("samples") or 0 for r in sweep["rows"])
            for other in exhaustive:
                if other == name:
                    continue
                ex = load(other)
                ties = {key(r) for r in ex["rows"] if r.get("within_noise_of_best")} | {key(winner(ex))}
                ex_samples = sum(r.get("samples") or 0 for r in ex["rows"])
                print(f"{name} vs {other}: wall {wall(name):.3f} / {wall(other):.3f} s = {wall(name) / wall(other):.2f}, "
                      f"samples {samples} / {ex_samples} = {samples / ex_samples:.2f}, "
                      f"winner {best['threads_per_block']} {dict(best['axes'])} in its tie set ({len(ties)} rows): {key(best) in ties}")

# Where each run's samples went: by how its rows stopped.
for name in names:
    sweep = load(name)
    if sweep is None or name.startswith("bs-") is False or "remeasure" in name:
        continue
    by = {}
    for r in sweep["rows"]:
        stop = r.get("stopped") or "fixed"
        count, held = by.get(stop, (0, 0))
        by[stop] = (count + 1, held + (r.get("samples") or 0))
    total = sum(held for _, held in by.values())
    parts = ", ".join(f"{stop} {count} rows {held} samples" for stop, (count, held) in sorted(by.items()))
    print(f"{name}: {total} samples: {parts}")

# Same-round pairs: round K of a search against exhaustive round K of the same PTX.
for source in ("rust", "cuda"):
    for search in ("race", "rungs"):
        ratios, held = [], 0
        for name in (n for n in names if n.startswith(f"bs-{source}-{search}-")):
            other = name.replace(f"-{search}-", "-exhaustive-")
            if other not in names:
                continue
            ex = load(other)
            ties = {key(r) for r in ex["rows"] if r.get("within_noise_of_best")} | {key(winner(ex))}
            ratios.append(wall(name) / wall(other))
            held += key(winner(load(name))) in ties
        if ratios:
            print(f"same round, {search} / exhaustive ({source}): wall ratios {' '.join(f'{r:.2f}' for r in ratios)}; "
                  f"{sum(r <= 0.5 for r in ratios)} of {len(ratios)} at most 0.5; winner in the tie set {held} of {len(ratios)}")
