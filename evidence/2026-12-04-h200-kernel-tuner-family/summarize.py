#!/usr/bin/env python3
"""run.sh's outputs, summarised (standard library only). DIR is run.sh's folder: the tarball
kt-family.tgz unpacked (its JSON files plain or gzipped).

  summarize.py winners DIR   one line a run: NAME BLOCK VECTOR_WIDTH PIXELS_PER_THREAD (its winner)
  summarize.py table DIR     summary.txt: every run's wall; the median wall per tool and search;
                             Kernel Tuner brute force's wall over block-size's for each search
                             (issue 43's criterion: at least 10, the winner in exhaustive's
                             noise-tie set); each winner against each exhaustive run's noise-tie
                             set (its rows within_noise_of_best and its winner, as
                             ../2026-12-03-h200-kernel-tuner/ties.py reads them); the winners
                             re-measured by one harness; the grids and the space, tool against tool.
"""

import gzip
import json
import pathlib
import re
import statistics
import sys

SEARCHES = ("exhaustive", "race", "rungs")
SHAPES = {(1, 1): "k1", (4, 4): "vec4", (1, 2): "k2", (1, 4): "k4", (1, 8): "k8"}


def load(d, stem):
    for path in (d / f"{stem}.json", d / f"{stem}.json.gz"):
        if path.exists():
            try:
                with (gzip.open(path) if path.suffix == ".gz" else open(path)) as f:
                    return json.load(f)
            except (OSError, ValueError):
                return None
    return None


def transcript(d, name):
    """(wall s, exit status, text) of a step's NAME.txt."""
    try:
        text = (d / f"{name}.txt").read_text(errors="replace")
    except OSError:
        return None, None, ""
    m = re.search(r"# exit status: (\d+); wall: ([0-9.]+) s", text)
    return (float(m.group(2)) if m else None), (int(m.group(1)) if m else None), text


def bs_key(row):
    axes = row.get("axes") or {}
    return int(row["threads_per_block"]), int(axes.get("vector width", 1)), int(axes.get("pixels/thr", 1))


def measured_rows(doc):
    return [r for r in doc.get("rows", []) if not r.get("pruned") and not r.get("failed") and r.get("median_ms")]


def bs_winner(doc):
    """block-size's own winner (fastest_threads_per_block with fastest_axes), else the fastest
    median; and that row."""
    rows = measured_rows(doc)
    if not rows:
        return None, None
    axes = doc.get("fastest_axes")
    if doc.get("fastest_threads_per_block") is not None and axes is not None:
        key = bs_key({"threads_per_block": doc["fastest_threads_per_block"], "axes": axes})
        row = next((r for r in rows if bs_key(r) == key), None)
        if row:
            return key, row
    row = min(rows, key=lambda r: r["median_ms"])
    return bs_key(row), row


def tie_set(doc):
    """An exhaustive run's noise-tie set: its rows within_noise_of_best, and its winner."""
    key, _ = bs_winner(doc)
    return {bs_key(r) for r in doc.get("rows", []) if r.get("within_noise_of_best")} | ({key} if key else set())


def kt_winner(doc):
    if not doc or not doc.get("winner"):
        return None
    w = doc["winner"]
    return int(w["block_size_x"]), int(w["vector_width"]), int(w["pixels_per_thread"])


def runs(d):
    """Every timed run of the rounds: (name, tool, search, round, doc)."""
    found = []
    for path in sorted(d.glob("*.txt")):
        m = re.fullmatch(r"bs-(exhaustive|race|rungs)-(\d+)", path.stem)
        if m:
            found.append((path.stem, "block-size", m.group(1), int(m.group(2)), load(d, path.stem)))
        m = re.fullmatch(r"kt-brute-(\d+)", path.stem)
        if m:
            found.append((path.stem, "kernel-tuner", "brute", int(m.group(1)), load(d, path.stem + ".summary")))
    return sorted(found, key=lambda run: (run[3], run[0]))


def winner_of(run):
    _, tool, _, _, doc = run
    if not doc:
        return None
    return kt_winner(doc) if tool == "kernel-tuner" else bs_winner(doc)[0]


def show(key):
    return f"{key[0]} x {SHAPES.get(key[1:], '?')} (V{key[1]} P{key[2]})" if key else "-"


def winners(d):
    print("# NAME BLOCK VECTOR_WIDTH PIXELS_PER_THREAD")
    for run in runs(d):
        key = winner_of(run)
        print(f"{run[0]} {key[0]} {key[1]} {key[2]}" if key else f"# {run[0]}: no winner")


def median(values):
    return statistics.median(values) if values else None


def fmt_ms(seconds):
    return "-" if seconds is None else f"{seconds * 1000:.0f}"


def table(d):
    every = runs(d)
    facts = (d / "facts.txt").read_text(errors="replace") if (d / "facts.txt").exists() else ""
    install = (d / "install.txt").read_text(errors="replace") if (d / "install.txt").exists() else ""
    print("# Kernel Tuner 1.5.0 brute force against block-size: the grayscale family (65 configurations, 3840 x 2160)\n")
    for key in ("# date", "# commit", "Product Name", "Driver Version", "CUDA Version"):
        line = next((x.strip() for x in facts.splitlines() if x.strip().startswith(key)), None)
        if line:
            print(f"- {line}")
    for line in install.splitlines():
        if re.match(r"kernel_tuner \S+ numpy", line) or line.startswith("cupy: devices"):
            print(f"- {line}")
    walls = {}
    print("\n## Every run (wall: the whole process, start to exit)\n")
    for run in every:
        name, tool, search, _, doc = run
        wall, status, text = transcript(d, name)
        key = winner_of(run)
        # A run counts (medians, ratios) where it answered: exit status 0 and a winner.
        walls.setdefault((tool, search), []).append(wall if status == 0 and key else None)
        state = "-" if status is None else ("ok" if status == 0 else f"exit {status}")
        line = f"{name:16s} {state:7s} wall {fmt_ms(wall):>6s} ms  winner {show(key):24s}"
        if tool == "kernel-tuner" and doc and doc.get("error"):
            line += f" tune_kernel failed: {doc['error'][:120]}; verify: {'; '.join(doc.get('verify_failures') or [])[:120]}"
        elif tool == "kernel-tuner" and doc:
            sums = doc.get("kt_ms_sums_of_results", {})
            line += (f" {doc.get('winner_time_ms') or 0:.4f} ms (KT mean of {doc.get('iterations')}); "
                     f"{doc.get('configurations_measured')} of {doc.get('space')} measured, "
                     f"{len(doc.get('verify_failures') or [])} failed verify; tune_kernel {doc.get('wall_s_tune_kernel', 0):.2f} s: "
                     f"compile {sums.get('compile_time', 0) / 1000:.2f} s, verify {sums.get('verification_time', 0) / 1000:.2f} s, "
                     f"benchmark {sums.get('benchmark_time', 0) / 1000:.2f} s, strategy+framework "
                     f"{(sums.get('strategy_time', 0) + sums.get('framework_time', 0)) / 1000:.2f} s; "
                     f"imports {doc.get('wall_s_imports', 0):.2f} s, host data {doc.get('wall_s_host_data', 0):.2f} s")
        elif tool == "kernel-tuner":
            line += " (no summary: " + (text.strip().splitlines()[-2][:100] if text.strip() else "no transcript") + ")"
        elif doc:
            _, row = bs_winner(doc)
            rows = doc.get("rows", [])
            spent = doc.get("wall_time") or {}
            line += (f" {row['median_ms']:.4f} ms (median of {row.get('samples')}); search {doc.get('search')}, "
                     f"{len(measured_rows(doc))} of {len(rows)} rows, {sum(r.get('samples') or 0 for r in rows)} samples, "
                     f"{len(doc.get('failures') or [])} failures")
            if spent:
                line += (f"; Time: {spent.get('total_s', 0):.3f} s, samples {spent.get('samples_s', 0):.3f} s, "
                         f"device {spent.get('device_s', 0):.3f} s")
        print(line)
    warm = transcript(d, "bs-warm")[0]
    if warm is not None:
        print(f"(bs-warm, the untimed first run that JIT-compiles the PTX into the driver's cache: {fmt_ms(warm)} ms)")

    print("\n## Median wall per tool and search (ms; runs that answered: exit 0 and a winner; '-' did not)\n")
    for (tool, search), values in sorted(walls.items()):
        got = [v for v in values if v is not None]
        print(f"{tool:13s} {search:10s} median {fmt_ms(median(got)):>6s}  ({', '.join(fmt_ms(v) for v in values)})")
    answered = {run[0]: wall for run in every for wall in [transcript(d, run[0])[0]]
                if transcript(d, run[0])[1] == 0 and winner_of(run)}

    print("\n## Kernel Tuner brute force's wall over block-size's (issue 43: at least 10, to a winner in the same noise-tie set)\n")
    kt_walls = {run[3]: answered.get(run[0]) for run in every if run[1] == "kernel-tuner"}
    exhaustive = [(run[0], run[4]) for run in every if run[1] == "block-size" and run[2] == "exhaustive" and run[4]]
    sets = {name: tie_set(doc) for name, doc in exhaustive}
    kt_median = median([v for v in kt_walls.values() if v is not None])
    for search in SEARCHES:
        mine = [run for run in every if run[1] == "block-size" and run[2] == search]
        same_round = []
        for run in mine:
            wall, kt = answered.get(run[0]), kt_walls.get(run[3])
            if wall and kt:
                same_round.append(f"round {run[3]} {kt / wall:.1f}")
        bs_median = median([w for w in (answered.get(run[0]) for run in mine) if w is not None])
        ratio = kt_median / bs_median if kt_median and bs_median else None
        inside = sum(1 for run in mine for name, s in sets.items() if name != run[0] and winner_of(run) in s)
        pairs = sum(1 for run in mine for name in sets if name != run[0])
        short = [] if ratio is None or ratio >= 10 else ["the ratio under 10"]
        short += [] if pairs and inside == pairs else ["a winner outside a tie set" if pairs else "no tie set"]
        verdict = "-" if ratio is None else ("met" if not short else "not met: " + ", ".join(short))
        print(f"{search:10s} medians {fmt_ms(kt_median)} / {fmt_ms(bs_median)} ms = "
              f"{'-' if ratio is None else f'{ratio:.1f}'}; same round: {', '.join(same_round) or '-'}; "
              f"its winners inside {inside} of {pairs} other exhaustive runs' tie sets: {verdict}")
    kt_runs = [run for run in every if run[1] == "kernel-tuner"]
    kt_inside = sum(1 for run in kt_runs for s in sets.values() if winner_of(run) in s)
    print(f"Kernel Tuner brute force's winners (on its NVRTC build) inside {kt_inside} of "
          f"{len(kt_runs) * len(sets)} of block-size's exhaustive tie sets (block-size's Rust build)")

    print("\n## Each winner against each exhaustive run's noise-tie set (rows within_noise_of_best, and its winner)\n")
    for name, s in sets.items():
        print(f"{name}: {len(s)} row(s): {', '.join(show(k) for k in sorted(s))}")
    for run in every:
        key = winner_of(run)
        verdicts = [f"{name} {'in' if key in s else 'OUT'}" for name, s in sets.items() if name != run[0]]
        print(f"{run[0]:16s} {show(key):24s} {'; '.join(verdicts) or '-'}")

    print("\n## The winners re-measured by one harness\n")
    print("block-size (its Rust PTX, cuda_builder: the kernels its sweep runs), --grid per-item --runs 200,")
    print("median of each pass; Kernel Tuner (the C++ of grayscale.cu through NVRTC) --iterations 200,")
    print("median and mean of each pass. Picked by: the runs whose winner it was.\n")
    picked = {}
    for run in every:
        key = winner_of(run)
        if key:
            picked.setdefault(key, []).append(run[0])
    bs_again = {}
    for path in sorted(d.glob("remeasure-*-*-*-*.txt")):
        doc = load(d, path.stem)
        for row in measured_rows(doc or {}):
            bs_again.setdefault(bs_key(row), []).append(row["median_ms"])
    kt_again = {}
    for path in sorted(d.glob("kt-remeasure-*.txt")):
        doc = load(d, path.stem + ".summary") or {}
        for row in doc.get("configurations", []):
            key = (row["block_size_x"], row["vector_width"], row["pixels_per_thread"])
            kt_again.setdefault(key, []).append((row.get("median_ms"), row["time_ms"]))
    print(f"{'configuration':24s} {'block-size ms (passes)':24s} {'Kernel Tuner median/mean ms (passes)':40s} picked by")
    for key in sorted(set(picked) | set(bs_again) | set(kt_again)):
        bs_text = ", ".join(f"{m:.4f}" for m in bs_again.get(key, [])) or "-"
        kt_text = ", ".join(f"{m:.4f}/{t:.4f}" if m is not None else f"-/{t:.4f}" for m, t in kt_again.get(key, [])) or "-"
        print(f"{show(key):24s} {bs_text:24s} {kt_text:40s} {', '.join(picked.get(key, [])) or '-'}")

    print("\n## The space and the grids, tool against tool\n")
    kt_doc = next((run[4] for run in every if run[1] == "kernel-tuner" and run[4]), None)
    bs_doc = next((doc for _, doc in exhaustive), None) or next((run[4] for run in every if run[1] == "block-size" and run[4]), None)
    if kt_doc and bs_doc:
        kt_grids = {(c["block_size_x"], c["vector_width"], c["pixels_per_thread"]): c["grid_blocks"]
                    for c in kt_doc.get("configurations", [])}
        bs_grids = {bs_key(r): r.get("grid_blocks") for r in bs_doc.get("rows", [])}
        agree = sum(1 for k, g in kt_grids.items() if bs_grids.get(k) == g)
        print(f"configurations: Kernel Tuner {len(kt_grids)}, block-size {len(bs_grids)}, the same set: "
              f"{set(kt_grids) == set(bs_grids)}; grid blocks agree at {agree} of {len(kt_grids)}"
              f"; block-size's frame {bs_doc.get('width')} x {bs_doc.get('height')}, grid {bs_doc.get('grid')}, "
              f"kernel module {bs_doc.get('kernel')}; Kernel Tuner's n {kt_doc.get('n')}")
        differ = [f"{show(k)}: KT {g}, block-size {bs_grids.get(k)}" for k, g in sorted(kt_grids.items()) if bs_grids.get(k) != g]
        for line in differ[:5]:
            print(f"  differ: {line}")
    else:
        print("no Kernel Tuner summary or no block-size JSON to compare")


def main():
    what, d = sys.argv[1], pathlib.Path(sys.argv[2])
    {"winners": winners, "table": table}[what](d)


if __name__ == "__main__":
    main()
