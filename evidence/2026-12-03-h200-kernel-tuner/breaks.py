"""The screen's assumptions (runner/src/search/race.rs, race::screen_break) against every row of
ten samples or more of the H200 calls here (run/, run2/, run3/, run4/; every search): no sample
below 0.95 of its row's median, the first sample at most 1.1875 times it, the faster of the first
two at most 1.045 times it. Prints each folder's and each search's count of rows read and the rows
that break one. Run: python3 breaks.py (from this folder)."""
import glob, gzip, json, statistics

for folder in ("run", "run2", "run3", "run4"):
    read, broken = {}, []
    for path in sorted(glob.glob(f"{folder}/bs-*.json.gz")):
        search = path.split("/")[1].split("-")[2]
        with gzip.open(path) as f:
            sweep = json.load(f)
        for row in sweep["rows"]:
            runs = row.get("run_ms") or []
            if len(runs) < 10:
                continue
            read[search] = read.get(search, 0) + 1
            median = statistics.median(runs)
            fastest, first, first_two = min(runs) / median, runs[0] / median, min(runs[:2]) / median
            if fastest < 0.95 or first > 1.1875 or first_two > 1.045:
                broken.append(f"  {path.split('/')[1].split('.')[0]}: {row['threads_per_block']} {dict(row['axes'])}, "
                              f"{len(runs)} samples ({row.get('stopped')}): fastest {fastest:.4f}, first {first:.4f}, "
                              f"faster of the first two {first_two:.4f} x the median")
    counts = ", ".join(f"{search} {count}" for search, count in sorted(read.items()))
    print(f"{folder}: {sum(read.values())} rows of ten samples or more ({counts}); {len(broken)} break an assumption")
    print("\n".join(broken)) if broken else None
