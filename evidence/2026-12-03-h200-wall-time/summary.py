"""Reads run.sh's transcripts and JSON exports in this folder and prints summary.txt: each
process's wall time, configurations and samples; a least-squares fit of wall time over the
fixed-count runs (one-off + per visit x configurations + per sample x samples); and, for the
default-budget runs, the winner and whether it is inside the exhaustive runs' noise-tie sets
(rows within the two rows' MADs of the best, as the table's `*` says)."""
import glob, gzip, json, re

runs = {}
for path in sorted(glob.glob("*.txt")):
    match = re.search(r"wall: (\d+) ms", open(path).read())
    json_path = path[:-4] + ".json.gz"
    if not match or not glob.glob(json_path):
        continue
    record = json.load(gzip.open(json_path))
    rows = record["rows"]
    runs[path[:-4]] = dict(
        wall=int(match.group(1)),
        configurations=len(rows),
        samples=sum(len(row["run_ms"]) for row in rows),
        raced=sum(row["stopped"] == "raced" for row in rows),
        rows=rows,
    )
def key(row):
    return (row["axes"].get("items/thr"), row["axes"].get("grid policy"), row["threads_per_block"])
def best(rows):
    return min((row for row in rows if row["median_ms"] is not None), key=lambda row: row["median_ms"])
def tie_set(rows):
    b = best(rows)
    return {key(row) for row in rows if row["median_ms"] is not None
            and row["median_ms"] - b["median_ms"] <= b["mad_ms"] + row["mad_ms"]}
for name, run in runs.items():
    print(f"{name}: {run['configurations']} configurations, wall {run['wall']} ms, "
          f"{run['samples']} samples, {run['raced']} raced out, winner {key(best(run['rows']))}")
fixed = [run for name, run in runs.items() if name.startswith(("one-", "fixed"))]
def least_squares(a, y):
    """The x minimising |a x - y|, by the normal equations (three unknowns)."""
    m = [[sum(r[i] * r[j] for r in a) for j in range(3)] + [sum(r[i] * v for r, v in zip(a, y))]
         for i in range(3)]
    for i in range(3):
        for k in range(i + 1, 3):
            f = m[k][i] / m[i][i]
            m[k] = [x - f * z for x, z in zip(m[k], m[i])]
    x = [0.0] * 3
    for i in reversed(range(3)):
        x[i] = (m[i][3] - sum(m[i][j] * x[j] for j in range(i + 1, 3))) / m[i][i]
    return x
one_off, visit, sample = least_squares(
    [[1, run["configurations"], run["samples"]] for run in fixed], [run["wall"] for run in fixed])
print(f"fit over {len(fixed)} fixed-count runs (one-*, fixed*): wall = {one_off:.0f} ms "
      f"+ {visit:.3f} ms a configuration + {sample:.3f} ms a sample")
for name, run in runs.items():
    predicted = one_off + visit * run["configurations"] + sample * run["samples"]
    print(f"  {name}: measured {run['wall']} ms, the fit says {predicted:.0f} ms")
exhaustive = [name for name in runs if name.startswith("default-exhaustive")]
for name in [name for name in runs if name.startswith("default-race")]:
    for other in exhaustive:
        print(f"{name} vs {other}: wall {runs[name]['wall'] / runs[other]['wall']:.3f}, samples "
              f"{runs[name]['samples'] / runs[other]['samples']:.3f}, winner in its tie set: "
              f"{key(best(runs[name]['rows'])) in tie_set(runs[other]['rows'])}")
