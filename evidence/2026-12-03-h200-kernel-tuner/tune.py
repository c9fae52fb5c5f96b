#!/usr/bin/env python3
"""Kernel Tuner 1.5.0 over `sum_of_squares_tuned` (examples/reduce/cuda/reduce.cu), the same
space block-size sweeps with `reduce-example --block-sizes 32,64,...,1024 --grids
one-wave,waves:2,waves:4`:

  block_size_x      32, 64, ..., 1024      <-> --block-sizes
  items_per_thread  1, 4                   <-> the items/thr axis (sum_of_squares, sum_of_squares_x4)
  waves             1, 2, 4                <-> --grids one-wave, waves:2, waves:4

The grid is `problem_size` itself (`grid_div_x=[]`: Kernel Tuner divides by nothing): blocks =
blocks_per_sm(block, items) x SMs x waves, blocks_per_sm from the driver
(cuOccupancyMaxActiveBlocksPerMultiprocessor on the same source compiled with the same
defines, 4 x block bytes of dynamic shared memory), as block-size's grid policies count them.
Every configuration is checked (`verify`): the partials' float64 sum against the float64 CPU sum
of squares within the bound of examples/reduce/src/reference.rs (`relative_error_bound`,
ported below).

One strategy a process: `tune.py --strategy brute_force|bayes_opt|dual_annealing ...`. It
prints the wall time from process start (before any import) to tune_kernel's return, Kernel
Tuner's own compile, benchmark, verification, strategy and framework times (each its own line),
the configurations measured and the winner, and writes Kernel Tuner's results and metadata (T4
format), its cache and a summary JSON under --out.

`tune.py --self-test` checks the helpers (values, the bound, the grid, verify) without a GPU.
"""

import time

START = time.monotonic()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

N = 1 << 24
BLOCK_SIZES = list(range(32, 1025, 32))
ITEMS = [1, 4]
WAVES = [1, 2, 4]
KERNEL = "sum_of_squares_tuned"
# Kernel Tuner's cupy backend compiles with these options unless given a -std (backends/cupy.py).
NVRTC_OPTIONS = ("--std=c++11",)


def values(n):
    """`values()` of examples/reduce/src/lib.rs: (i % 2001) / 1000 - 1 in f32, n of them."""
    i = np.arange(n, dtype=np.int64)
    return (i % 2001).astype(np.float32) / np.float32(1000.0) - np.float32(1.0)


def sum_of_squares(x):
    """The reference: every square exact in float64, summed in float64."""
    x = x.astype(np.float64)
    return float(np.sum(x * x))


def relative_error_bound(n, grid_blocks, threads_per_block):
    """examples/reduce/src/reference.rs `relative_error_bound`, line for line."""
    assert grid_blocks > 0 and threads_per_block > 0, "a launch has at least one block and one thread"
    threads = grid_blocks * threads_per_block
    per_thread = -(-n // threads)
    # u32::next_power_of_two().trailing_zeros(): ceil(log2(threads_per_block)).
    depth = (threads_per_block - 1).bit_length()

    def gamma(rounds, unit):
        rounds = rounds * unit
        return rounds / (1.0 - rounds) if rounds < 1.0 else float("inf")

    f32_unit = 2.0**-24
    f64_unit = 2.0**-53
    reference = gamma(n, f64_unit)
    return (gamma(per_thread + depth, f32_unit) + 2.0 * gamma(grid_blocks + n, f64_unit)) / (1.0 - reference)


def grid_blocks(params, blocks_per_sm, sms):
    """The grid of a configuration: one wave of resident blocks times `waves`."""
    return blocks_per_sm[(params["block_size_x"], params["items_per_thread"])] * sms * params["waves"]


def launch_key(params):
    return (params["block_size_x"], params["items_per_thread"], params["waves"])


def make_verify(n, want, failures):
    """Kernel Tuner's `verify(answer, result_host, atol)`: `answer[2]` is this configuration's
    (grid blocks, threads per block), chosen per configuration by a Tunable."""

    def verify(answer, result_host, atol=None):
        grid, block = (int(v) for v in answer[2])
        partials = np.asarray(result_host[2])
        got = float(np.sum(partials[:grid].astype(np.float64)))
        bound = relative_error_bound(n, grid, block)
        error = abs(got - want) / want
        beyond = int(np.count_nonzero(partials[grid:]))
        ok = error <= bound and beyond == 0
        if not ok:
            failures.append(
                f"grid {grid} x {block}: sum {got!r}, CPU {want!r}, relative error {error:.3e} "
                f"(bound {bound:.3e}), {beyond} partial(s) written beyond the grid"
            )
        return ok

    return verify


def compile_for_occupancy(source, items, lang):
    """The source compiled as Kernel Tuner compiles it (NVRTC, --std=c++11, the defines that
    decide the code: items_per_thread and kernel_tuner), and a function
    (threads, dynamic shared bytes) -> blocks per SM from the driver."""
    prefix = f"#define items_per_thread {items}\n#define kernel_tuner 1\n"
    if lang == "cupy":
        import cupy as cp

        module = cp.RawModule(code=prefix + source, options=NVRTC_OPTIONS, name_expressions=[KERNEL])
        function = module.get_function(KERNEL)
        pointer = function.kernel.ptr
        driver = cp.cuda.driver

        def blocks(threads, shared):
            return int(driver.occupancyMaxActiveBlocksPerMultiprocessor(pointer, threads, shared))

        return blocks
    # cuda-bindings (the nvcuda backend's library): NVRTC to PTX, the driver loads it.
    from cuda.bindings import driver, nvrtc

    def check(result):
        error, *rest = result
        if int(error) != 0:
            raise RuntimeError(f"CUDA error {error}")
        return rest[0] if len(rest) == 1 else rest

    check(driver.cuInit(0))
    device = check(driver.cuDeviceGet(0))
    major = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = check(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    context = check(driver.cuDevicePrimaryCtxRetain(device))
    check(driver.cuCtxSetCurrent(context))
    program = check(nvrtc.nvrtcCreateProgram((prefix + source).encode(), b"reduce.cu", 0, [], []))
    options = [o.encode() for o in NVRTC_OPTIONS] + [f"--gpu-architecture=compute_{major}{minor}".encode()]
    check(nvrtc.nvrtcCompileProgram(program, len(options), options))
    size = check(nvrtc.nvrtcGetPTXSize(program))
    ptx = b" " * size
    check(nvrtc.nvrtcGetPTX(program, ptx))
    module = check(driver.cuModuleLoadData(ptx))
    function = check(driver.cuModuleGetFunction(module, KERNEL.encode()))

    def blocks(threads, shared):
        return int(check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, threads, shared)))

    return blocks


def device_facts(lang):
    """(SMs, device name) of device 0."""
    if lang == "cupy":
        import cupy as cp

        device = cp.cuda.Device(0)
        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        return int(device.attributes["MultiProcessorCount"]), name
    from cuda.bindings import driver

    driver.cuInit(0)
    _, device = driver.cuDeviceGet(0)
    _, sms = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)
    _, name = driver.cuDeviceGetName(64, device)
    return int(sms), name.split(b"\0")[0].decode()


def tune(args):
    import kernel_tuner
    from kernel_tuner.accuracy import Tunable

    imported = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    prefix = os.path.join(args.out, args.name)
    with open(args.source) as f:
        source = f.read()
    x = values(N)
    want = sum_of_squares(x)
    sms, device_name = device_facts(args.lang)
    blocks_per_sm = {}
    for items in ITEMS:
        blocks = compile_for_occupancy(source, items, args.lang)
        for block in BLOCK_SIZES:
            blocks_per_sm[(block, items)] = blocks(block, 4 * block)
    occupancy_done = time.monotonic()
    tune_params = {"block_size_x": BLOCK_SIZES, "items_per_thread": ITEMS, "waves": WAVES}
    configs = [
        {"block_size_x": b, "items_per_thread": i, "waves": w} for b in BLOCK_SIZES for i in ITEMS for w in WAVES
    ]
    grids = {launch_key(p): grid_blocks(p, blocks_per_sm, sms) for p in configs}
    partials = np.zeros(max(grids.values()), dtype=np.float32)
    arguments = [x, np.uint64(N), partials]
    # Per configuration, what verify needs: its grid and block.
    answer = Tunable(
        launch_key, {key: [None, None, np.array([grid, key[0]], dtype=np.int64)] for key, grid in grids.items()}
    )
    failures = []
    strategy_options = {"max_fevals": args.max_fevals} if args.max_fevals else None
    tune_start = time.monotonic()
    try:
        results, env = run_kernel_tuner(kernel_tuner, source, grids, arguments, tune_params, answer, want, failures,
                                        strategy_options, prefix, args)
    except Exception as error:  # noqa: BLE001
        # Kernel Tuner ends the whole run at the first configuration that fails verify.
        print(f"tune_kernel failed after {time.monotonic() - START:.3f} s: {error!r}")
        for line in failures[:10]:
            print(f"  verify: {line}")
        with open(prefix + ".summary.json", "w") as f:
            json.dump({"strategy": args.strategy, "error": repr(error), "verify_failures": failures}, f, indent=1)
        return 2
    return report(args, prefix, results, env, grids, blocks_per_sm, failures, configs, tune_params, device_name, sms,
                  imported, occupancy_done, tune_start)


def run_kernel_tuner(kernel_tuner, source, grids, arguments, tune_params, answer, want, failures, strategy_options,
                     prefix, args):
    return kernel_tuner.tune_kernel(
        KERNEL,
        source,
        lambda p: (grids[launch_key(p)],),
        arguments,
        tune_params,
        grid_div_x=[],
        smem_args={"size": lambda p: 4 * p["block_size_x"]},
        answer=answer,
        verify=make_verify(N, want, failures),
        lang=args.lang,
        strategy=args.strategy,
        strategy_options=strategy_options,
        cache=prefix + ".cache.json",
        iterations=args.iterations,
        quiet=True,
    )


def report(args, prefix, results, env, grids, blocks_per_sm, failures, configs, tune_params, device_name, sms,
           imported, occupancy_done, tune_start):
    import kernel_tuner
    from kernel_tuner.file_utils import store_metadata_file, store_output_file

    answered = time.monotonic()
    measured = [r for r in results if isinstance(r.get("time"), (int, float))]
    best = env.get("best_config") or min(measured, key=lambda r: r["time"])
    # Each configuration's grid as launched, for the summary to put beside block-size's.
    for r in results:
        r["grid_blocks"] = grids[launch_key(r)]
        r["blocks_per_sm"] = blocks_per_sm[(r["block_size_x"], r["items_per_thread"])]
    sums = {key: sum(float(r.get(key, 0) or 0) for r in results) for key in
            ("compile_time", "benchmark_time", "verification_time", "strategy_time", "framework_time")}
    summary = {
        "strategy": args.strategy,
        "lang": args.lang,
        "max_fevals": args.max_fevals,
        "iterations": args.iterations,
        "device": device_name,
        "sms": sms,
        "n": N,
        "space": len(configs),
        "configurations_measured": len(measured),
        "results": len(results),
        "verify_failures": failures,
        "winner": {k: best[k] for k in ("block_size_x", "items_per_thread", "waves")},
        "winner_time_ms": best["time"],
        "winner_grid_blocks": grids[launch_key(best)],
        "wall_s_process_start_to_answer": answered - START,
        "wall_s_imports": imported - START,
        "wall_s_host_data_and_occupancy": occupancy_done - imported,
        "wall_s_tune_kernel": answered - tune_start,
        "kt_ms_sums_of_results": sums,
        "kt_env_totals_ms": {k: env.get(k) for k in ("total_compile_time", "total_benchmark_time",
                                                      "total_verification_time", "total_strategy_time",
                                                      "total_framework_time", "overhead_time")},
        "kernel_tuner_version": getattr(kernel_tuner, "__version__", None),
        "blocks_per_sm": {f"{b},{i}": v for (b, i), v in sorted(blocks_per_sm.items())},
    }
    try:
        import cupy

        summary["cupy_version"] = cupy.__version__
    except Exception as error:  # noqa: BLE001
        summary["cupy_version"] = f"n/a: {error}"
    print(f"strategy: {args.strategy} (lang {args.lang}, max_fevals {args.max_fevals}, iterations {args.iterations})")
    print(f"device: {device_name}, {sms} SMs")
    print(f"wall from process start to the answer: {summary['wall_s_process_start_to_answer']:.3f} s")
    print(f"  of which imports {summary['wall_s_imports']:.3f} s, host data and occupancy queries {summary['wall_s_host_data_and_occupancy']:.3f} s, "
          f"tune_kernel {summary['wall_s_tune_kernel']:.3f} s")
    print(f"kt compile time: {sums['compile_time']:.1f} ms")
    print(f"kt benchmark time: {sums['benchmark_time']:.1f} ms")
    print(f"kt verification time: {sums['verification_time']:.1f} ms")
    print(f"kt strategy time: {sums['strategy_time']:.1f} ms")
    print(f"kt framework time: {sums['framework_time']:.1f} ms")
    print(f"kt sum of those: {sum(sums.values()):.1f} ms")
    print(f"configurations measured: {len(measured)} of {len(configs)}")
    print(f"verify failures: {len(failures)}")
    for line in failures[:10]:
        print(f"  {line}")
    w = summary["winner"]
    print(f"winner: block_size_x {w['block_size_x']}, items_per_thread {w['items_per_thread']}, waves {w['waves']} "
          f"(grid {summary['winner_grid_blocks']}): {best['time']:.4f} ms (Kernel Tuner's mean of {args.iterations})")
    with open(prefix + ".summary.json", "w") as f:
        json.dump(summary, f, indent=1, default=str)
    for what, store in (("results", lambda: store_output_file(prefix + ".results.json", results, tune_params)),
                        ("metadata", lambda: store_metadata_file(prefix + ".metadata.json"))):
        try:
            store()
        except Exception as error:  # noqa: BLE001
            print(f"store {what} failed: {error!r}", file=sys.stderr)
    return 0 if not failures else 1


def self_test():
    """The helpers against examples/reduce/src/reference.rs's own tests, no GPU."""
    unit = 2.0**-24
    one = relative_error_bound(1, 1, 1)
    assert unit <= one < 1.01 * unit, one
    wave = relative_error_bound(1_000_000, 264, 256)
    assert 23.0 * unit <= wave < 23.1 * unit, wave
    assert relative_error_bound(65, 1, 65) == relative_error_bound(65, 1, 128)
    assert relative_error_bound(10_000, 1, 100) > relative_error_bound(10_000, 1, 128)
    assert relative_error_bound(1 << 20, 1, 32) > relative_error_bound(1 << 20, 8, 32)
    assert relative_error_bound(1 << 25, 1, 1) == float("inf")
    try:
        relative_error_bound(10, 0, 256)
        raise AssertionError("no bound for an empty launch")
    except AssertionError as error:
        assert "at least one block" in str(error)
    # values(): the Rust f32 expression, bit for bit at a few indices.
    x = values(4003)
    assert x.dtype == np.float32 and x[0] == np.float32(-1.0) and x[1000] == np.float32(0.0)
    assert x[2000] == np.float32(1.0) and x[2001] == np.float32(-1.0)
    assert x[1] == np.float32(np.float32(1.0) / np.float32(1000.0) - np.float32(1.0))
    # The grid: one wave of resident blocks times waves, as block-size's policies.
    blocks_per_sm = {(1024, 1): 2, (32, 4): 32}
    assert grid_blocks({"block_size_x": 1024, "items_per_thread": 1, "waves": 1}, blocks_per_sm, 132) == 264
    assert grid_blocks({"block_size_x": 32, "items_per_thread": 4, "waves": 4}, blocks_per_sm, 132) == 4 * 32 * 132
    # Kernel Tuner's own grid arithmetic with grid_div_x=[]: the grid is the problem size.
    from kernel_tuner import util

    params = {"block_size_x": 256, "items_per_thread": 4, "waves": 2}
    threads, grid = util.setup_block_and_grid(
        (lambda p: (1056 * p["waves"],)), ([], None, None), params, util.default_block_size_names
    )
    assert threads == (256, 1, 1) and grid == (2112, 1, 1), (threads, grid)
    smem = util.get_smem_args({"size": lambda p: 4 * p["block_size_x"]}, params)
    assert smem["size"] == 1024
    # verify: the CPU model of the kernels' partials (f32 per thread, the tree), within the bound.
    n, grid, block = 100_003, 3, 100
    x = values(n)
    want = sum_of_squares(x)
    step = grid * block
    partials = np.zeros(8, dtype=np.float32)
    for b in range(grid):
        sums = []
        for t in range(block):
            s = np.float32(0.0)
            for i in range(b * block + t, n, step):
                s = np.float32(s + x[i] * x[i])
            sums.append(s)
        p = 1 << (block - 1).bit_length()
        stride = p // 2
        while stride > 0:
            for t in range(stride):
                if t + stride < block:
                    sums[t] = np.float32(sums[t] + sums[t + stride])
            stride //= 2
        partials[b] = sums[0]
    failures = []
    verify = make_verify(n, want, failures)
    answer = [None, None, np.array([grid, block])]
    assert verify(answer, [None, None, partials]), failures
    wrong = partials.copy()
    wrong[0] += 1.0
    assert not verify(answer, [None, None, wrong]) and "bound" in failures[-1]
    stray = partials.copy()
    stray[grid] = 1.0
    assert not verify(answer, [None, None, stray]) and "1 partial(s) written beyond" in failures[-1]
    # The Tunable that hands verify each configuration's launch.
    from kernel_tuner.accuracy import Tunable

    tunable = Tunable(launch_key, {(256, 4, 2): [None, None, np.array([2112, 256])]})
    chosen = tunable.select_for_configuration(params)
    assert list(chosen[2]) == [2112, 256]
    print("self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="brute_force")
    parser.add_argument("--max-fevals", type=int, default=None, help="strategy_options max_fevals")
    parser.add_argument("--lang", default="cupy", choices=["cupy", "nvcuda"])
    parser.add_argument("--iterations", type=int, default=7, help="Kernel Tuner's runs a configuration (its default 7)")
    parser.add_argument("--source", default="reduce.cu")
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--name", default=None, help="file prefix under --out (default kt-STRATEGY)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    args.name = args.name or f"kt-{args.strategy}"
    return tune(args)


if __name__ == "__main__":
    sys.exit(main())
