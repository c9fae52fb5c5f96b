"""Each case of ab.sh's output: the median wall time before and after, their difference and
ratio, and the median of the `Time:` line's device phase. Run: python3 ab-summary.py ab.txt"""
import re, statistics, sys

rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(before|after)\s+([0-9.]+) ms exit (\d+) \| (.*)", line)
    if not m:
        continue
    case, which, ms, code, time = m.group(1), m.group(2), float(m.group(3)), int(m.group(4)), m.group(5)
    device = re.search(r"device ([0-9.]+) s", time)
    rows.setdefault(case, {}).setdefault(which, []).append((ms, code, float(device.group(1)) * 1e3 if device else None))

for case, by in rows.items():
    if "before" not in by or "after" not in by:
        continue
    wall = {w: statistics.median(ms for ms, _, _ in by[w]) for w in ("before", "after")}
    device = {w: statistics.median(d for _, _, d in by[w] if d is not None) for w in ("before", "after")}
    bad = sum(code != 0 for w in by for _, code, _ in by[w])
    print(f"{case}: {len(by['before'])} pairs; wall median before {wall['before']:.1f} ms, after {wall['after']:.1f} ms, "
          f"difference {wall['before'] - wall['after']:.1f} ms, ratio {wall['after'] / wall['before']:.3f}; "
          f"device phase median {device['before']:.1f} -> {device['after']:.1f} ms; runs not exiting 0: {bad}")
