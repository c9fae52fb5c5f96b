#!/usr/bin/env python3
"""Kernel Tuner 1.5.0 over the CUDA C++ grayscale family (kernels/cuda/grayscale.cu), the space
`block-size --grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8` sweeps:

  block_size_x       16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024
                     (block-size's default --block-sizes, the seed's 13)
  vector_width       1, 4                  <-> --vector-width 1,4   (the axis `vector width`)
  pixels_per_thread  1, 2, 4, 8            <-> --pixels-per-thread 1,2,4,8   (`pixels/thr`)
  restriction        vector_width == 1 or pixels_per_thread == 4 (grayscale_vec4 converts 4;
                     block-size leaves the other three pairs out the same way): 13 x 5 = 65

Each (vector width, pixels per thread) is one entry of grayscale.cu, as builtin/src/grayscale
`SHAPES` maps them: (1, 1) `grayscale` (k1), (4, 4) `grayscale_vec4`, (1, 2) `grayscale_k2`,
(1, 4) `grayscale_k4`, (1, 8) `grayscale_k8`. Kernel Tuner launches one kernel name, so the
source is a code generator: for a configuration it is grayscale.cu with that entry alone (its
text unchanged, named `grayscale_family`), the other entries left out (as reduce.cu's twins are
left out of Kernel Tuner's compiles by `#ifndef kernel_tuner`), and the file's two `#include`s
of C++ standard headers, which NVRTC cannot open, kept for nvcc only (under NVRTC `size_t` is
built in and `uintptr_t` is declared as <cstdint> declares it on x86-64 Linux).

The launch is block-size's: the default 3840 x 2160 frame (n = 8294400 pixels), the arguments
(red, green, blue, out, n: three float planes in, one out, n a size_t), the planes of
builtin/src/grayscale/frame.rs (channel i = (i mod P) / P in float32, P = 251, 241, 239), and
one thread per pixel, ceil(n / block_size_x) blocks (`--grid per-item`; Kernel Tuner's default
grid divisor, block_size_x, on problem_size n). Every configuration is checked (`answer` and
`verify`) against the NumPy luma of the planes (0.299 r + 0.587 g + 0.114 b in float32, in
that order, as kernels/src/luma.rs), pixel by pixel with block-size's rule (runner's
`Agreement::Within`: equal, or |got - want| <= 1e-5 x max(|got|, |want|)); `out` starts as NaN,
so a pixel no thread writes fails.

  tune_family.py [--strategy brute_force] [--iterations 7] --out DIR --name NAME
  tune_family.py --only B:V:P[,B:V:P...] --iterations 200 ...   (those configurations alone:
                                                                  the re-measure of winners)
  tune_family.py --self-test                                     (no GPU, no Kernel Tuner)

It prints, and writes to DIR/NAME.summary.json: the wall time from process start (before any
import) to tune_kernel's return and of the tune_kernel call alone, Kernel Tuner's own compile,
verification, benchmark, strategy and framework times (the sums over its results), every
configuration's time (Kernel Tuner's `time`, the mean of its `iterations` event-timed launches;
their median beside it), and the winner. Kernel Tuner's results (T4), metadata and cache go
beside it.
"""

import time

START = time.monotonic()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

WIDTH, HEIGHT = 3840, 2160
BLOCK_SIZES = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024]
VECTOR_WIDTHS = [1, 4]
PIXELS_PER_THREAD = [1, 2, 4, 8]
RESTRICTION = "vector_width == 1 or pixels_per_thread == 4"
# builtin/src/grayscale/mod.rs SHAPES: (vector width, pixels per thread) -> (entry, name).
SHAPES = {
    (1, 1): ("grayscale", "k1"),
    (4, 4): ("grayscale_vec4", "vec4"),
    (1, 2): ("grayscale_k2", "k2"),
    (1, 4): ("grayscale_k4", "k4"),
    (1, 8): ("grayscale_k8", "k8"),
}
KERNEL = "grayscale_family"
PERIODS = (251, 241, 239)  # builtin/src/grayscale/frame.rs PERIODS
RELATIVE_TOLERANCE = 1e-5  # builtin/src/grayscale/frame.rs RELATIVE_TOLERANCE
WEIGHTS = (np.float32(0.299), np.float32(0.587), np.float32(0.114))  # kernels/src/luma.rs
NVRTC_OPTIONS = ("--std=c++11",)  # Kernel Tuner's cupy backend, unless given a -std
INCLUDES = "#include <cstddef>\n#include <cstdint>\n"
NVRTC_INCLUDES = (
    "#ifndef __CUDACC_RTC__\n"
    + INCLUDES
    + "#else\n"
    "// tune_family.py: NVRTC opens no C++ standard header; size_t is built in, and uintptr_t is\n"
    "// <cstdint>'s type on x86-64 Linux (LP64).\n"
    "typedef unsigned long uintptr_t;\n"
    'static_assert(sizeof(uintptr_t) == sizeof(void*), "uintptr_t holds a pointer");\n'
    "#endif\n"
)
ENTRY = re.compile(r'extern "C" __global__ void (\w+)\(')


def default_source():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "grayscale.cu"), os.path.join(here, "..", "..", "kernels", "cuda", "grayscale.cu")):
        if os.path.exists(path):
            return path
    return "grayscale.cu"


def entries(source):
    """Every `extern "C" __global__` entry of the source: name -> (start, end), the span from
    `extern` to the closing brace of its body."""
    found = {}
    for match in ENTRY.finditer(source):
        body = source.index("{", match.end())
        depth, i = 0, body
        while True:
            if source[i] == "{":
                depth += 1
            elif source[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        found[match.group(1)] = (match.start(), i + 1)
    return found


def translation_unit(source, entry):
    """grayscale.cu for one configuration: `entry` alone, its text unchanged but its name
    (`grayscale_family`), the other entries left out, the standard headers kept for nvcc."""
    if source.count(INCLUDES) != 1:
        raise ValueError("grayscale.cu no longer starts with its two #include lines: look at translation_unit()")
    spans = entries(source)
    if entry not in spans:
        raise ValueError(f"grayscale.cu has no entry {entry}")
    unit = source
    for name, (start, end) in sorted(spans.items(), key=lambda item: -item[1][0]):
        if name == entry:
            head = f'extern "C" __global__ void {entry}('
            assert unit[start:].startswith(head)
            unit = unit[:start] + f'extern "C" __global__ void {KERNEL}(' + unit[start + len(head):]
        else:
            unit = unit[:start] + f"// ({name}: left out by tune_family.py)" + unit[end:]
    header = (f"// kernels/cuda/grayscale.cu for Kernel Tuner (tune_family.py): the entry {entry} alone, "
              f"named {KERNEL}.\n")
    return header + unit.replace(INCLUDES, NVRTC_INCLUDES)


def shape_of(params):
    return SHAPES[(int(params["vector_width"]), int(params["pixels_per_thread"]))]


def configurations(only=None):
    """The family's 65 (block, vector width, pixels per thread), or those of `only`."""
    every = [(b, v, p) for b in BLOCK_SIZES for v in VECTOR_WIDTHS for p in PIXELS_PER_THREAD if (v, p) in SHAPES]
    return every if only is None else [c for c in every if c in only]


def parse_only(text):
    only = set()
    for item in text.split(","):
        b, v, p = (int(x) for x in item.strip().split(":"))
        if (v, p) not in SHAPES or b not in BLOCK_SIZES:
            raise SystemExit(f"--only {item}: not a configuration of the family")
        only.add((b, v, p))
    return only


def planes(n):
    """builtin/src/grayscale/frame.rs `plane`: (i mod P) as f32 / P as f32, for P = 251, 241, 239."""
    i = np.arange(n, dtype=np.int64)
    return [(i % period).astype(np.float32) / np.float32(period) for period in PERIODS]


def luma(red, green, blue):
    """kernels/src/luma.rs `luma` in float32, the same operations in the same order (no FMA)."""
    r, g, b = WEIGHTS
    return (r * red + g * green) + b * blue


def agree_exact(got, want, tolerance=RELATIVE_TOLERANCE):
    """runner's `Agreement::Within` pixel by pixel, in float64 as the runner compares: equal, or
    |got - want| <= tolerance x max(|got|, |want|) (a NaN agrees with nothing)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return (got == want) | (np.abs(got - want) <= tolerance * np.maximum(np.abs(got), np.abs(want)))


def agree(got, want, tolerance=RELATIVE_TOLERANCE):
    """`agree_exact`'s answer at about np.allclose's cost (a float64 pass over 8.3 M pixels takes
    several times as long, and Kernel Tuner's wall would carry it 65 times): a float32 screen at
    half the tolerance, which no rounding of its three float32 operations (each within 2^-24)
    can carry past the tolerance, then `agree_exact` on the pixels the screen did not pass."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != np.float32 or want.dtype != np.float32:
        return agree_exact(got, want, tolerance)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(got - want) <= np.float32(tolerance / 2) * np.maximum(np.abs(got), np.abs(want))
    if not ok.all():
        rest = np.flatnonzero(~ok)
        ok[rest] = agree_exact(got[rest], want[rest], tolerance)
    return ok


def make_verify(want, failures):
    """Kernel Tuner's `verify(answer, result_host, atol)`: `result_host[3]` is this
    configuration's `out`."""

    def verify(answer, result_host, atol=None):
        got = np.asarray(result_host[3])
        ok = agree(got, want)
        bad = int(got.size - np.count_nonzero(ok))
        if bad:
            first = int(np.argmin(ok))
            failures.append(f"{bad} pixel(s) wrong, the first {first}: {float(got[first])!r}, want {float(want[first])!r}")
        return bad == 0

    return verify


def grid_blocks(block, n):
    """`--grid per-item`: ceil(n / block) blocks (runner/src/model/grid.rs), as Kernel Tuner's
    default grid divisor computes it."""
    return -(-n // block)


def key_of(r):
    return (int(r["block_size_x"]), int(r["vector_width"]), int(r["pixels_per_thread"]))


def tune(args):
    import kernel_tuner

    imported = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    prefix = os.path.join(args.out, args.name)
    with open(args.source) as f:
        source = f.read()
    for entry, _ in SHAPES.values():  # every unit is built before Kernel Tuner starts
        translation_unit(source, entry)
    n = args.width * args.height
    red, green, blue = planes(n)
    want = luma(red, green, blue)
    out = np.full(n, np.nan, dtype=np.float32)
    arguments = [red, green, blue, out, np.uint64(n)]
    answer = [None, None, None, want, None]
    host_done = time.monotonic()
    only = parse_only(args.only) if args.only else None
    space = configurations(only)
    if only is None:
        tune_params = {"block_size_x": BLOCK_SIZES, "vector_width": VECTOR_WIDTHS, "pixels_per_thread": PIXELS_PER_THREAD}
        restrictions = [RESTRICTION]
    else:
        tune_params = {
            "block_size_x": sorted({b for b, _, _ in only}),
            "vector_width": sorted({v for _, v, _ in only}),
            "pixels_per_thread": sorted({p for _, _, p in only}),
        }
        listed = sorted(only)
        restrictions = [f"(block_size_x, vector_width, pixels_per_thread) in {listed}"]
    failures = []
    cache = prefix + ".cache.json"
    if os.path.exists(cache):
        os.remove(cache)  # no configuration of an earlier run is taken from its cache
    strategy_options = {"max_fevals": args.max_fevals} if args.max_fevals else None
    tune_start = time.monotonic()
    try:
        results, env = kernel_tuner.tune_kernel(
            KERNEL,
            lambda params: translation_unit(source, shape_of(params)[0]),
            n,
            arguments,
            tune_params,
            restrictions=restrictions,
            answer=answer,
            verify=make_verify(want, failures),
            lang=args.lang,
            strategy=args.strategy,
            strategy_options=strategy_options,
            cache=cache,
            iterations=args.iterations,
            quiet=True,
        )
    except Exception as error:  # noqa: BLE001
        # Kernel Tuner ends the whole run at the first configuration that fails verify.
        print(f"tune_kernel failed after {time.monotonic() - START:.3f} s: {error!r}")
        for line in failures[:10]:
            print(f"  verify: {line}")
        with open(prefix + ".summary.json", "w") as f:
            json.dump({"strategy": args.strategy, "only": args.only, "error": repr(error),
                       "verify_failures": failures, "wall_s_tune_kernel": time.monotonic() - tune_start}, f, indent=1)
        return 2
    answered = time.monotonic()
    return report(args, prefix, results, env, failures, space, tune_params, n,
                  {"imported": imported, "host_done": host_done, "tune_start": tune_start, "answered": answered})


def report(args, prefix, results, env, failures, space, tune_params, n, clock):
    import kernel_tuner
    from kernel_tuner.file_utils import store_metadata_file, store_output_file

    measured = [r for r in results if isinstance(r.get("time"), (int, float))]
    best = min(measured, key=lambda r: r["time"]) if measured else None
    sums = {key: sum(float(r.get(key, 0) or 0) for r in results) for key in
            ("compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time")}
    rows = []
    for r in sorted(measured, key=lambda r: r["time"]):
        b, v, p = key_of(r)
        times = [float(t) for t in r.get("times", []) or []]
        rows.append({
            "block_size_x": b, "vector_width": v, "pixels_per_thread": p,
            "entry": SHAPES[(v, p)][0], "shape": SHAPES[(v, p)][1], "grid_blocks": grid_blocks(b, n),
            "time_ms": r["time"], "median_ms": float(np.median(times)) if times else None, "times_ms": times,
            "compile_ms": r.get("compile_time"), "verification_ms": r.get("verification_time"),
            "benchmark_ms": r.get("benchmark_time"),
        })
    missing = sorted(set(space) - {key_of(r) for r in measured})
    summary = {
        "tool": "kernel_tuner",
        "strategy": args.strategy,
        "only": args.only,
        "lang": args.lang,
        "iterations": args.iterations,
        "max_fevals": args.max_fevals,
        "device": env.get("device_name"),
        "width": args.width, "height": args.height, "n": n,
        "grid": "per-item: ceil(n / block_size_x)",
        "space": len(space),
        "configurations_measured": len(measured),
        "not_measured": [list(c) for c in missing],
        "results": len(results),
        "verify_failures": failures,
        "winner": None if best is None else {"block_size_x": key_of(best)[0], "vector_width": key_of(best)[1],
                                             "pixels_per_thread": key_of(best)[2], "shape": SHAPES[key_of(best)[1:]][1]},
        "winner_time_ms": None if best is None else best["time"],
        "wall_s_process_start_to_answer": clock["answered"] - START,
        "wall_s_imports": clock["imported"] - START,
        "wall_s_host_data": clock["host_done"] - clock["imported"],
        "wall_s_tune_kernel": clock["answered"] - clock["tune_start"],
        "kt_ms_sums_of_results": sums,
        "kt_env_totals_ms": {k: env.get(k) for k in ("total_compile_time", "total_verification_time",
                                                      "total_benchmark_time", "total_strategy_time",
                                                      "total_framework_time", "overhead_time")},
        "kernel_tuner_version": getattr(kernel_tuner, "__version__", None),
        "configurations": rows,
    }
    try:
        import cupy

        summary["cupy_version"] = cupy.__version__
    except Exception as error:  # noqa: BLE001
        summary["cupy_version"] = f"n/a: {error}"
    what = f"--only {args.only}" if args.only else f"the family's {len(space)}"
    print(f"strategy: {args.strategy} over {what} (lang {args.lang}, iterations {args.iterations}, "
          f"max_fevals {args.max_fevals})")
    print(f"device: {summary['device']}; frame {args.width} x {args.height} = {n} pixels, grid per item")
    print(f"wall from process start to the answer: {summary['wall_s_process_start_to_answer']:.3f} s")
    print(f"  imports {summary['wall_s_imports']:.3f} s, host data and reference {summary['wall_s_host_data']:.3f} s")
    print(f"kt wall of the tune_kernel call: {summary['wall_s_tune_kernel']:.3f} s")
    for key in ("compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time"):
        print(f"kt {key.replace('_', ' ')}: {sums[key]:.1f} ms")
    print(f"kt sum of those: {sum(sums.values()):.1f} ms")
    print(f"configurations measured: {len(measured)} of {len(space)}" + (f"; not measured: {missing}" if missing else ""))
    print(f"verify failures: {len(failures)}")
    for line in failures[:10]:
        print(f"  {line}")
    print("every configuration, fastest first (Kernel Tuner's mean of its iterations; median beside it):")
    print("  block  vec  pix  shape   grid      mean ms   median ms  compile ms")
    for row in rows:
        median = f"{row['median_ms']:.4f}" if row["median_ms"] is not None else "-"
        print(f"  {row['block_size_x']:5d}  {row['vector_width']:3d}  {row['pixels_per_thread']:3d}  {row['shape']:5s}  "
              f"{row['grid_blocks']:7d}  {row['time_ms']:10.4f}  {median:>10s}  {float(row['compile_ms'] or 0):10.1f}")
    if best is not None:
        w = summary["winner"]
        print(f"winner: block_size_x {w['block_size_x']}, vector_width {w['vector_width']}, pixels_per_thread "
              f"{w['pixels_per_thread']} ({w['shape']}, grid {grid_blocks(w['block_size_x'], n)}): "
              f"{best['time']:.4f} ms (Kernel Tuner's mean of {args.iterations})")
    with open(prefix + ".summary.json", "w") as f:
        json.dump(summary, f, indent=1, default=str)
    for what, store in (("results", lambda: store_output_file(prefix + ".results.json", results, tune_params)),
                        ("metadata", lambda: store_metadata_file(prefix + ".metadata.json"))):
        try:
            store()
        except Exception as error:  # noqa: BLE001
            print(f"store {what} failed: {error!r}", file=sys.stderr)
    return 0 if not failures and not missing else 1


def self_test(source_path):
    """The helpers, without a GPU or Kernel Tuner."""
    with open(source_path) as f:
        source = f.read()
    spans = entries(source)
    assert set(spans) >= {entry for entry, _ in SHAPES.values()}, sorted(spans)
    for (v, p), (entry, name) in SHAPES.items():
        unit = translation_unit(source, entry)
        kept = entries(unit)
        assert list(kept) == [KERNEL], (entry, list(kept))
        start, end = spans[entry]
        body = source[start:end].replace(f"void {entry}(", f"void {KERNEL}(", 1)
        assert body in unit, f"{entry}'s text is not in its unit unchanged"
        assert "#ifndef __CUDACC_RTC__\n#include <cstddef>\n#include <cstdint>\n#else" in unit
        for other, _ in SHAPES.values():
            if other != entry:
                assert f"void {other}(" not in unit
        assert shape_of({"vector_width": v, "pixels_per_thread": p}) == (entry, name)
    space = configurations()
    assert len(space) == 65 and len(set(space)) == 65
    assert sum(1 for _, v, _ in space if v == 4) == 13
    restricted = [(b, v, p) for b in BLOCK_SIZES for v in VECTOR_WIDTHS for p in PIXELS_PER_THREAD
                  if eval(RESTRICTION, {}, {"vector_width": v, "pixels_per_thread": p})]
    assert restricted == space
    assert configurations(parse_only("128:4:4, 192:1:1")) == [(128, 4, 4), (192, 1, 1)]
    n = WIDTH * HEIGHT
    assert n == 8294400 and grid_blocks(16, n) == 518400 and grid_blocks(100, n) == 82944 and grid_blocks(1024, n) == 8100
    red, green, blue = planes(1000)
    assert red[0] == 0 and red[250] == np.float32(250) / np.float32(251) and red[251] == 0
    assert green[242] == np.float32(1) / np.float32(241) and blue[599] == np.float32(599 % 239) / np.float32(239)
    want = luma(red, green, blue)
    i = 500
    expected = np.float32(np.float32(0.299) * red[i] + np.float32(0.587) * green[i]) + np.float32(0.114) * blue[i]
    assert want.dtype == np.float32 and want[i] == expected
    assert abs(float(luma(np.float32(1), np.float32(1), np.float32(1))) - 1.0) < 1e-6
    assert agree(want, want).all()
    fma = want.copy()
    fma[7] = np.nextafter(fma[7], np.float32(2))  # a last-bit difference, as an FMA may make
    assert agree(fma, want).all()
    wrong = want.copy()
    wrong[9] *= np.float32(1.001)
    wrong[11] = np.nan
    ok = agree(wrong, want)
    assert not ok[9] and not ok[11] and ok.sum() == want.size - 2
    assert agree(np.float32([-0.0]), np.float32([0.0])).all()
    # The screen decides as the float64 rule does, at the tolerance's edge too.
    rng = np.random.default_rng(43)
    base = np.float32(rng.uniform(0.01, 1.0, 20000))
    edge = (base * np.float32(1) + base * np.float32(rng.uniform(-2e-5, 2e-5, base.size))).astype(np.float32)
    edge[:50] = np.float32(np.nan)
    edge[50:60] = 0
    assert (agree(edge, base) == agree_exact(edge, base)).all() and 0 < agree(edge, base).sum() < base.size
    failures = []
    verify = make_verify(want, failures)
    assert verify(None, [None, None, None, want, None])
    assert not verify(None, [None, None, None, wrong, None]) and "2 pixel(s) wrong, the first 9" in failures[-1]
    print("self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="brute_force")
    parser.add_argument("--max-fevals", type=int, default=None, help="strategy_options max_fevals")
    parser.add_argument("--lang", default="cupy", choices=["cupy", "nvcuda"])
    parser.add_argument("--iterations", type=int, default=7, help="Kernel Tuner's runs a configuration (its default 7)")
    parser.add_argument("--only", default=None, help="B:V:P[,B:V:P...]: those configurations alone (a re-measure)")
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--height", type=int, default=HEIGHT)
    parser.add_argument("--source", default=default_source())
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--name", default=None, help="file prefix under --out (default kt-STRATEGY)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.source)
    args.name = args.name or f"kt-{args.strategy}"
    return tune(args)


if __name__ == "__main__":
    sys.exit(main())
