"""An estimate, no GPU: the race in rungs of runner/src/search/race.rs (4670a7f and later)
replayed over the samples that the exhaustive runs of run/ recorded, each row's samples taken in
their recorded order. The rule is re-implemented here in Python (next_rung, rung_survivors,
finished); where the replay needs more samples of a row than exhaustive took, and exhaustive's
row converged, the row is counted as converging at that rung (its first n samples already did).
It prints each replay's samples, the winner and whether it is in that exhaustive run's noise-tie
set, and the wall time the fit of ../2026-12-03-h200-wall-time/summary.txt gives for that many
samples (459 ms + 0.301 ms a sample): a model's figure, not a measurement.
Run: python3 replay.py run/"""
import glob, gzip, json, math, os, sys

MAX_NOISE, MIN_RUNS, MAX_RUNS, BUDGET_S, LAUNCHES = 0.005, 10, 10000, 0.5, 10
ALPHA, MARGIN = 0.05, 0.02

def median(xs):
    s = sorted(xs); n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

def spread(xs):
    m = median(xs); mad = median([abs(x - m) for x in xs])
    return 0.0 if mad == 0 else mad / m

def rank(n):
    k, term = 1, 0.5 ** n
    below = term
    while k < (n + 1) // 2 and 2 * below <= ALPHA:
        k += 1
        term *= (n - (k - 1) + 1) / (k - 1)
        below += term
    return k - 1 if 2 * below > ALPHA and k > 1 else k

def interval(xs):
    s = sorted(xs); k = rank(len(s))
    return s[k - 1], s[len(s) - k]

def next_rung(held):
    nxt = {0: 1, 1: 2, 2: 6}.get(held, held * 2)
    if held < MIN_RUNS:
        nxt = min(nxt, MIN_RUNS)
    return min(nxt, max(MAX_RUNS, held + 1))

def replay(rows):
    held = {i: [] for i in range(len(rows))}
    state = {i: "racing" for i in range(len(rows))}
    n = 0
    while True:
        target = next_rung(n)
        for i in (i for i in state if state[i] == "racing"):
            recorded = rows[i]["run_ms"]
            if target > len(recorded):
                state[i] = "converged (past the record)"
                held[i] = recorded
                continue
            held[i] = recorded[:target]
        n = target
        measured = [i for i in held if held[i]]
        lowest = min(median(held[i]) for i in measured)
        enough = [i for i in measured if len(held[i]) >= 6]
        reference = min((interval(held[i])[1] for i in enough), default=math.inf)
        for i in [i for i in state if state[i] == "racing"]:
            xs = held[i]
            if len(xs) < 6:
                stays = min(xs) <= lowest * (1.25 if len(xs) <= 1 else 1.10)
            else:
                stays = interval(xs)[0] <= reference * (1 + MARGIN)
            if not stays:
                state[i] = "raced"
            elif len(xs) >= MIN_RUNS:
                lo, hi = interval(xs)
                if spread(xs) <= MAX_NOISE:
                    state[i] = "converged"
                elif (hi - lo) / 2 <= MAX_NOISE * median(xs):
                    state[i] = "median_known"
                elif sum(xs) * LAUNCHES / 1000 >= BUDGET_S:
                    state[i] = "time_budget"
        if not any(s == "racing" for s in state.values()):
            return held, state

def key(row):
    return (row["threads_per_block"], tuple(sorted(row["axes"].items())))

folder = sys.argv[1]
for path in sorted(glob.glob(os.path.join(folder, "bs-*-exhaustive-*.json.gz"))):
    sweep = json.load(gzip.open(path))
    rows = sweep["rows"]
    held, state = replay(rows)
    samples = sum(len(xs) for xs in held.values())
    done = [i for i in held if state[i] != "raced"]
    best = min(done, key=lambda i: median(held[i]))
    ex_samples = sum(len(r["run_ms"]) for r in rows)
    fastest = min(rows, key=lambda r: r["median_ms"])
    ties = {key(r) for r in rows if r.get("within_noise_of_best")} | {key(fastest)}
    counts = {}
    for s in state.values():
        counts[s] = counts.get(s, 0) + 1
    print(f"{os.path.basename(path)}: replayed rungs {samples} samples (exhaustive {ex_samples}); "
          f"{dict(sorted(counts.items()))}; winner {rows[best]['threads_per_block']} {rows[best]['axes']} "
          f"in exhaustive's tie set: {key(rows[best]) in ties}; the fit's wall {459 + 0.301 * samples:.0f} ms "
          f"against {459 + 0.301 * ex_samples:.0f} ms for exhaustive's samples")
