//! A kernel of one's own on the mock: `scale` (out = 2 x) and `scale_x2` (the same, two items a
//! thread), hand-written PTX and a CPU emulation that, at 256 threads per block, rounds one
//! value differently, as a kernel whose float result depends on the block size would.

use crate::commands::settings::{Settings, TimingSettings};
use crate::commands::sweep::*;
use crate::error::exit;
use crate::kernel::*;
use crate::measure::gpu::mock::{EmulatedMemory, Launch, MockDriver, MockGpu, read_values, write_values};
use crate::measure::sampling::timing::Timing;
use crate::measure::sampling::timing::TimingMode;
use crate::model::block_shape::BlockShape;
use crate::search::strategy::Search;
use crate::search::{strategy, sweep};
use crate::tests::fixture;
use crate::{Console, EmbeddedPtx, Format, GridPolicy, Measured};
use anyhow::Result;

const PTX: &str = ".version 7.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry scale(\n\t.param .u64 scale_param_0,\n\t.param .u64 scale_param_1,\n\t.param .u64 scale_param_2\n)\n{\n\tret;\n}\n\n\
    .visible .entry scale_x2(\n\t.param .u64 scale_x2_param_0,\n\t.param .u64 scale_x2_param_1,\n\t.param .u64 scale_x2_param_2\n)\n{\n\tret;\n}\n\n\
    .visible .entry scale_tiled(\n\t.param .u64 scale_tiled_param_0,\n\t.param .u64 scale_tiled_param_1,\n\t.param .u64 scale_tiled_param_2,\n\t.param .u32 scale_tiled_param_3\n)\n{\n\tret;\n}\n";

const MODULE: EmbeddedPtx = EmbeddedPtx::user("scale", PTX);

/// `scale` twice more, under launch bounds: exactly 128 threads, and at most 256.
const BOUNDED_PTX: &str = ".version 7.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry scale_exactly_128(\n\t.param .u64 p0,\n\t.param .u64 p1,\n\t.param .u64 p2\n)\n.reqntid 128, 1, 1\n{\n\tret;\n}\n\n\
    .visible .entry scale_at_most_256(\n\t.param .u64 p0,\n\t.param .u64 p1,\n\t.param .u64 p2\n)\n.maxntid 256, 1, 1\n{\n\tret;\n}\n";

const BOUNDED: EmbeddedPtx = EmbeddedPtx::user("bounded", BOUNDED_PTX);

/// The block size at which the emulation's value 0 comes out one ulp high.
const ODD_BLOCK: u32 = 256;

/// `out[i] = 2 x[i]`; at [`ODD_BLOCK`] threads, the last value one ulp higher; `fault` set to -1.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [x, n, out] = launch.args.as_slice() else { anyhow::bail!("scale takes three arguments") };
    let n = n.as_usize()?;
    let mut values: Vec<f32> =
        read_values::<f32>(memory.at(x)?, n)?.iter().map(|value| 2.0 * value).collect();
    if launch.threads_per_block() == ODD_BLOCK {
        let last = values.last_mut().expect("values");
        *last = f32::from_bits(last.to_bits() + 1);
    }
    if let Some(value) = fault.and_then(|index| values.get_mut(index)) {
        *value = -1.0;
    }
    write_values(memory.at_mut(out)?, &values)
}

/// [`emulate`] with a fourth argument, the tile, which must be a power of two.
fn emulate_tiled(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let tile = launch.args.get(3).map(|arg| arg.as_u32()).transpose()?;
    anyhow::ensure!(tile.is_some_and(u32::is_power_of_two), "the tile is {tile:?}");
    let three = Launch { args: launch.args[..3].to_vec(), ..launch.clone() };
    emulate(&three, memory, fault)
}

fn driver() -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    gpu.emulate(MODULE.kernel("scale"), emulate).emulate(MODULE.kernel("scale_x2"), emulate);
    gpu.emulate(MODULE.kernel("scale_tiled"), emulate_tiled);
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

const N: usize = 1000;

/// The kernel over `N` values `i / 8`, checked by `check`.
fn kernel(check: Check) -> Kernel {
    kernel_at("scale", check)
}

/// [`kernel`] with the entry point `entry`.
fn kernel_at(entry: &'static str, check: Check) -> Kernel {
    kernel_at_of(MODULE, entry, check)
}

/// [`kernel`] at `entry` of `module`.
fn kernel_at_of(module: EmbeddedPtx, entry: &'static str, check: Check) -> Kernel {
    let x: Vec<f32> = (0..N).map(|i| i as f32 / 8.0).collect();
    Kernel::new(module, entry)
        .items(N as u64, "values")
        .bytes_per_pass(8 * N as u64, "moved per pass")
        .input("x", x)
        .output::<f32>("out", N)
        .args(|_| vec![Arg::Buffer("x"), Arg::Usize(N), Arg::Buffer("out")])
        .check(check)
}

/// The CPU reference: every value exactly twice its input.
fn reference() -> Check {
    Check::reference(|result, _| {
        let Some(values) = result.of::<f32>() else { return Err("not f32s".into()) };
        match (0..N).find(|&i| values[i] != 2.0 * (i as f32 / 8.0)) {
            Some(i) => {
                Err(format!("value {i} is {}, the CPU reference says {}", values[i], 2.0 * (i as f32 / 8.0)))
            }
            None => Ok(()),
        }
    })
}

fn options(block_sizes: &[u32]) -> Settings {
    Settings {
        block_sizes: block_sizes.to_vec(),
        timing: TimingSettings {
            mode: TimingMode::Launch,
            warmups: 1,
            runs: Some(3),
            ..TimingSettings::default()
        },
        ..Settings::default()
    }
}

fn run(driver: &MockDriver, kernel: &Kernel, settings: &Settings) -> Result<Measured, Error> {
    sweep_with(driver, kernel, settings)
}

fn run_and_print(driver: &MockDriver, kernel: &Kernel, settings: &Settings, console: &mut Console) -> i32 {
    sweep_and_print_with(driver, kernel, settings, console)
}

fn failures(measured: &Measured) -> Vec<String> {
    measured.sweep.failures.iter().map(ToString::to_string).collect()
}

#[test]
fn a_kernel_of_ones_own_is_swept_and_checked_against_its_reference() {
    let kernel = kernel(reference());
    let measured = run(&driver(), &kernel, &options(&[32, 128, 1024])).unwrap();
    assert_eq!(failures(&measured), Vec::<String>::new());
    assert_eq!(measured.exit_status(), 0);
    let threads: Vec<u32> = measured.sweep.rows.iter().map(|row| row.threads_per_block).collect();
    assert_eq!(threads, [32, 128, 1024]);
    // One wave, capped at one thread per value: ceil(1000 / 128) = 8 blocks.
    assert_eq!(measured.sweep.rows[1].grid_blocks, 8);
    assert!(measured.head.contains("Work: 1000 values, 0.0 MiB moved per pass\n"), "{}", measured.head);
    let report = measured.table(false);
    assert!(report.contains(" thr/blk  warps"), "{report}");
    assert!(report.contains("Fastest measured: "), "{report}");
    let json: serde_json::Value = serde_json::from_str(&measured.export(Format::Json).unwrap()).unwrap();
    assert_eq!(json["kernel"], "scale");
    assert_eq!(json["pixels"], 1000);
    assert_eq!(json["grid"], "one-wave");
    assert_eq!(json["workload"]["items"]["noun"], "values");
    assert!(json.get("width").is_none() && json.get("fastest_axes").is_none());
    assert_eq!(json["axes"], serde_json::json!([]));
    assert!(measured.plot().unwrap().starts_with("<svg"));
}

#[test]
fn a_wrong_result_fails_the_reference_check() {
    let mut driver = driver();
    driver.devices[0].wrong_kernel = Some(MODULE.kernel("scale"));
    driver.devices[0].wrong_element = 7;
    let measured = run(&driver, &kernel(reference()), &options(&[64, 128])).unwrap();
    assert_eq!(
        failures(&measured),
        [
            "wrong output at 64 threads per block: value 7 is -1, the CPU reference says 1.75",
            "wrong output at 128 threads per block: value 7 is -1, the CPU reference says 1.75",
        ]
    );
    assert_eq!(measured.exit_status(), 1);
    assert!(measured.failures().contains("2 check(s) failed"));
}

#[test]
fn same_as_first_bit_for_bit_catches_the_one_block_size_that_differs() {
    let kernel = kernel(Check::same_as_first(Agreement::BitForBit));
    let measured = run(&driver(), &kernel, &options(&[64, ODD_BLOCK, 512])).unwrap();
    assert_eq!(
        failures(&measured),
        ["wrong output at 256 threads per block: value 999 is 249.75002 (0x4379c001), \
          not bit for bit the first row's (64 threads per block) 249.75 (0x4379c000)"]
    );
    let [crate::search::sweep::CheckFailure::WrongOutput { mismatch, .. }] =
        measured.sweep.failures.as_slice()
    else {
        panic!("{:?}", measured.sweep.failures)
    };
    assert_eq!(mismatch.index, Some(999));
}

#[test]
fn same_as_first_within_a_tolerance_takes_small_differences_but_not_large_ones() {
    // The last value is one ulp of 249.75 higher at 256: a relative difference of 6.1e-8,
    // within 1e-6 and not within 1e-9; the other values agree exactly.
    let loose = kernel(Check::same_as_first(Agreement::Within(1e-6)));
    assert_eq!(failures(&run(&driver(), &loose, &options(&[64, ODD_BLOCK])).unwrap()), Vec::<String>::new());
    let tight = kernel(Check::same_as_first(Agreement::Within(1e-9)));
    let measured = run(&driver(), &tight, &options(&[64, ODD_BLOCK, 512])).unwrap();
    assert_eq!(
        failures(&measured),
        [
            "wrong output at 256 threads per block: value 999 is 249.75002, the first row's (64 threads per block) 249.75: \
          a relative difference of 6.110e-8, above the tolerance 1e-9"
        ]
    );
    // The CPU reference is exact: it catches what the loose tolerance lets through.
    let both = kernel(reference()).check(Check::same_as_first(Agreement::Within(1e-6)));
    let measured = run(&driver(), &both, &options(&[64, ODD_BLOCK])).unwrap();
    assert_eq!(failures(&measured).len(), 1, "the reference catches it, the loose tolerance does not");
}

#[test]
fn same_as_first_on_a_larger_value_within_a_tolerance() {
    // A result of its own: the sum of the outputs, whose one-ulp change at value 0 is far
    // below a relative 1e-6 of the total.
    let sum = |readback: &Readback, _: &LaunchShape| -> Result<Values> {
        Ok(Values::from(readback.of::<f32>("out")?.iter().map(|&value| f64::from(value)).sum::<f64>()))
    };
    let bits = kernel(Check::same_as_first(Agreement::BitForBit)).result(sum);
    let measured = run(&driver(), &bits, &options(&[64, ODD_BLOCK])).unwrap();
    assert_eq!(measured.sweep.failures.len(), 1, "bit for bit, the sum differs");
    let within = kernel(Check::same_as_first(Agreement::Within(1e-6))).result(sum);
    assert_eq!(failures(&run(&driver(), &within, &options(&[64, ODD_BLOCK])).unwrap()), Vec::<String>::new());
}

#[test]
fn a_tunable_runs_the_cross_product_and_shows_as_a_column() {
    let kernel = kernel(reference())
        .axis(Axis::entries("items/thr", [("1", "scale"), ("2", "scale_x2")]))
        .dynamic_shared_memory(|threads, variant| threads * 4 * (variant.index as u32 + 1));
    let mut driver = driver();
    driver.devices[0].milliseconds = vec![(64, 0.5), (128, 0.25)];
    let measured = run(&driver, &kernel, &options(&[64, 128])).unwrap();
    let rows: Vec<(Option<&str>, u32, u32)> = measured
        .sweep
        .rows
        .iter()
        .map(|row| (row.axes.get("items/thr"), row.threads_per_block, row.dynamic_shared_memory))
        .collect();
    assert_eq!(
        rows,
        [(Some("1"), 64, 256), (Some("1"), 128, 512), (Some("2"), 64, 512), (Some("2"), 128, 1024)]
    );
    let report = measured.table(false);
    let table: Vec<&str> = report.lines().skip_while(|line| !line.contains("thr/blk")).take(5).collect();
    assert!(table[0].starts_with("  items/thr  thr/blk"), "{report}");
    assert!(table[3].starts_with("          2       64"), "{report}");
    assert!(
        report.contains("Fastest measured: 128 threads per block, items/thr 1, at 0.250 ms."),
        "{report}"
    );
    let csv = measured.export(Format::Csv).unwrap();
    assert!(csv.starts_with("items/thr,threads_per_block,"), "{csv}");
    assert!(csv.lines().nth(3).unwrap().starts_with("2,64,"), "{csv}");
    let markdown = measured.export(Format::Markdown).unwrap();
    assert!(markdown.contains("| items/thr | thr/blk |"), "{markdown}");
    assert!(markdown.contains("1000 values"), "{markdown}");
    let json: serde_json::Value = serde_json::from_str(&measured.export(Format::Json).unwrap()).unwrap();
    assert_eq!(json["axes"], serde_json::json!(["items/thr"]));
    assert_eq!(json["fastest_axes"], serde_json::json!({"items/thr": "1"}));
    assert_eq!(json["rows"][2]["axes"], serde_json::json!({"items/thr": "2"}));
    // Each value's kernel was loaded and launched.
    let loaded: Vec<&str> = driver.devices[0].loaded.iter().map(|(kernel, _)| kernel.entry).collect();
    assert!(loaded.is_empty(), "the driver's template device is untouched: {loaded:?}");
}

#[test]
fn grid_policies_size_every_launch() {
    for (grid, want) in
        [(GridPolicy::OneWave, [8, 4]), (GridPolicy::PerItem, [8, 4]), (GridPolicy::Waves(2), [8, 4])]
    {
        let options = Settings { grid, ..options(&[128, 256]) };
        let measured = run(&driver(), &kernel(reference()), &options).unwrap();
        let grids: Vec<u32> = measured.sweep.rows.iter().map(|row| row.grid_blocks).collect();
        assert_eq!(grids, want, "{grid:?}: 1000 values are few enough for one block each 128 or 256");
    }
    // A million values: one wave is blk/SM x SMs, waves:2 twice that, per-item one per 128.
    let n = 1 << 20;
    let big = || {
        Kernel::new(MODULE, "scale")
            .items(n as u64, "values")
            .input("x", vec![0.0f32; n])
            .output::<f32>("out", n)
            .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("out")])
            .check(Check::same_as_first(Agreement::BitForBit))
    };
    for (grid, want) in
        [(GridPolicy::OneWave, 2112), (GridPolicy::Waves(2), 4224), (GridPolicy::PerItem, 8192)]
    {
        let measured = run(&driver(), &big(), &Settings { grid, ..options(&[128]) }).unwrap();
        assert_eq!(measured.sweep.rows[0].grid_blocks, want, "{grid:?}");
        assert_eq!(measured.sweep.grid, grid);
        assert_eq!(measured.head.contains("Grid: "), grid != GridPolicy::OneWave, "{}", measured.head);
    }
}

#[test]
fn bad_input_no_device_and_an_unloadable_module_are_stops_with_their_exit_status() {
    let stop =
        |kernel: &Kernel, driver: &MockDriver, options: &Settings| run(driver, kernel, options).unwrap_err();
    let unchecked = Kernel::new(MODULE, "scale").items(10, "values").output::<f32>("out", 10);
    let no_check = stop(&mut { unchecked }, &driver(), &options(&[64]));
    assert_eq!(no_check.exit_status(), exit::USAGE);
    assert!(no_check.message().starts_with("the kernel has no check"), "{}", no_check.message());
    let misnamed = Kernel::new(MODULE, "scal").items(1, "values").output::<f32>("out", 1).check(reference());
    let missing = stop(&mut { misnamed }, &driver(), &options(&[64]));
    assert_eq!(
        (missing.exit_status(), missing.message()),
        (exit::USAGE, "the scale PTX has no kernel `scal`; its kernels: scale, scale_x2, scale_tiled")
    );
    let too_large = stop(&kernel(reference()), &driver(), &options(&[64, 2048]));
    assert_eq!(too_large.exit_status(), exit::USAGE);
    let twice = stop(&kernel(reference()), &driver(), &options(&[64, 64]));
    assert_eq!(twice.message(), "block size 64 is listed twice in --block-sizes");
    let shared = kernel(reference()).dynamic_shared_memory(|threads, _| threads * 64);
    assert!(stop(&mut { shared }, &driver(), &options(&[1024])).message().contains("dynamic shared memory"));
    let none = MockDriver { cuda_version: 13000, devices: Vec::new() };
    assert_eq!(stop(&kernel(reference()), &none, &options(&[64])).exit_status(), exit::NO_DEVICE);
    // A CUDA 11.7 driver cannot load PTX ISA 7.8.
    let old = MockDriver { cuda_version: 11070, ..driver() };
    let refused = stop(&kernel(reference()), &old, &options(&[64]));
    assert_eq!(refused.exit_status(), exit::NO_DEVICE);
    assert!(refused.message().contains("the scale module"), "{}", refused.message());
}

#[test]
fn run_and_print_prints_as_block_size_does() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_and_print(
        &driver(),
        &kernel(reference()),
        &options(&[64, 128]),
        &mut Console { out: &mut out, err: &mut err },
    );
    let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("GPU: Mock H200 (compute capability 9.0)\n"), "{out}");
    assert!(out.contains("\n thr/blk  warps"), "{out}");
    // A failure: the table, then the failed checks on standard error, exit 1.
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut wrong = driver();
    wrong.devices[0].wrong_kernel = Some(MODULE.kernel("scale"));
    let options = Settings { format: Some(Format::Json), ..options(&[64]) };
    let code =
        run_and_print(&wrong, &kernel(reference()), &options, &mut Console { out: &mut out, err: &mut err });
    assert_eq!(code, exit::FAILED);
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["failures"].as_array().unwrap().len(), 1);
    assert!(
        String::from_utf8(err).unwrap().starts_with("check failed: wrong output at 64 threads per block")
    );
    // A stop: one line, its status.
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let none = MockDriver { cuda_version: 13000, devices: Vec::new() };
    let code =
        run_and_print(&none, &kernel(reference()), &options, &mut Console { out: &mut out, err: &mut err });
    assert_eq!((code, out.is_empty()), (exit::NO_DEVICE, true));
    assert!(String::from_utf8(err).unwrap().starts_with("Error: "));
}

#[test]
fn a_fault_that_loses_the_context_in_a_process_of_its_own_keeps_the_rows_before_it() {
    let mut driver = driver();
    driver.devices[0].fault_at = Some((128, crate::measure::gpu::mock::MockFault { context_lost: true }));
    let measured = run(&driver, &kernel(reference()), &options(&[64, 128, 256, 512])).unwrap();
    let rows: Vec<(u32, bool)> =
        measured.sweep.rows.iter().map(|row| (row.threads_per_block, row.failed.is_some())).collect();
    assert_eq!(rows, [(64, false), (128, true)]);
    assert_eq!(
        failures(&measured),
        [
            "at 128 threads per block nothing was measured: the launch failed: launching 8 blocks of 128 threads: a timed \
             launch failed: an illegal memory \
             access was encountered (mock)",
            "2 configuration(s) after a launch fault that lost the GPU context were not measured (block-size and \
             sweep_and_print measure them in a fresh worker)"
        ]
    );
    assert_eq!(measured.exit_status(), exit::FAILED);
    assert!(
        measured.table(false).contains("128      4     0      16        64   100%"),
        "{}",
        measured.table(false)
    );
}

#[test]
fn a_fault_that_keeps_the_context_fails_its_row_only() {
    let mut driver = driver();
    driver.devices[0].fault_at = Some((128, crate::measure::gpu::mock::MockFault { context_lost: false }));
    let measured = run(&driver, &kernel(reference()), &options(&[64, 128, 256])).unwrap();
    let rows: Vec<(u32, bool)> =
        measured.sweep.rows.iter().map(|row| (row.threads_per_block, row.failed.is_some())).collect();
    assert_eq!(rows, [(64, false), (128, true), (256, false)]);
    let report = measured.table(false);
    assert!(report.contains(" failed "), "{report}");
    assert_eq!(measured.sweep.best().unwrap().threads_per_block, 64, "a failed row is never the best");
}

#[test]
fn a_journal_holds_each_configuration_and_a_resume_measures_only_the_others() {
    let path = std::env::temp_dir().join(format!("user-journal-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let settings = Settings { journal: Some(path.clone()), ..options(&[64, 128]) };
    run(&driver(), &kernel(reference()), &settings).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);

    let driver = driver();
    let resumed = Settings { resume: Some(path.clone()), ..options(&[64, 128, 256]) };
    let measured = run(&driver, &kernel(reference()), &resumed).unwrap();
    assert_eq!(measured.sweep.rows.len(), 3);
    assert!(measured.head.contains("Resume: 2 configuration(s) from "), "{}", measured.head);
    // Another key (a longer timing) measures everything again and says so.
    let other = Settings {
        resume: Some(path.clone()),
        timing: TimingSettings { runs: Some(4), ..options(&[64]).timing },
        ..options(&[64])
    };
    let measured = run(&driver, &kernel(reference()), &other).unwrap();
    assert!(measured.head.contains("2 were measured under another key"), "{}", measured.head);
    // Killed mid-write (kill -9): a last line cut off is dropped with one warning, and the whole
    // lines before it are resumed.
    let whole = std::fs::read_to_string(&path).unwrap();
    let first = whole.lines().next().unwrap().to_string() + "\n";
    std::fs::write(&path, first + &whole.lines().nth(1).unwrap()[..40]).unwrap();
    let measured = run(&driver, &kernel(reference()), &resumed).unwrap();
    assert!(measured.head.contains("Resume: 1 configuration(s) from "), "{}", measured.head);
    assert_eq!(measured.warnings.len(), 1, "{:?}", measured.warnings);
    assert!(measured.warnings[0].contains(": line 2 is cut off (a run ended mid-write): dropped; "));
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_restriction_leaves_configurations_out_of_the_sweep_and_none_kept_is_refused() {
    // items/thr 2 only at 128 threads and more: three configurations of four.
    let restricted = || {
        kernel(reference())
            .axis(Axis::entries("items/thr", [("1", "scale"), ("2", "scale_x2")]))
            .restrict(|threads, variant| variant.value("items/thr") != Some("2") || threads >= 128)
    };
    let measured = run(&driver(), &restricted(), &options(&[64, 128])).unwrap();
    let rows: Vec<(Option<&str>, u32)> =
        measured.sweep.rows.iter().map(|row| (row.axes.get("items/thr"), row.threads_per_block)).collect();
    assert_eq!(rows, [(Some("1"), 64), (Some("1"), 128), (Some("2"), 128)]);
    assert_eq!(restricted().configurations(&[BlockShape::linear(64), BlockShape::linear(128)]), 3);
    // A value whose every block size is left out is no part of the sweep at all.
    let measured = run(&driver(), &restricted(), &options(&[64])).unwrap();
    let rows: Vec<Option<&str>> = measured.sweep.rows.iter().map(|row| row.axes.get("items/thr")).collect();
    assert_eq!(rows, [Some("1")]);
    // Keeping nothing is bad input, before the device.
    let none = kernel(reference()).restrict(|_, _| false);
    let error = run(&driver(), &none, &options(&[64, 128])).unwrap_err();
    assert_eq!(error.exit_status(), crate::exit::USAGE);
    assert_eq!(error.to_string(), "the kernel's restriction keeps none of the 2 configurations asked for");
}

/// items/thr (an entry) x tile (a number: the shared memory) x grid (the policy): 2 x 3 x 2.
fn three_axes() -> Kernel {
    kernel(reference())
        .axis(crate::Axis::entries("items/thr", [("1", "scale"), ("2", "scale_x2")]))
        .axis(crate::Axis::powers_of_two("tile", 1, 4))
        .axis(crate::Axis::grid("grid policy", [GridPolicy::OneWave, GridPolicy::Waves(2)]))
        .dynamic_shared_memory(|threads, variant| threads * 16 * variant.integer("tile").unwrap() as u32)
}

#[test]
fn three_axes_run_their_cross_product_with_a_column_each_and_what_cannot_launch_is_pruned() {
    let swept = three_axes();
    assert_eq!(swept.variants().len(), 12);
    assert_eq!(swept.kernels().len(), 2, "each entry loaded once");
    let mut driver = driver();
    // One SM, so that one wave of 16-thread blocks (32, the block cap) is under the 63 blocks
    // that cover 1000 values, and two waves are not.
    driver.devices[0].limits.multiprocessors = 1;
    let measured = run(&driver, &swept, &options(&[16, 1024])).unwrap();
    assert_eq!(failures(&measured), Vec::<String>::new());
    let sweep = &measured.sweep;
    assert_eq!(sweep.axes, ["items/thr", "tile", "grid policy"]);
    assert_eq!(sweep.rows.len(), 24);
    // 1024 threads x 16 B x tile 4 = 64 KiB: above the 48 KiB a block gets; not launched.
    let pruned: Vec<String> =
        sweep.pruned_rows().map(|row| format!("{} {}", row.axes, row.threads_per_block)).collect();
    assert_eq!(
        pruned,
        [
            "items/thr 1, tile 4, grid policy one-wave 1024",
            "items/thr 1, tile 4, grid policy waves:2 1024",
            "items/thr 2, tile 4, grid policy one-wave 1024",
            "items/thr 2, tile 4, grid policy waves:2 1024"
        ]
    );
    let grids: Vec<(String, u32)> = sweep
        .rows
        .iter()
        .filter(|row| row.threads_per_block == 16 && row.axes.get("tile") == Some("1"))
        .map(|row| (row.axes.get("grid policy").unwrap().to_string(), row.grid_blocks))
        .collect();
    assert_eq!(
        grids,
        [("one-wave".into(), 32), ("waves:2".into(), 63), ("one-wave".into(), 32), ("waves:2".into(), 63)]
    );
    let report = measured.table(false);
    let table: Vec<&str> = report.lines().skip_while(|line| !line.contains("thr/blk")).collect();
    assert!(table[0].starts_with("  items/thr   tile   grid policy  thr/blk"), "{report}");
    assert!(table[1].starts_with("          1      1      one-wave       16"), "{report}");
    assert!(report.contains("Not launched, 4 configuration(s) the device cannot launch (docs/search.md): \
        1024 threads, items/thr 1, tile 4, grid policy one-wave; 1024 threads, items/thr 1, tile 4, grid policy waves:2; "), "{report}");
    assert!(
        report
            .contains("65536 B of dynamic shared memory, above the 49152 B a block gets without opting in."),
        "{report}"
    );
    assert!(report.contains("agrees with the driver's blk/SM at 20 of 20 block sizes"), "{report}");
    let csv = measured.export(Format::Csv).unwrap();
    assert!(csv.starts_with("items/thr,tile,grid policy,threads_per_block,"), "{csv}");
    assert!(csv.lines().nth(12).unwrap().starts_with("1,4,waves:2,1024,"), "{csv}");
    assert!(
        csv.lines().nth(12).unwrap().ends_with(
            ",\"65536 B of dynamic shared memory, above the 49152 B a block gets without opting in\""
        ),
        "{csv}"
    );
    let markdown = measured.export(Format::Markdown).unwrap();
    assert!(markdown.contains("| items/thr | tile | grid policy | thr/blk |"), "{markdown}");
    let json: serde_json::Value = serde_json::from_str(&measured.export(Format::Json).unwrap()).unwrap();
    assert_eq!(json["axes"], serde_json::json!(["items/thr", "tile", "grid policy"]));
    assert_eq!(
        json["rows"][2]["axes"],
        serde_json::json!({"items/thr": "1", "tile": "1", "grid policy": "waves:2"})
    );
    assert!(json["rows"][9]["pruned"].as_str().unwrap().starts_with("65536 B of dynamic shared memory"));
    let svg = measured.plot().unwrap();
    assert!(
        svg.contains("threads per block:items/thr,tile,grid policy"),
        "the plot's x axis names every axis"
    );
    // A restriction on two axes at once.
    let restricted = kernel(reference())
        .axis(crate::Axis::entries("items/thr", [("1", "scale"), ("2", "scale_x2")]))
        .axis(crate::Axis::integers("tile", [1, 8]))
        .restrict(|_, variant| variant.value("items/thr") == Some("2") || variant.integer("tile") == Some(1));
    assert_eq!(restricted.configurations(&[BlockShape::linear(16), BlockShape::linear(1024)]), 6);
    let measured = run(&driver, &restricted, &options(&[16, 1024])).unwrap();
    assert_eq!(measured.sweep.rows.len(), 6);
}

#[test]
fn an_integer_axis_is_passed_as_an_argument_and_one_too_large_is_said() {
    let tiled = |values: Vec<u64>| {
        kernel_at("scale_tiled", reference())
            .axis(crate::Axis::integers("tile", values))
            .args(|_| vec![Arg::Buffer("x"), Arg::Usize(N), Arg::Buffer("out"), Arg::Axis("tile")])
    };
    let driver = driver();
    let kernel = tiled(vec![4, 8]);
    let measured = run(&driver, &kernel, &options(&[64])).unwrap();
    assert_eq!(failures(&measured), Vec::<String>::new());
    assert_eq!(measured.sweep.rows.len(), 2);
    // 2^32 fits no u32: the launch says so, and nothing is measured.
    let kernel = tiled(vec![1 << 32]);
    let error = run(&driver, &kernel, &options(&[64])).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the axis `tile` is 4294967296 here, which does not fit in a u32 argument"),
        "{error}"
    );
}

#[test]
fn axes_that_cannot_be_swept_are_refused_before_the_device() {
    for (kernel, why) in [
        (kernel(reference()).axis(crate::Axis::integers("tile", [])), "the axis `tile` has no values"),
        (
            kernel(reference())
                .axis(crate::Axis::integers("tile", [1]))
                .axis(crate::Axis::integers("tile", [2])),
            "two axes are named `tile`",
        ),
    ] {
        let kernel = kernel;
        let error = run(&driver(), &kernel, &options(&[64])).unwrap_err();
        assert_eq!((error.exit_status(), error.to_string()), (crate::exit::USAGE, why.to_string()));
    }
    // Every configuration beyond the shared memory a block gets: nothing to launch, exit 2.
    let too_much = kernel(reference()).dynamic_shared_memory(|_, _| 64 * 1024);
    let error = run(&driver(), &too_much, &options(&[64, 128])).unwrap_err();
    assert_eq!(error.exit_status(), crate::exit::USAGE);
    assert!(error.to_string().contains("65536 B of dynamic shared memory per block"), "{error}");
}

#[test]
fn shards_merged_are_the_unsplit_sweep_row_for_row_and_check_for_check() {
    use crate::results::schema::SweepRecord;
    // Three axes and a pruned configuration: 24 configurations dealt into 5 shards of 4 or 5.
    let swept = three_axes();
    let mut driver = driver();
    driver.devices[0].limits.multiprocessors = 1;
    // A wrong value in every launch of one entry, so that the checks travel too.
    driver.devices[0].wrong_kernel = Some(MODULE.kernel("scale_x2"));
    let whole = run(&driver, &swept, &options(&[16, 1024])).unwrap();
    let provenance = whole.provenance.clone();
    let json = |record: &SweepRecord| serde_json::to_string_pretty(record).unwrap();
    let mut files = Vec::new();
    for index in (1..=5).rev() {
        let shard = crate::model::shard::Shard::new(index, 5).unwrap();
        let part = run(&driver, &swept, &Settings { shard: Some(shard), ..options(&[16, 1024]) }).unwrap();
        assert_eq!(part.sweep.rows.len(), shard.share(24));
        assert_eq!(part.sweep.search, Search::Exhaustive);
        files.push((format!("part-{index}.json"), SweepRecord::of(&part.sweep, provenance.clone())));
    }
    let merged = crate::results::merge::merge(files.clone()).unwrap();
    assert_eq!(merged.len(), 1);
    let mut unsplit = SweepRecord::of(&whole.sweep, provenance.clone());
    let mut record = SweepRecord::of(&merged[0].sweep, provenance.clone());
    assert_eq!(record.rows.len(), 24);
    // The failures are listed shard by shard; the same set.
    let sorted = |record: &mut SweepRecord| record.failures.sort();
    sorted(&mut unsplit);
    sorted(&mut record);
    // Only a measurement has a wall time: the merge of the shards' files measured nothing.
    assert!(unsplit.wall_time.is_some() && record.wall_time.is_none());
    unsplit.wall_time = None;
    assert!(!unsplit.failures.is_empty());
    assert_eq!(json(&record), json(&unsplit));
    // A shard missing, or given twice, is refused in one line.
    let missing = files[1..].to_vec();
    assert_eq!(
        crate::results::merge::merge(missing).unwrap_err(),
        "shard 5/5 of Mock H200 (9.0) is missing: merge needs every shard of the sweep"
    );
    let mut twice = files.clone();
    twice.push(("again.json".into(), files[0].1.clone()));
    assert_eq!(
        crate::results::merge::merge(twice).unwrap_err(),
        "part-5.json and again.json both hold shard 5/5 of Mock H200 (9.0)"
    );
    // Another kernel's file, or other axes, is not of the sweep.
    let mut other = files.clone();
    other[2].1.ptx_sha256 = "0".repeat(64);
    assert!(
        crate::results::merge::merge(other)
            .unwrap_err()
            .starts_with("part-5.json and part-3.json are of different PTX")
    );
    let mut other = files;
    other[1].1.axes.pop();
    assert!(
        crate::results::merge::merge(other)
            .unwrap_err()
            .starts_with("part-5.json and part-4.json are of different axes")
    );
}

#[test]
fn split_across_the_gpus_of_one_model_is_the_sweep_on_one() {
    let mut driver = driver();
    driver.devices.push(driver.devices[0].clone());
    driver.devices.push(driver.devices[0].clone());
    let swept = kernel(reference()).axis(Axis::entries("items/thr", [("1", "scale"), ("2", "scale_x2")]));
    let folder = std::env::temp_dir().join(format!("block-size-split-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let (one, split) = (folder.join("one.csv"), folder.join("split.csv"));
    let sizes = [32, 64, 128];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let on_one = Settings { exports: vec![(crate::Format::Csv, one.clone())], ..options(&sizes) };
    let code = run_and_print(&driver, &swept, &on_one, &mut Console { out: &mut out, err: &mut err });
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let on_all = Settings {
        device: DeviceChoice::All,
        split: true,
        exports: vec![(crate::Format::Csv, split.clone())],
        ..options(&sizes)
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_and_print(&driver, &swept, &on_all, &mut Console { out: &mut out, err: &mut err });
    let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "Split: the sweep's 6 configurations across 3 GPUs of Mock H200 (9.0), a shard each, merged"
        ),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&split).unwrap(), std::fs::read_to_string(&one).unwrap());
    // GPUs of two models are refused before any is measured.
    driver.devices[2].limits.name = "Mock L40S".into();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(run_and_print(&driver, &swept, &on_all, &mut Console { out: &mut out, err: &mut err }), 2);
    assert!(String::from_utf8(err).unwrap().starts_with(
        "Error: --split needs GPUs of one model: GPU 0 is Mock H200 (9.0), GPU 2 is Mock L40S (9.0)"
    ));
    std::fs::remove_dir_all(folder).unwrap();
}

#[test]
fn block_sizes_the_ptx_forbids_are_pruned_with_the_directive_named() {
    for (entry, launched, directive) in [
        ("scale_exactly_128", vec![128], "the PTX's `.reqntid 128` requires exactly 128 threads per block"),
        (
            "scale_at_most_256",
            vec![16, 32, 64, 96, 100, 128, 160, 192, 256],
            "above the PTX's `.maxntid 256` (256 threads)",
        ),
    ] {
        let mut driver = driver();
        driver.devices[0].emulate(BOUNDED.kernel(entry), emulate);
        let bounded = kernel_at_of(BOUNDED, entry, reference());
        let measured =
            run(&driver, &bounded, &options(&crate::model::occupancy::DEFAULT_BLOCK_SIZES)).unwrap();
        let sweep = &measured.sweep;
        assert_eq!(sweep.rows.len(), crate::model::occupancy::DEFAULT_BLOCK_SIZES.len());
        let measured_sizes: Vec<u32> =
            sweep.rows.iter().filter(|row| row.pruned.is_none()).map(|row| row.threads_per_block).collect();
        assert_eq!(measured_sizes, launched, "{entry}");
        for row in sweep.pruned_rows() {
            assert!(row.pruned.as_deref().unwrap().contains(directive), "{entry}: {:?}", row.pruned);
        }
        // A pruned configuration is no failed check: the only one is the emulation's odd block.
        let odd = format!("wrong output at {ODD_BLOCK} threads per block");
        assert!(failures(&measured).iter().all(|failure| failure.starts_with(&odd)), "{entry}");
    }
}

#[test]
fn a_sweep_whose_every_block_size_the_ptx_forbids_is_refused() {
    let mut driver = driver();
    driver.devices[0].emulate(BOUNDED.kernel("scale_exactly_128"), emulate);
    let bounded = kernel_at_of(BOUNDED, "scale_exactly_128", reference());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code =
        run_and_print(&driver, &bounded, &options(&[64, 256]), &mut Console { out: &mut out, err: &mut err });
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "Error: nothing to launch: the device cannot launch any configuration of this sweep; 64 threads: \
         the PTX's `.reqntid 128` requires exactly 128 threads per block\n"
    );
    // The head was printed while the sweep ran; no table, no summary.
    assert!(!String::from_utf8(out).unwrap().contains("thr/blk"));
}

/// `--counters` through `sweep_and_print`, with `format` where given: (status, stdout, stderr).
fn with_counters(driver: &MockDriver, format: Option<Format>) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let settings = Settings { counters: true, format, ..options(&[16, 64, 128]) };
    let code =
        run_and_print(driver, &kernel(reference()), &settings, &mut Console { out: &mut out, err: &mut err });
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn counters_add_their_columns_and_say_what_bound_the_best_row_and_the_others() {
    let mut driver = driver();
    // 128 threads fastest, 16 slowest: the mock's counters put 128 at 90 percent of the copy.
    driver.devices[0].milliseconds = vec![(16, 2.0), (64, 1.5), (128, 1.0)];
    let (code, out, err) = with_counters(&driver, None);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let heading = out.lines().find(|line| line.trim_start().starts_with("thr/blk")).unwrap();
    for column in [
        "DRAM GB/s",
        "%copy",
        "occ achv",
        "warp eff",
        "branch",
        "L2 hit",
        "bank cfl",
        "bar stall",
        "mem stall",
    ] {
        assert!(heading.contains(column), "{heading}");
    }
    let row =
        |threads: &str| out.lines().find(|line| line.split_whitespace().next() == Some(threads)).unwrap();
    // DRAM at 90 percent of the 4000 GB/s copy; 16 threads a warp is half its lanes.
    assert!(row("128").contains(" 3600    90% "), "{}", row("128"));
    assert!(row("16").contains("  50% "), "{}", row("16"));
    assert!(out.contains("Counters: the mock's scripted counters, read on a replay of each configuration from flushed caches after its timed samples; the device-to-device copy reached 4000 GB/s in this run.\n"), "{out}");
    assert!(
        out.contains("Bound: the best row, 128 threads per block, by DRAM bandwidth, at 90% of the copy.\n"),
        "{out}"
    );
    // Each row short of 95 percent of the best: what its counters read lower than the best row's.
    assert!(out.contains("  16 threads per block (0.50 of the best): idle lanes or divergence, warp execution efficiency 50% against the best row's 100%.\n"), "{out}");
    assert!(out.contains("  64 threads per block (0.67 of the best): occupancy, 20% achieved of 100% theoretical, bound by warps and blocks per SM, against the best row's 90%.\n"), "{out}");
    assert!(!out.contains("  128 threads per block"), "the best row is not said again: {out}");
}

#[test]
fn counters_go_into_every_export_and_read_back() {
    let mut driver = driver();
    driver.devices[0].milliseconds = vec![(16, 2.0), (64, 1.5), (128, 1.0)];
    let (code, json, _) = with_counters(&driver, Some(Format::Json));
    assert_eq!(code, 0);
    let record = crate::results::schema::SweepRecord::parse(&json).unwrap();
    let run = record.counters.as_ref().unwrap();
    // The copy's milliseconds are an f32 sample, so its rate is 4000 GB/s to about 1e-8.
    let near = |value: f64, expected: f64| (value / expected - 1.0).abs() < 1e-6;
    assert!(near(run.copy_bytes_per_second.unwrap(), 4.0e12), "{run:?}");
    assert_eq!(run.profiler.as_deref(), Some("the mock's scripted counters"));
    let counters = record.rows.iter().find(|row| row.threads_per_block == 128).unwrap().counters.unwrap();
    assert_eq!(counters.dram_bytes_per_second, Some(3.6e12));
    assert!(
        record
            .summary
            .as_ref()
            .unwrap()
            .iter()
            .any(|line| line.starts_with("Bound: the best row, 128 threads"))
    );
    let (_, csv, _) = with_counters(&driver, Some(Format::Csv));
    let mut lines = csv.lines();
    let heading: Vec<&str> = lines.next().unwrap().split(',').collect();
    let dram = heading.iter().position(|name| *name == "dram_bytes_per_second").expect("a DRAM column");
    let percent = heading.iter().position(|name| *name == "percent_of_copy").expect("a percentage column");
    let at_128: Vec<&str> = lines.find(|line| line.starts_with("128,")).unwrap().split(',').collect();
    assert_eq!(at_128[dram], "3600000000000");
    assert!(near(at_128[percent].parse().unwrap(), 90.0), "{at_128:?}");
    let (_, markdown, _) = with_counters(&driver, Some(Format::Markdown));
    assert!(markdown.contains("| DRAM GB/s | %copy |"), "{markdown}");
    assert!(
        markdown.contains("\n- 16 threads per block (0.50 of the best): idle lanes or divergence"),
        "{markdown}"
    );
    let (_, t4, _) = with_counters(&driver, Some(Format::T4));
    let t4: serde_json::Value = serde_json::from_str(&t4).unwrap();
    let measurements = t4["results"][2]["measurements"].as_array().unwrap();
    let named = |name: &str| measurements.iter().find(|measurement| measurement["name"] == name).cloned();
    assert_eq!(named("time").unwrap()["unit"], "ms", "{measurements:?}");
    assert_eq!(named("dram_bytes_per_second").unwrap()["value"], 3.6e12, "{measurements:?}");
    assert_eq!(named("achieved_occupancy_percent").unwrap()["unit"], "%", "{measurements:?}");
    let (_, html, _) = with_counters(&driver, Some(Format::Html));
    assert!(
        html.contains("<th class=\"counter\">DRAM GB/s</th>")
            && html.contains("<td class=\"counter\">90%</td>")
    );
    // The counters' chart: its section, each series in its legend, the copy in its caption.
    let chart = &html[html.find("<section id=\"counters\">").expect("a counters section")..];
    let chart = &chart[..chart.find("</section>").unwrap()];
    for label in [
        "DRAM, % of the copy",
        "achieved occupancy, %",
        "theoretical occupancy, %",
        "warp execution efficiency, %",
        "L2 hit rate, %",
        "hardware counters (the copy at 4000 GB/s)",
        "fastest: 128",
    ] {
        assert!(chart.contains(label), "missing {label:?}: {chart}");
    }
    let (_, html, _) = with_counters(&no_counters_driver(), Some(Format::Html));
    assert!(!html.contains("<section id=\"counters\">"), "no row read, no chart");
}

/// A driver whose profiler is missing: `--counters` reads none.
fn no_counters_driver() -> MockDriver {
    let mut driver = driver();
    driver.devices[0].counters.unavailable =
        Some("Nsight Compute's ncu is neither on PATH nor at /usr/local/cuda/bin/ncu".into());
    driver
}

#[test]
fn no_profiler_is_one_warning_and_n_a_never_a_failed_sweep() {
    let (code, out, err) = with_counters(&no_counters_driver(), None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "Warning: no hardware counters (Nsight Compute's ncu is neither on PATH nor at /usr/local/cuda/bin/ncu): their columns say n/a\n"
    );
    let row = out.lines().find(|line| line.split_whitespace().next() == Some("128")).unwrap();
    assert_eq!(row.matches("n/a").count(), 9, "{row}");
    assert!(out.contains("Counters: none read (Nsight Compute's ncu is neither on PATH"), "{out}");
    assert!(!out.contains("Bound:"), "{out}");
}

#[test]
fn counters_need_sweep_and_print_and_a_replay_launches_each_configuration_once_unchecked() {
    let settings = Settings { counters: true, ..options(&[64]) };
    let error = run(&driver(), &kernel(reference()), &settings).unwrap_err();
    assert_eq!(error.exit_status(), exit::USAGE);
    assert!(error.to_string().contains("--counters needs sweep_and_print()"), "{error}");
    // The replay's round: one launch a configuration, nothing checked, nothing timed again.
    let mut gpu = driver().devices[0].clone();
    let kernel = kernel(reference());
    let mut run = fixture::uploaded(&mut gpu, &kernel, &[32]);
    let plan = sweep::Plan {
        blocks: [32, 64, 2048, 256].map(BlockShape::linear).to_vec(),
        timing: Timing::launch(0, 1),
        grid: GridPolicy::OneWave,
        corrupt: Some(0),
        round: sweep::Round::Replay,
        shard: None,
        bounds: None,
        rungs_budget: Default::default(),
    };
    gpu.launches.clear();
    let swept =
        strategy::measure(&mut run, &mut gpu, &plan, Search::Exhaustive, None, &mut Vec::new()).unwrap();
    assert_eq!(gpu.launches.iter().map(|launch| launch.1).collect::<Vec<_>>(), [32, 64, 256]);
    assert!(swept.failures.is_empty(), "a replay checks nothing: {:?}", swept.failures);
}
