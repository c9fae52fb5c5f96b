//! The printed report, end to end through the mock backend: header, table, summary and
//! stderr verdict, pinned by snapshots; and the table's layout against block_size.cu's.

use crate::commands::{compare, tail, variants};
use crate::kernel::workload::{KernelSpec, Params, grayscale, histogram};
use crate::measure::backend::{Device as _, Timing};
use crate::measure::mock::MockGpu;
use crate::measure::ptx::KernelRef;
use crate::measure::timing::{NoiseStop, TimingMode};
use crate::measure::workload::Workload;
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::results::table;
use crate::search::sweep;
use std::time::Duration;

const TIMING: Timing = Timing::fixed(TimingMode::Batch, 3, 10);

/// `variants` times launches as it times its copy ceiling: each between its own events.
const VARIANTS_TIMING: Timing = Timing::launch(3, 10);

/// Times shaped like a memory-bound kernel: slow at the smallest blocks and at 100
/// threads, flat elsewhere.
fn scripted_gpu() -> MockGpu {
    let mut gpu = MockGpu::h200_like();
    let times =
        [0.155, 0.080, 0.041, 0.0405, 0.046, 0.0402, 0.0407, 0.0404, 0.0401, 0.0409, 0.0403, 0.0431, 0.0412];
    gpu.milliseconds = DEFAULT_BLOCK_SIZES.into_iter().zip(times).collect();
    gpu
}

/// `spec`'s workload of `params` on `gpu`, with `kernels` loaded (the first active).
fn uploaded(
    gpu: &mut MockGpu,
    kernels: &[KernelRef],
    spec: &KernelSpec,
    params: &Params,
) -> Box<dyn Workload> {
    for kernel in kernels {
        gpu.load(kernel).unwrap();
    }
    let mut workload = (spec.create)(params).unwrap();
    workload.upload(gpu).unwrap();
    workload
}

fn grayscale(gpu: &mut MockGpu, width: u32, height: u32) -> Box<dyn Workload> {
    let spec = &grayscale::KERNEL;
    uploaded(gpu, &[spec.rust_kernel()], spec, &Params::frame(width, height))
}

fn printed(gpu: &mut MockGpu, width: u32, height: u32, corrupt_pixel: Option<usize>) -> (String, String) {
    let mut workload = grayscale(gpu, width, height);
    let result = sweep::run(gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, TIMING, corrupt_pixel).unwrap();
    let stdout = table::header(&result.limits, workload.pass(), TIMING) + &table::body(&result, false);
    (stdout, table::stderr(&result))
}

#[test]
fn clean_run_prints_header_table_and_summary() {
    let (stdout, stderr) = printed(&mut scripted_gpu(), 640, 480, None);
    insta::assert_snapshot!("clean_run_stdout", stdout);
    assert_eq!(stderr, "", "a clean run prints nothing on stderr");
}

#[test]
fn stats_columns_and_noise_marks() {
    let mut gpu = scripted_gpu();
    gpu.run_spread = 0.02;
    let mut workload = grayscale(&mut gpu, 640, 480);
    let timing = Timing { flush_l2: true, ..TIMING };
    let result = sweep::run(&mut gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, timing, None).unwrap();
    let stdout = table::header(&result.limits, workload.pass(), timing) + &table::body(&result, true);
    insta::assert_snapshot!("stats_and_flush_stdout", stdout);
}

#[test]
fn the_noise_driven_stop_adds_a_runs_column_and_says_how_rows_ended() {
    let mut gpu = scripted_gpu();
    // Steady samples for the first rows, then samples 3 percent apart for ever: the rows
    // from there on run to their budget, on the mock's clock (each sample's scripted time).
    gpu.sample_script = [&[1.0; 60][..], &[0.97, 1.0, 1.03].repeat(10_000)].concat();
    let mut workload = grayscale(&mut gpu, 640, 480);
    let stop = NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_millis(20), max_runs: 10_000 };
    let timing = Timing::fixed(TimingMode::Batch, 3, 10).until(stop);
    let result = sweep::run(&mut gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, timing, None).unwrap();
    assert!(result.samples_vary());
    let stdout = table::header(&result.limits, workload.pass(), timing) + &table::body(&result, false);
    insta::assert_snapshot!("noise_driven_stop_stdout", stdout);
}

#[test]
fn cold_timing_says_so_in_its_header() {
    let mut gpu = scripted_gpu();
    let mut workload = grayscale(&mut gpu, 64, 64);
    let timing = Timing::fixed(TimingMode::Cold, 3, 10);
    let result = sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, None).unwrap();
    assert_eq!(gpu.l2_flushes, 20, "cold flushes before every run");
    let header = table::header(&result.limits, workload.pass(), timing);
    assert!(
        header.ends_with(
            "Timing: cold mode, median of 10 runs after 3 warm-ups, each run one launch between its own CUDA events \
             after an L2 flush, every run queued behind a blocking kernel until all are enqueued\n"
        ),
        "{header}"
    );
}

#[test]
fn corrupted_run_names_every_failed_row_and_disowns_the_table() {
    let (_, stderr) = printed(&mut scripted_gpu(), 640, 480, Some(307_199));
    insta::assert_snapshot!("corrupted_run_stderr", stderr);
}

/// block_size.cu prints its table with printf("%8s %6s %5s %7s %9s %6s %7s %9s %8s %8s")
/// and "%8d %6d %5d %7d %9d %5.0f%% %7d %9.3f %8.1f %8.2f"; the same widths here mean the
/// two programs' tables can be diffed column for column. The limiter column follows them,
/// 14 wide.
#[test]
fn table_layout_matches_block_size_cu() {
    let mut gpu = scripted_gpu();
    let mut workload = grayscale(&mut gpu, 64, 64);
    let result = sweep::run(&mut gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, TIMING, None).unwrap();
    let table = table::table(&result, false);
    let mut lines = table.lines();
    let heading = format!(
        "{:>8} {:>6} {:>5} {:>7} {:>9} {:>6} {:>7} {:>9} {:>8} {:>8} {:>14}",
        "thr/blk", "warps", "idle", "blk/SM", "warps/SM", "occ", "grid", "ms", "GB/s", "of best", "limiter"
    );
    assert_eq!(lines.next(), Some(heading.as_str()));
    for row in &result.rows {
        let expected = format!(
            "{:>8} {:>6} {:>5} {:>7} {:>9} {:>5.0}% {:>7} {:>9.3} {:>8.1} {:>8} {:>14}",
            row.threads_per_block,
            row.warps_per_block,
            row.idle_lanes,
            row.blocks_per_sm,
            row.resident_warps,
            result.occupancy_percent(row),
            row.grid_blocks,
            row.stats.median,
            result.gigabytes_per_second(row),
            format!(
                "{:.2}{}",
                result.fraction_of_best(row),
                if result.within_noise_of_best(row) { "*" } else { "" }
            ),
            crate::model::sm::limiter_names(&row.limiters),
        );
        assert_eq!(lines.next(), Some(expected.as_str()));
    }
    assert_eq!(lines.next(), None);
}

#[test]
fn comparison_prints_each_kernel_and_its_ratio_to_the_baseline() {
    let mut gpu = scripted_gpu();
    let spec = &grayscale::KERNEL;
    let kernels: Vec<KernelRef> = spec.modules[..3].iter().map(|&module| spec.kernel_in(module)).collect();
    gpu.kernel_time_factors = kernels.iter().copied().zip([1.0, 1.0, 1.05]).collect();
    let mut workload = uploaded(&mut gpu, &kernels, spec, &Params::frame(640, 480));
    let result = crate::commands::compare::engine::run(
        &mut gpu,
        workload.as_mut(),
        &kernels,
        kernels[1],
        &[64, 128, 256, 1024],
        3,
        5,
    )
    .unwrap();
    insta::assert_snapshot!("comparison_stdout", compare::render(&result));
    assert_eq!(compare::render_stderr(&result), "");
}

#[test]
fn tail_table_compares_every_grid_with_one_wave() {
    // Modelled times: a partial last wave costs what the model says, so the table moves with
    // the grids the code chooses.
    let mut gpu = scripted_gpu();
    gpu.modelled_times = true;
    let mut workload = grayscale(&mut gpu, 640, 480);
    let result = crate::commands::tail::engine::run(
        &mut gpu,
        workload.as_mut(),
        256,
        &crate::commands::tail::engine::DEFAULT_WAVES,
        Timing::fixed(TimingMode::Batch, 1, 3),
    )
    .unwrap();
    insta::assert_snapshot!("tail_stdout", tail::render(&result));
}

#[test]
fn device_summary_names_the_gpu_its_fastest_row_and_its_verdict() {
    let mut gpu = scripted_gpu();
    let mut workload = grayscale(&mut gpu, 64, 64);
    let clean = sweep::run(&mut gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, TIMING, None).unwrap();
    assert_eq!(
        table::device_summary(&clean),
        "GPU 0 (Mock H200): fastest 256 threads per block at 0.040 ms (1.6 GB/s); 9 of 13 rows within 95 percent; every check held.\n"
    );
    let broken = sweep::run(&mut gpu, workload.as_mut(), &[64, 128], TIMING, Some(5)).unwrap();
    assert!(table::device_summary(&broken).ends_with("; 2 check(s) failed.\n"));
}

#[test]
fn variants_table_reports_each_row_against_the_copy_and_the_peak() {
    use crate::kernel::workload::grayscale::GrayscaleWorkload;
    // Modelled times: each variant's grid and bytes decide its row, as on a GPU.
    let mut gpu = scripted_gpu();
    gpu.modelled_times = true;
    gpu.limits.name = "Mock NVIDIA H200".into();
    gpu.copy_gb_per_s = 3300.0;
    let candidates =
        crate::commands::variants::engine::candidates(crate::commands::variants::engine::Family::Grayscale);
    let factors = [1.0, 0.97, 0.99, 0.98, 0.985, 1.0, 0.97, 0.99, 0.98, 0.985];
    gpu.kernel_time_factors = candidates.iter().map(|candidate| candidate.kernel).zip(factors).collect();
    for candidate in &candidates {
        gpu.load(&candidate.kernel).unwrap();
    }
    let mut workload = GrayscaleWorkload::new(&Params { offset: 2, ..Params::frame(640, 480) }).unwrap();
    workload.upload(&mut gpu).unwrap();
    let family = crate::commands::variants::engine::Family::Grayscale;
    let result = crate::commands::variants::engine::run(
        &mut gpu,
        family,
        &mut workload,
        &candidates,
        &[128, 256],
        VARIANTS_TIMING,
        2,
        |_, _| Ok(()),
    )
    .unwrap();
    insta::assert_snapshot!("variants_stdout", variants::render(&result));
}

#[test]
fn histogram_variants_table_counts_the_luma_read_against_the_copy() {
    use crate::kernel::workload::histogram::{HistogramWorkload, SHAPES, shape_of_entry};
    let mut gpu = scripted_gpu();
    gpu.limits.name = "Mock NVIDIA H200".into();
    gpu.copy_gb_per_s = 4000.0;
    let family = crate::commands::variants::engine::Family::Histogram;
    let candidates = crate::commands::variants::engine::candidates(family);
    let factors = [1.0, 0.6, 0.5, 0.4, 0.42, 0.38, 0.41];
    gpu.kernel_time_factors = candidates
        .iter()
        .map(|candidate| candidate.kernel)
        .zip(factors.iter().chain(&factors).copied())
        .collect();
    for candidate in &candidates {
        gpu.load(&candidate.kernel).unwrap();
    }
    let params = Params { bins: 256, offset: 3, ..Params::frame(640, 480) };
    let mut workload = HistogramWorkload::new(&params, &SHAPES[0]).unwrap();
    workload.upload(&mut gpu).unwrap();
    let mut result = crate::commands::variants::engine::run(
        &mut gpu,
        family,
        &mut workload,
        &candidates,
        &[256, 1024],
        VARIANTS_TIMING,
        3,
        |workload, candidate| {
            workload.set_shape(shape_of_entry(candidate.kernel.entry).unwrap());
            Ok(())
        },
    )
    .unwrap();
    assert!(result.failures.is_empty(), "{:?}", result.failures);
    result.pass.detail = Some(crate::kernel::workload::histogram::variants_detail(256));
    insta::assert_snapshot!("histogram_variants_stdout", variants::render(&result));
}

/// The scripted H200; at 4096 bins its driver answers as the H200's does for 16 KiB a block
/// (`MockGpu::answer_16_kib_as_the_h200`), at fewer (1 KiB and less a block) the grayscale
/// column, which shared memory does not bind.
fn histogram_gpu(bins: u32) -> MockGpu {
    let mut gpu = scripted_gpu();
    if bins == 4096 {
        gpu.answer_16_kib_as_the_h200();
    }
    gpu
}

#[test]
fn histogram_table_names_shared_memory_where_it_binds() {
    let mut gpu = histogram_gpu(4096);
    let spec = &histogram::KERNEL;
    let mut workload =
        uploaded(&mut gpu, &[spec.rust_kernel()], spec, &Params { bins: 4096, ..Params::frame(640, 480) });
    let result = sweep::run(&mut gpu, workload.as_mut(), &DEFAULT_BLOCK_SIZES, TIMING, None).unwrap();
    let stdout = table::header(&result.limits, workload.pass(), TIMING) + &table::body(&result, false);
    insta::assert_snapshot!("histogram_stdout", stdout);
    assert_eq!(table::stderr(&result), "");
}

#[test]
fn histogram_comparison_prints_rust_against_cpp() {
    let mut gpu = histogram_gpu(4096);
    let spec = &histogram::KERNEL;
    let kernels: Vec<KernelRef> = spec.modules.iter().map(|&module| spec.kernel_in(module)).collect();
    gpu.kernel_time_factors = kernels.iter().copied().zip([1.02, 1.0]).collect();
    let mut workload = uploaded(&mut gpu, &kernels, spec, &Params { bins: 4096, ..Params::frame(640, 480) });
    let baseline = spec.kernel_in(spec.baseline);
    let result = crate::commands::compare::engine::run(
        &mut gpu,
        workload.as_mut(),
        &kernels,
        baseline,
        &[64, 256, 1024],
        3,
        5,
    )
    .unwrap();
    insta::assert_snapshot!("histogram_comparison_stdout", compare::render(&result));
    assert_eq!(compare::render_stderr(&result), "");
}

#[test]
fn a_corrupted_histogram_names_the_bin_in_every_row() {
    let mut gpu = histogram_gpu(256);
    let spec = &histogram::KERNEL;
    let mut workload = uploaded(&mut gpu, &[spec.rust_kernel()], spec, &Params::frame(640, 480));
    let result = sweep::run(&mut gpu, workload.as_mut(), &[64, 1024], TIMING, Some(255)).unwrap();
    insta::assert_snapshot!("histogram_corrupted_stderr", table::stderr(&result));
}
