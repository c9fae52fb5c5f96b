/*!
`compare`: a kernel's Rust PTX against other builds of the same entry point with the same
parameters (its CUDA C++ twin built by nvcc, rustc's NVPTX build, another variant), on the same
device buffers, timed side by side in interleaved rounds ([`crate::search::interleaved`]), every row checked, each
against the baseline (the first of them).
*/

mod record;

use crate::commands::counters;
use crate::commands::options::CompareArgs;
use crate::commands::session;
use crate::commands::settings::{DeviceChoice, Settings};
use crate::commands::sweep::prepare::{check_kernel, entry_in};
use crate::error::{Console, Error, exit, failed};
use crate::files;
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Driver, Gpu as _};
use crate::measure::gpu::device::{self, command_line};
use crate::measure::gpu::ptx::{KernelRef, entry_params};
use crate::measure::profiler::Launched;
use crate::measure::supervision::supervise::Supervision;
use crate::model::block_shape::BlockShape;
use crate::model::counters::{Bound, CountersRun, Reading};
use crate::model::ptx_facts::{BuildFacts, PtxFacts, likeliest_cause};
use crate::model::stats::{median, quantile};
use crate::results::export::Format;
use crate::results::table;
use crate::search::interleaved::{self as engine, Cell, CompareRow, Compared, Comparison, round_ratios};

/// The most rounds `compare` times (`--rounds`), as many as `--runs` may ask of a sweep.
const MAX_ROUNDS: u32 = 1_000_000;

/// The device `settings` name for a command that measures one: `Err` (exit 2) for every
/// device, which only the sweep runs on.
pub(crate) fn one_device(settings: &Settings, command: &str) -> Result<u32, Error> {
    match settings.device {
        DeviceChoice::One(ordinal) => Ok(ordinal),
        DeviceChoice::All => Err(Error::new(
            exit::USAGE,
            format!(
                "{command} measures one device: give --device N, not all (the sweep alone runs on every device)"
            ),
        )),
    }
}

/// The kernel's entry (its first configuration's) in its own module, then each entry it is
/// compared with (`against`, or where empty its entry in each of its twins); each checked to
/// be in its PTX with the kernel's parameters.
fn compared(kernel: &Kernel, against: &[KernelRef]) -> Result<Vec<KernelRef>, Error> {
    let usage = |message: String| Error::new(exit::USAGE, message);
    let entry = kernel.variants().first().map(|variant| variant.entry).unwrap_or_default();
    let own = kernel.module().kernel(entry);
    let against: Vec<KernelRef> = if against.is_empty() {
        kernel.twins.iter().map(|twin| twin.kernel(entry)).collect()
    } else {
        against.to_vec()
    };
    if against.is_empty() {
        return Err(usage(format!(
            "compare needs a second build of `{entry}` to time against: give the kernel a twin \
             (Kernel::twin, its CUDA C++ built by nvcc) or entries to compare with"
        )));
    }
    let params = entry_params(own.module.ptx, own.entry).unwrap_or_default();
    for other in &against {
        let theirs = entry_in(*other)?;
        if theirs != params {
            return Err(usage(format!(
                "the {} kernel `{}` takes ({}), the {} kernel `{}` ({}): compare needs the same parameters",
                other.module.label,
                other.entry,
                theirs.join(", "),
                own.module.label,
                own.entry,
                params.join(", ")
            )));
        }
    }
    Ok(std::iter::once(own).chain(against).collect())
}

/// Everything about a comparison that needs no device: one device, the settings, the rounds,
/// the kernel's description, and every entry compared in its PTX with the kernel's
/// parameters. Returns the device, the kernels compared (the kernel's own first) and the block
/// of each row.
fn checked(
    kernel: &Kernel,
    settings: &Settings,
    rounds: u32,
    against: &[KernelRef],
) -> Result<(u32, Vec<KernelRef>, Vec<BlockShape>), Error> {
    let device = one_device(settings, "compare")?;
    // A sweep's exports are of its rows; compare writes its own JSON, through --json.
    if let Some((format, _)) = settings.exports.iter().find(|(format, _)| *format != Format::Json) {
        return Err(Error::new(
            exit::USAGE,
            format!("compare writes its JSON alone (--json FILE), not {}", format.option()),
        ));
    }
    settings.validate()?;
    if rounds == 0 {
        return Err(Error::new(exit::USAGE, "--rounds must be at least 1, not 0"));
    }
    // Each kernel's rounds are kept for its median: past this, the host's memory runs out first.
    if rounds > MAX_ROUNDS {
        return Err(Error::new(exit::USAGE, format!("--rounds must be at most {MAX_ROUNDS}, not {rounds}")));
    }
    check_kernel(kernel, &[kernel.module()])?;
    let blocks = settings.blocks_of(kernel).map_err(|why| Error::new(exit::USAGE, why))?;
    Ok((device, compared(kernel, against)?, blocks))
}

impl CompareArgs {
    /// Every check of [`compare`] of `kernel` (and `against`) with these options that needs no
    /// device, the first failing one as one line (exit 2): one device, the options' own,
    /// `--rounds` at least 1, the kernel's description, and every entry compared in its PTX with
    /// the kernel's parameters.
    pub fn validate_for(&self, kernel: &Kernel, against: &[KernelRef]) -> Result<(), Error> {
        checked(kernel, &self.settings(), self.rounds, against).map(|_| ())
    }
}

/// Compares `kernel`'s entry (its first configuration's) with the same entry in each of its
/// twins ([`Kernel::twin`]: its CUDA C++ twin, rustc's NVPTX build), or with the entries of
/// `against` where given (another variant with the same parameters), in `--rounds` interleaved
/// rounds at each block size, and prints the table: one launch of every kernel a round, each
/// between its own events, the order rotating; every kernel checked at every block size. Every
/// build is loaded where this driver can (one `Left out:` line for each it cannot), all run on
/// the same buffers; the ratios divide by the first of them this driver loads, else by the
/// kernel's own. `options` are `block-size compare`'s ([`CompareArgs`]). `Ok` carries the exit
/// status: 0, or 1 where a check failed.
pub fn compare<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    options: &CompareArgs,
    against: &[KernelRef],
    console: &mut Console,
) -> Result<i32, Error> {
    compare_with(driver, kernel, &options.settings(), options.rounds, against, console)
}

/// [`compare`] with its settings already made: of `settings` it reads the device (one), the
/// block sizes, the warm-ups, the provenance, the JSON file, the counters and the command line.
pub(crate) fn compare_with<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
    rounds: u32,
    against: &[KernelRef],
    console: &mut Console,
) -> Result<i32, Error> {
    let (device, kernels, blocks) = checked(kernel, settings, rounds, against)?;
    // A replay under a profiler (`--counters`): this process launches each cell once and lists
    // them (what it prints goes to the profiler, which keeps none of it).
    let replay = Supervision::from_env().replay;
    let device = replay.as_ref().map_or(device, |order| order.device);
    let session::Opened { mut gpu, loaded, .. } =
        session::open(driver, device, &kernels, session::Loading::WhatLoads(console))?;
    let mut run = Run::new(kernel, kernel.largest_grid(&blocks));
    let command = command_line();
    let scratch = if settings.counters { counters::scratch(kernel.pass.bytes_per_pass) } else { 0 };
    let preparation = session::Preparation {
        blocks: &blocks,
        scratch,
        describe: settings.provenance.then_some((&loaded[..], &command[..])),
        cuda_version: driver.cuda_version(),
        upload: true,
    };
    if let Some(facts) = session::prepare(&mut gpu, &mut run, &preparation)?.facts {
        console.out(&facts.lines(gpu.limits()));
    }
    if let Some(order) = &replay {
        let launched = engine::replay(&mut gpu, &mut run, &loaded, &blocks).map_err(failed)?;
        return counters::list_launches(order, &launched);
    }
    let baseline = kernels[1..].iter().copied().find(|other| loaded.contains(other)).unwrap_or(loaded[0]);
    let mut result =
        engine::run(&mut gpu, &mut run, &loaded, baseline, &blocks, settings.timing.warmups, rounds)
            .map_err(failed)?;
    let mut warnings = Vec::new();
    if settings.counters {
        let launches = result
            .rows
            .iter()
            .flat_map(|row| {
                row.cells.iter().map(move |cell| Launched {
                    label: engine::cell_label(cell.kernel, row.block),
                    block: row.block,
                    grid: cell.grid,
                })
            })
            .collect();
        let timing = crate::measure::sampling::timing::Timing::launch(settings.timing.warmups, 10);
        let bytes_per_pass = result.pass.bytes_per_pass;
        let (counters_run, read) =
            counters::read_launches(driver, gpu, device, bytes_per_pass, timing, launches, &mut warnings);
        for (cell, counters) in result.rows.iter_mut().flat_map(|row| &mut row.cells).zip(read) {
            cell.counters = counters;
        }
        result.counters = Some(counters_run);
    }
    let gaps = gap_lines(&result);
    console.out(&(render(&result) + &gaps));
    for warning in &warnings {
        console.err(warning);
    }
    console.err(&render_stderr(&result));
    for (_, path) in settings.exports.iter().filter(|(format, _)| *format == Format::Json) {
        let command = device::joined(&command_line());
        let json = record::json(&result, &gaps, &command)
            .map_err(|error| Error::new(exit::FAILED, format!("cannot write compare's JSON: {error}")))?;
        files::write_whole(path, json.as_bytes()).map_err(|error| {
            Error::new(exit::FAILED, format!("cannot write --json {}: {error}", crate::error::shown(path)))
        })?;
    }
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: header, each build's facts, one row per block size, and the ratio summary (the
/// lines that name a gap's cause, [`gap_lines`], follow it).
pub fn render(result: &Comparison) -> String {
    let mut text = table::device_and_image(&result.limits, &result.pass);
    text += &format!(
        "Timing: median of {} interleaved rounds after {} warm-ups per kernel; one launch per kernel per round, \
         each between its own CUDA events; the order rotates every round\n",
        result.rounds, result.warmups,
    );
    let registers: Vec<String> = result
        .kernels
        .iter()
        .map(|compared| {
            format!("{} {}", compared.kernel.module.label, compared.resources.registers_per_thread)
        })
        .collect();
    text += &format!("Registers/thread after the driver's JIT: {}\n", registers.join(", "));
    text += &facts_table(result);
    text.push('\n');

    let baseline = result.baseline.module.label;
    let others: Vec<KernelRef> = result.others().collect();
    // A block column where a row's block is a shape: 1-D comparisons read as they always did.
    let shaped = result.rows.iter().any(|row| !row.block.is_linear());
    let mut heading = vec!["thr/blk".to_string()];
    if shaped {
        heading.push("block".to_string());
    }
    for compared in &result.kernels {
        heading.extend([format!("{} blk/SM", compared.kernel.module.label), "ms".into(), "GB/s".into()]);
    }
    for kernel in &others {
        heading.push(format!("{}/{baseline} (p25-p75)", kernel.module.label));
    }
    let mut records = vec![heading];
    for row in &result.rows {
        let mut record = vec![row.threads_per_block.to_string()];
        if shaped {
            record.push(row.block.to_string());
        }
        for cell in &row.cells {
            let ms = cell.median_ms();
            record.extend([
                cell.blocks_per_sm.to_string(),
                format!("{ms:.4}"),
                format!("{:.1}", result.gigabytes_per_second(ms)),
            ]);
        }
        for &kernel in &others {
            let ratios = round_ratios(row, kernel, result.baseline);
            record.push(format!(
                "{:.3} ({:.3}-{:.3})",
                median(&ratios),
                quantile(&ratios, 0.25),
                quantile(&ratios, 0.75)
            ));
        }
        records.push(record);
    }
    text += &table::render_columns(records);
    text.push('\n');

    text += &fastest_lines(result, &others);
    text + &counters_lines(result)
}

/// Each build's fastest row, and each other build's row medians over the baseline's.
fn fastest_lines(result: &Comparison, others: &[KernelRef]) -> String {
    let baseline = result.baseline.module.label;
    let mut text = String::new();
    for compared in &result.kernels {
        let (kernel, label) = (compared.kernel, compared.kernel.module.label);
        if let Some((row, ms)) = result.fastest(kernel).map(|(row, cell)| (row, cell.median_ms())) {
            text += &format!(
                "Fastest {label} row: {} at {ms:.4} ms ({:.1} GB/s).\n",
                row.block.in_words(),
                result.gigabytes_per_second(ms)
            );
        }
    }
    for &kernel in others {
        let per_row: Vec<f64> =
            result.rows.iter().map(|row| median(&round_ratios(row, kernel, result.baseline))).collect();
        if per_row.is_empty() {
            continue;
        }
        let slower = per_row.iter().filter(|&&ratio| ratio > 1.01).count();
        text += &format!(
            "{} / {baseline} time: row medians from {:.3} to {:.3}; {} of {} rows more than 1 percent slower.\n",
            kernel.module.label,
            per_row.iter().copied().fold(f64::INFINITY, f64::min),
            per_row.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            slower,
            per_row.len()
        );
    }
    text
}

/// With `--counters`: the counters of each build at each block size, a row each; what bound
/// each build's fastest row (the rules of [`Bound`]) and, under it, what each of that build's
/// rows short of 95 percent of it read lower (the rules of [`Loss`]); then, at each block size
/// where one build is more than 2 percent slower than another ([`gap_rows`]), what its counters
/// read lower than the faster build's, or that they read alike. Empty without `--counters`.
fn counters_lines(result: &Comparison) -> String {
    let Some(run) = &result.counters else { return String::new() };
    let line = match table::counters_line(run, "each build at each block size", "the rounds") {
        Ok(line) => line,
        Err(none) => return none + "\n",
    };
    let records = result.rows.iter().flat_map(|row| {
        row.cells.iter().map(move |cell| {
            (vec![row.block.to_string(), cell.kernel.module.label.to_string()], cell.counters.as_ref())
        })
    });
    let mut text = format!("\n{line}\n") + &table::counters_table(run, &["thr/blk", "build"], records);
    let reading = |row: &CompareRow, cell| reading_of(result, run, row, cell);
    for compared in &result.kernels {
        let label = compared.kernel.module.label;
        let Some((best_row, best_cell)) = result.fastest(compared.kernel) else { continue };
        let Some((best, best_ms)) = reading(best_row, best_cell) else { continue };
        text += &format!(
            "Bound: {label}'s fastest row, {}, by {}.\n",
            best_row.block.in_words(),
            Bound::of(best).phrase()
        );
        let rows = result.rows.iter().filter_map(|row| {
            let (slower, ms) = reading(row, row.cell(compared.kernel))?;
            Some((row.block.in_words(), best_ms / ms, Some(slower)))
        });
        for line in table::loss_lines(rows, best, &format!("{label}'s fastest"), "the fastest row's") {
            text += &(line + "\n");
        }
    }
    for slow in &result.kernels {
        for fast in result.kernels.iter().filter(|fast| fast.kernel != slow.kernel) {
            let (slow_label, fast_label) = (slow.kernel.module.label, fast.kernel.module.label);
            for (row, ratio) in gap_rows(result, slow.kernel, fast.kernel) {
                let pair = reading(row, row.cell(slow.kernel)).zip(reading(row, row.cell(fast.kernel)));
                let Some(((slower, _), (faster, _))) = pair else { continue };
                let why = table::gap_why(slower, faster, fast_label, " (the builds' facts above)");
                text += &format!(
                    "{slow_label} at {}, {ratio:.3} times {fast_label}'s time: {why}.\n",
                    row.block.in_words()
                );
            }
        }
    }
    text
}

/// The rows at which one build is more than this much slower than another (the median of the
/// rounds' ratios), in at least three rounds of four (the ratios' 25th percentile above 1), get a
/// line naming the likeliest cause: a median over 1.02 whose rounds scatter across 1 is noise.
/// `variants` holds a variant's best rows under two compilers to the same ratio ([`above_gap`]).
const GAP: f64 = 1.02;

/// What each build's PTX and the driver say of it, one row a build: its PTX instructions,
/// barriers, loops, branches on the thread index over a barrier, the width of its shared-memory
/// addresses, and its local memory a thread after the JIT (spills).
fn facts_table(result: &Comparison) -> String {
    let entry = result.kernels.first().map(|compared| compared.kernel.entry).unwrap_or_default();
    let mut records = vec![
        [
            "build",
            "PTX instr",
            "barriers",
            "loops",
            "thread branches around a barrier",
            "shared addr",
            "local B/thread",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for compared in &result.kernels {
        let facts = compared.ptx_facts;
        let known = |value: Option<String>| value.unwrap_or_else(|| "n/a".into());
        records.push(vec![
            compared.kernel.module.label.to_string(),
            known(facts.map(|facts| facts.instructions.to_string())),
            known(facts.map(|facts| facts.barriers.to_string())),
            known(facts.map(|facts| facts.loops.to_string())),
            known(facts.map(|facts| facts.thread_branches_around_barriers.to_string())),
            known(
                facts.map(|facts| facts.shared_address_bits.map_or("-".into(), |bits| format!("{bits}-bit"))),
            ),
            compared.resources.local_bytes_per_thread.to_string(),
        ]);
    }
    format!(
        "What each build of `{entry}` is: its PTX's instructions, barriers, loops, branches on the thread index with a barrier \
         on one side, and shared-memory address width; its local memory a thread after the JIT\n{}",
        table::render_columns(records)
    )
}

/// One line for each build and the baseline where one is more than 2 percent slower than the
/// other at some rows (the median of the rounds' ratios, and three rounds of four slower: [`GAP`]),
/// a line for each cause: the rows, and
/// the likeliest cause from the builds' facts (`likeliest_cause`), or that none of them differs.
fn gap_lines(result: &Comparison) -> String {
    let with_facts = |kernel: KernelRef| {
        let compared = result.kernels.iter().find(|compared| compared.kernel == kernel)?;
        Some((compared, compared.ptx_facts?))
    };
    let Some(baseline) = with_facts(result.baseline) else { return String::new() };
    let mut text = String::new();
    for other in result.others().filter_map(with_facts) {
        for (slow, fast) in [(other, baseline), (baseline, other)] {
            text += &gap_line(result, slow, fast);
        }
    }
    text
}

/// A cell's counters as the rules of [`Bound`] and [`Loss`] read them, with its median time.
fn reading_of<'a>(
    result: &Comparison,
    run: &CountersRun,
    row: &CompareRow,
    cell: &'a Cell,
) -> Option<(Reading<'a>, f64)> {
    let theoretical = result.limits.occupancy_percent_of(cell.blocks_per_sm, row.threads_per_block);
    cell.counters.as_ref().map(|counters| (run.reading(counters, theoretical, &[]), cell.median_ms()))
}

/// The rows at which `slow` is more than [`GAP`] slower than `fast` (the median of the rounds'
/// ratios, as printed, and three rounds of four), each with that median.
fn gap_rows(
    result: &Comparison,
    slow: KernelRef,
    fast: KernelRef,
) -> impl Iterator<Item = (&CompareRow, f64)> {
    result.rows.iter().filter_map(move |row| {
        let ratios = round_ratios(row, slow, fast);
        let ratio = median(&ratios);
        (above_gap(ratio) && quantile(&ratios, 0.25) > 1.0).then_some((row, ratio))
    })
}

/// Whether `ratio`, as printed (to three places), is above [`GAP`]: a row shown at 1.020 is not.
pub(crate) fn above_gap(ratio: f64) -> bool {
    (ratio * 1000.0).round() / 1000.0 > GAP
}

/// [`gap_lines`]' lines for `slow` against `fast`, each a build and its PTX's facts.
fn gap_line(result: &Comparison, slow: (&Compared, PtxFacts), fast: (&Compared, PtxFacts)) -> String {
    // The rows grouped by the cause named at each, with the largest ratio among them.
    let mut causes: Vec<(Option<String>, Vec<String>, f64)> = Vec::new();
    for (row, ratio) in gap_rows(result, slow.0.kernel, fast.0.kernel) {
        let build = |(compared, ptx): (&Compared, PtxFacts)| BuildFacts {
            label: compared.kernel.module.label,
            ptx,
            registers: compared.resources.registers_per_thread,
            local_bytes: compared.resources.local_bytes_per_thread,
            blocks_per_sm: row.cell(compared.kernel).blocks_per_sm,
        };
        let cause = likeliest_cause(&build(slow), &build(fast));
        let threads = row.threads_per_block.to_string();
        match causes.iter_mut().find(|(known, ..)| *known == cause) {
            Some((_, rows, worst)) => {
                rows.push(threads);
                *worst = worst.max(ratio);
            }
            None => causes.push((cause, vec![threads], ratio)),
        }
    }
    let mut text = String::new();
    for (cause, rows, worst) in causes {
        let why = cause.unwrap_or_else(|| {
            "no difference in their PTX, registers, local memory or blocks per SM explains it".into()
        });
        text += &format!(
            "{} is more than 2 percent slower than {} at {} threads per block (up to {worst:.3}): {why}.\n",
            slow.0.kernel.module.label,
            fast.0.kernel.module.label,
            rows.join(", "),
        );
    }
    text
}

/// Standard error of a comparison: one line per wrong kernel output, then the verdict.
pub fn render_stderr(result: &Comparison) -> String {
    table::failure_lines(&result.failures, "the comparison above is not a measurement of these kernels")
}

#[cfg(test)]
mod tests {
    use crate::commands::settings::Settings;
    use crate::error::exit;
    use crate::measure::gpu::mock::MockGpu;
    use crate::measure::gpu::ptx::EmbeddedPtx;
    use crate::model::block_shape::BlockShape;
    use crate::model::counters::{Counters, CountersRun};
    use crate::model::frame_size::FrameSize;
    use crate::model::limits::KernelResources;
    use crate::model::pass::Pass;
    use crate::model::ptx_facts::PtxFacts;
    use crate::results::export::Format;
    use crate::search::interleaved::{Cell, CompareRow, Compared, Comparison};

    const SPLIT: EmbeddedPtx =
        EmbeddedPtx::user("cuda_builder", include_str!("../../tests/ptx_facts/stencil3-split.ptx.txt"));
    const NVCC: EmbeddedPtx =
        EmbeddedPtx::user("nvcc", include_str!("../../tests/ptx_facts/stencil3-nvcc.ptx.txt"));

    /// A comparison of the split scaffold PTX against nvcc's at one block size, the rounds
    /// taking `rust` and `nvcc` milliseconds.
    fn comparison(rust: &[f32], nvcc: &[f32]) -> Comparison {
        let resources =
            KernelResources { registers_per_thread: 20, static_shared_memory: 0, local_bytes_per_thread: 0 };
        let cell = |module: EmbeddedPtx, round_ms: &[f32]| Cell {
            kernel: module.kernel("stencil3"),
            blocks_per_sm: 8,
            grid: "1056".parse().unwrap(),
            round_ms: round_ms.to_vec(),
            counters: None,
        };
        Comparison {
            limits: MockGpu::h200_like().limits,
            pass: Pass {
                kernel: "stencil3".into(),
                frame: FrameSize { width: 1024, height: 1 },
                bytes_per_pass: 8192.0,
                bytes_counted: "moved per pass".into(),
                detail: None,
                items: None,
            },
            warmups: 0,
            rounds: rust.len() as u32,
            kernels: [SPLIT, NVCC]
                .map(|module| Compared {
                    kernel: module.kernel("stencil3"),
                    resources,
                    ptx_facts: PtxFacts::of(module.ptx, "stencil3"),
                })
                .to_vec(),
            baseline: NVCC.kernel("stencil3"),
            rows: vec![CompareRow {
                threads_per_block: 256,
                block: BlockShape::linear(256),
                cells: vec![cell(SPLIT, rust), cell(NVCC, nvcc)],
            }],
            failures: Vec::new(),
            counters: None,
        }
    }

    #[test]
    fn an_export_other_than_its_json_is_refused_before_any_device() {
        // `CompareArgs` takes `--json` alone; the settings of a program's own could hold more.
        let csv = Settings { exports: vec![(Format::Csv, "c.csv".into())], ..Settings::default() };
        let refused = super::checked(&crate::tests::fixture::kernel(256), &csv, 3, &[]).unwrap_err();
        assert_eq!(refused.exit_status(), exit::USAGE);
        assert_eq!(refused.to_string(), "compare writes its JSON alone (--json FILE), not --csv");
    }

    #[test]
    fn a_gap_in_most_rounds_is_named_and_one_that_scatters_across_1_is_not() {
        let nvcc = [1.0; 8];
        let steady = super::gap_lines(&comparison(&[1.05; 8], &nvcc));
        assert!(steady.starts_with("cuda_builder is more than 2 percent slower than nvcc at 256 threads per block (up to 1.050): cuda_builder's loop is split"), "{steady}");
        // Median 1.03, but three rounds of eight faster: the 25th percentile below 1.
        let scattered =
            super::gap_lines(&comparison(&[0.96, 0.97, 0.99, 1.03, 1.03, 1.05, 1.06, 1.07], &nvcc));
        assert_eq!(scattered, "");
        // At most 1.02 at the median: no line, however steady.
        assert_eq!(super::gap_lines(&comparison(&[1.02; 8], &nvcc)), "");
    }

    /// Counters reading `dram` GB/s, `occupancy` and `warp` percent.
    fn counters(dram: f64, occupancy: f64, warp: f64) -> Option<Counters> {
        Some(Counters {
            dram_bytes_per_second: Some(dram * 1e9),
            achieved_occupancy_percent: Some(occupancy),
            warp_efficiency_percent: Some(warp),
            ..Counters::default()
        })
    }

    #[test]
    fn counters_say_what_bound_each_builds_fastest_row_its_slower_rows_loss_and_each_gaps_reason() {
        let mut result = comparison(&[1.05; 8], &[1.0; 8]);
        // At 32 threads both builds about twice as slow: a quarter of the occupancy.
        let mut small = result.rows[0].clone();
        small.threads_per_block = 32;
        small.block = BlockShape::linear(32);
        for cell in &mut small.cells {
            cell.round_ms = vec![2.1; 8];
            cell.blocks_per_sm = 16;
            cell.counters = counters(1800.0, 24.0, 100.0);
        }
        result.rows.insert(0, small);
        // At 256 threads the split loop idles lanes: its warp efficiency 80 of nvcc's 97.
        result.rows[1].cells[0].counters = counters(3400.0, 95.0, 80.0);
        result.rows[1].cells[1].counters = counters(3600.0, 95.0, 97.0);
        result.counters = Some(CountersRun {
            copy_bytes_per_second: Some(4e12),
            profiler: Some("Nsight Compute 2099.1".into()),
            unavailable: None,
        });
        let text = super::counters_lines(&result);
        assert!(text.contains("Bound: cuda_builder's fastest row, 256 threads per block, by DRAM bandwidth, at 85% of the copy.\n"), "{text}");
        assert!(
            text.contains(
                "Bound: nvcc's fastest row, 256 threads per block, by DRAM bandwidth, at 90% of the copy.\n"
            ),
            "{text}"
        );
        assert!(text.contains("  32 threads per block (0.50 of cuda_builder's fastest): occupancy, 24% achieved of 25% theoretical, against the fastest row's 95%.\n"), "{text}");
        assert!(text.contains("  32 threads per block (0.48 of nvcc's fastest): occupancy"), "{text}");
        assert!(text.contains("cuda_builder at 256 threads per block, 1.050 times nvcc's time: idle lanes or divergence, warp execution efficiency 80% against nvcc's 97%.\n"), "{text}");
        // nvcc is nowhere slower: no line of it against cuda_builder.
        assert!(!text.contains("nvcc at 256"), "{text}");
        // The same gap with counters alike: the difference is in the instructions.
        result.rows[1].cells[0].counters = result.rows[1].cells[1].counters;
        let text = super::counters_lines(&result);
        assert!(text.contains("cuda_builder at 256 threads per block, 1.050 times nvcc's time: its counters read as nvcc's: the difference is in the instructions each executes (the builds' facts above).\n"), "{text}");
    }
}
