"""The tails that a race in rungs' screen assumes (runner/src/search/race.rs), read off every
exhaustive and fixed-count row of the H200 runs here and in ../2026-12-03-h200-wall-time/: each
sample over its row's median, the lowest of all; each row's first sample over its median, the
highest; the faster of each row's first two over its median, the highest.
Run: python3 tails.py (from this folder)."""
import glob, gzip, json

paths = sorted(glob.glob("run/bs-*-exhaustive-*.json.gz")) + sorted(
    glob.glob("../2026-12-03-h200-wall-time/*exhaustive*.json.gz") + glob.glob("../2026-12-03-h200-wall-time/fixed*.json.gz"))
samples = rows = 0
lowest, first, first_two = float("inf"), 0.0, 0.0
for path in paths:
    with gzip.open(path) as f:
        sweep = json.load(f)
    for row in sweep["rows"]:
        runs, median = row.get("run_ms") or [], row.get("median_ms")
        if len(runs) < 2 or not median:
            continue
        rows += 1
        samples += len(runs)
        lowest = min(lowest, min(runs) / median)
        first = max(first, runs[0] / median)
        first_two = max(first_two, min(runs[:2]) / median)
print(f"{len(paths)} runs, {rows} rows, {samples} samples")
print(f"lowest sample / its row's median: {lowest:.4f}")
print(f"highest first sample / its row's median: {first:.4f}")
print(f"highest faster-of-the-first-two / its row's median: {first_two:.4f}")
