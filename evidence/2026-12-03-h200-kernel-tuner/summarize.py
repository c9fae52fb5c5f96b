#!/usr/bin/env python3
"""run.sh's outputs, side by side (standard library only).

  summarize.py winners DIR   one line a run: NAME BLOCK GRID ITEMS (the winner's launch, GRID as
                             block-size's policy: one-wave, waves:2, waves:4)
  summarize.py table DIR     side-by-side.md: every run's wall time, configurations, KT's own
                             times, winner and its time in its own harness, and the winners
                             re-measured by one harness (reduce-example --source cuda --runs 200)
"""

import json
import pathlib
import re
import statistics
import sys


def policy(waves):
    return "one-wave" if int(waves) == 1 else f"waves:{int(waves)}"


def wall_and_status(d, name):
    try:
        text = (d / f"{name}.txt").read_text(errors="replace")
    except OSError:
        return None, None, ""
    m = re.search(r"# exit status: (\d+); wall: ([0-9.]+) s", text)
    return (float(m.group(2)) if m else None), (int(m.group(1)) if m else None), text


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def bs_rows(doc):
    return [r for r in doc.get("rows", []) if not r.get("pruned") and not r.get("failed") and r.get("median_ms")]


def runs(d):
    """Every timed run: (name, kind, data)."""
    out = []
    for f in sorted(d.glob("kt-*.txt")):
        out.append((f.stem, "kt", load(d / f"{f.stem}.summary.json")))
    for f in sorted(d.glob("bs-*.txt")):
        out.append((f.stem, "bs", load(d / f"{f.stem}.json")))
    return out


def winner(kind, data):
    """(block, grid policy, items) of a run's winner, and its time in its own harness (ms)."""
    if not data:
        return None, None
    if kind == "kt":
        w = data["winner"]
        return (int(w["block_size_x"]), policy(w["waves"]), int(w["items_per_thread"])), data["winner_time_ms"]
    rows = bs_rows(data)
    if not rows:
        return None, None
    best = min(rows, key=lambda r: r["median_ms"])
    axes = best.get("axes", {})
    return (int(best["threads_per_block"]), axes.get("grid policy", "one-wave"), int(axes.get("items/thr", 1))), best[
        "median_ms"
    ]


def winners(d):
    print("# NAME BLOCK GRID ITEMS")
    for name, kind, data in runs(d):
        launch, _ = winner(kind, data)
        if launch:
            print(name, *launch)
        else:
            print(f"# {name}: no winner")


def remeasured(d):
    """(block, grid, items) -> [median ms of each re-measure pass]."""
    found = {}
    for f in sorted(d.glob("remeasure-*.json")):
        doc = load(f)
        if not doc:
            continue
        for r in bs_rows(doc):
            key = (int(r["threads_per_block"]), r.get("axes", {}).get("grid policy", "one-wave"), int(r["axes"]["items/thr"]))
            found.setdefault(key, []).append(r["median_ms"])
    return found


def table(d):
    again = remeasured(d)
    print("# Kernel Tuner 1.5.0 and block-size, side by side\n")
    facts = (d / "facts.txt").read_text(errors="replace") if (d / "facts.txt").exists() else ""
    for key in ("# date", "Driver Version", "CUDA Version", "Product Name"):
        for line in facts.splitlines():
            if line.strip().startswith(key):
                print(f"- {line.strip()}")
                break
    print("\nWall: one process, its start to its exit (run.sh, date +%s.%N). KT: Kernel Tuner's mean of its")
    print("`iterations` event-timed launches a configuration; block-size: the median of its samples (batch")
    print("timing, 10 launches a sample). Re-measured: `reduce-example --source cuda --runs 200` at the")
    print("winner's block size and grid, the row of its items per thread, median of each pass.\n")
    print("| run | status | wall s | configs measured | KT compile s | KT benchmark s | KT verify s | KT strategy+framework s; block-size's split of its wall s | winner (block, grid, items/thr) | its time ms (own harness) | re-measured ms (passes) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, kind, data in runs(d):
        wall, status, text = wall_and_status(d, name)
        launch, own = winner(kind, data)
        measured = compile_s = bench_s = verify_s = other_s = "-"
        if kind == "kt" and data:
            measured = f"{data['configurations_measured']} of {data['space']}"
            sums = data["kt_ms_sums_of_results"]
            compile_s = f"{sums['compile_time'] / 1000:.2f}"
            bench_s = f"{sums['benchmark_time'] / 1000:.2f}"
            verify_s = f"{sums['verification_time'] / 1000:.2f}"
            other_s = f"{(sums['strategy_time'] + sums['framework_time']) / 1000:.2f}"
            if data.get("verify_failures"):
                measured += f", {len(data['verify_failures'])} failed verify"
        elif kind == "bs" and data:
            rows = bs_rows(data)
            raced = sum(r.get("stopped") == "raced" for r in rows)
            known = sum(r.get("stopped") == "median_known" for r in rows)
            measured = (f"{len(rows)}, {sum(r.get('samples', 0) for r in rows)} samples"
                        + (f", {raced} raced out" if raced else "") + (f", {known} median known" if known else ""))
            # block-size's own split of its wall time (--stats' Time: line, the JSON's
            # wall_time): the samples, against the one-off cost around them.
            spent = data.get("wall_time")
            if spent:
                other_s = (
                    f"samples {spent['samples_s']:.3f}, device {spent['device_s']:.3f}, "
                    f"host data {spent['host_data_s']:.3f}, rest of the measure "
                    f"{spent['total_s'] - spent['samples_s'] - spent['device_s'] - spent['host_data_s']:.3f}, "
                    f"outside it {wall - spent['total_s']:.3f}" if wall is not None else f"samples {spent['samples_s']:.3f}"
                )
        state = "-" if status is None else ("ok" if status == 0 else f"exit {status}")
        if status not in (None, 0):
            first = next((line for line in text.splitlines() if line.startswith("Error") or "error" in line.lower()), "")
            if first:
                state += ": " + first.strip()[:80].replace("|", "/")
        re_ms = ", ".join(f"{m:.4f}" for m in again.get(launch, [])) if launch else ""
        print(
            f"| {name} | {state} | {wall if wall is not None else '-'} | {measured} | {compile_s} | {bench_s} | {verify_s} | {other_s} | "
            f"{'%d, %s, %d' % launch if launch else '-'} | {f'{own:.4f}' if own else '-'} | {re_ms or '-'} |"
        )
    # The grids: KT's blocks per SM (the driver, NVRTC's build) against block-size's (the driver,
    # nvcc 11.8's PTX), configuration by configuration.
    kt = next((data for name, kind, data in runs(d) if kind == "kt" and data), None)
    bs = next((data for name, kind, data in runs(d) if name.startswith("bs-cuda-exhaustive") and data), None)
    if kt and bs:
        agree = total = 0
        differ = []
        for r in bs.get("rows", []):
            key = f"{r['threads_per_block']},{r['axes']['items/thr']}"
            if key in kt["blocks_per_sm"] and r.get("blocks_per_sm") is not None:
                total += 1
                if kt["blocks_per_sm"][key] == r["blocks_per_sm"]:
                    agree += 1
                elif len(differ) < 5:
                    differ.append(f"{key}: KT {kt['blocks_per_sm'][key]}, block-size {r['blocks_per_sm']}")
        print(f"\nBlocks per SM, KT's (NVRTC build) vs block-size's (nvcc 11.8 PTX), per row: {agree} of {total} agree"
              + (f"; differ: {'; '.join(differ)}" if differ else "") + ".")
    if again:
        print("\nEvery re-measured configuration (median ms of each pass):\n")
        print("| block | grid | items/thr | passes | median of passes |")
        print("|---|---|---|---|---|")
        for (block, grid, items), ms in sorted(again.items()):
            print(f"| {block} | {grid} | {items} | {', '.join(f'{m:.4f}' for m in ms)} | {statistics.median(ms):.4f} |")


def main():
    what, d = sys.argv[1], pathlib.Path(sys.argv[2])
    {"winners": winners, "table": table}[what](d)


if __name__ == "__main__":
    main()
