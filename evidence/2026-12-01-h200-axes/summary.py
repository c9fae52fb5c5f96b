"""Each run's wall time, samples, rows raced out, winner, and the winner's place in the
exhaustive runs' noise-tie set (rows marked within the noise of their fastest). The JSON
exports are kept gzipped here (gzip -9 after the call, contents as written)."""
import gzip, json, re, sys, pathlib
d = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
def key(row): return (row["axes"]["items/thr"], row["axes"]["grid policy"], row["threads_per_block"])
runs = {}
for f in sorted(d.glob("*.json.gz")):
    name = f.name[: -len(".json.gz")]
    doc = json.loads(gzip.open(f).read())
    rows = [r for r in doc["rows"] if not r.get("pruned")]
    wall = int(re.search(r"wall: (\d+) ms", (d / (name + ".txt")).read_text()).group(1))
    best = min(rows, key=lambda r: r["median_ms"])
    ties = {key(r) for r in rows if r["within_noise_of_best"] or r is best}
    runs[name] = (wall, sum(r["samples"] for r in rows), sum(r["stopped"] == "raced" for r in rows), key(best), ties, len(rows))
for name, (wall, samples, raced, best, ties, n) in runs.items():
    print(f"{name}: {n} configurations, wall {wall} ms, {samples} samples, {raced} raced out, winner {best}, noise-tie set {len(ties)}")
for budget in ("tight", "default"):
    for name, run in runs.items():
        if not name.startswith(budget) or "race" not in name: continue
        for other, ex in runs.items():
            if other.startswith(budget) and "exhaustive" in other:
                print(f"{name} vs {other}: wall {run[0] / ex[0]:.3f}, samples {run[1] / ex[1]:.3f}, winner in its tie set: {run[3] in ex[4]}")
