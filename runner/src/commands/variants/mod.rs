/*!
`variants`: after the block size, the memory operations. Every configuration of a kernel's axes
(vector loads, several items a thread, copies of shared memory), from its own module and its
first twin (Rust beside CUDA C++), against a device-to-device copy of the same bytes
([`crate::search::candidates`]).
*/

use crate::commands::compare::{above_gap, one_device};
use crate::commands::counters;
use crate::commands::options::VariantsArgs;
use crate::commands::session;
use crate::commands::settings::Settings;
use crate::commands::sweep::prepare::check_kernel;
use crate::error::{Console, Error, exit, failed};
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Driver, Gpu as _};
use crate::measure::gpu::device::command_line;
use crate::measure::gpu::ptx::{EmbeddedPtx, KernelRef};
use crate::measure::profiler::Launched;
use crate::measure::sampling::timing::Timing;
use crate::measure::supervision::progress::WithProgress;
use crate::measure::supervision::supervise::Supervision;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Bound, CountersRun, Reading};
use crate::model::frame_size;
use crate::model::grid::GridPolicy;
use crate::results::table;
use crate::search::candidates::{self as engine, Candidate, VariantRow, Variants};

/// The modules `variants` measures a kernel in: its own, and its first twin.
fn modules(kernel: &Kernel) -> Vec<EmbeddedPtx> {
    std::iter::once(kernel.module()).chain(kernel.twins.first().copied()).collect()
}

/// Everything about `variants` that needs no device: one device, the settings (their timing
/// returned), the kernel's description and its entries in its module and first twin
/// (returned).
fn checked(kernel: &Kernel, settings: &Settings) -> Result<(u32, Timing, Vec<EmbeddedPtx>), Error> {
    let device = one_device(settings, "variants")?;
    let timing = settings.checked()?;
    let modules = modules(kernel);
    check_kernel(kernel, &modules)?;
    Ok((device, timing, modules))
}

impl VariantsArgs {
    /// Every check of [`variants`] of `kernel` with these options that needs no device, the
    /// first failing one as one line (exit 2): one device, the options' own, the kernel's
    /// description, and every entry point in its module and its first twin.
    pub fn validate_for(&self, kernel: &Kernel) -> Result<(), Error> {
        checked(kernel, &self.settings()).map(|_| ())
    }
}

/// Every configuration of `kernel`'s axes (its shapes) from its module and its first twin
/// (those this driver can load; one `Left out:` line for each it cannot) at every block size,
/// each with a one-wave grid over the items a thread covers ([`Kernel::items_per_thread`]),
/// checked and timed, against a device-to-device copy of the same bytes timed in the same run:
/// one table. `options` are `block-size variants`' ([`VariantsArgs`]; `--runs` is the copy's
/// too). `Ok` carries the exit status: 0, or 1 where a check failed.
pub fn variants<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    options: &VariantsArgs,
    console: &mut Console,
) -> Result<i32, Error> {
    variants_with(driver, kernel, &options.settings(), console)
}

/// [`variants`] with its settings already made: of `settings` it reads the device (one), the
/// block sizes, the timing (`runs` of it for the copy), the provenance, the counters and the
/// command line.
pub(crate) fn variants_with<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
    console: &mut Console,
) -> Result<i32, Error> {
    let (device, timing, modules) = checked(kernel, settings)?;
    // A replay under a profiler (`--counters`): this process launches each row once and lists
    // them (what it prints goes to the profiler, which keeps none of it).
    let replay = Supervision::from_env().replay;
    let device = replay.as_ref().map_or(device, |order| order.device);
    let max_grid = GridPolicy::largest_grid(kernel.pass.item_count(), &settings.block_sizes);
    let mut run = Run::new(kernel, max_grid);
    let all = engine::candidates(&run, &modules);
    let kernels: Vec<KernelRef> = all.iter().map(|candidate| candidate.kernel).collect();
    let session::Opened { mut gpu, loaded, .. } =
        session::open(driver, device, &kernels, session::Loading::WhatLoads(console))?;
    let candidates: Vec<Candidate> =
        all.into_iter().filter(|candidate| loaded.contains(&candidate.kernel)).collect();
    // One provenance line per module: its first loaded kernel stands for its file.
    let mut firsts: Vec<KernelRef> = Vec::new();
    for candidate in &candidates {
        if !firsts.iter().any(|first| first.module == candidate.kernel.module) {
            firsts.push(candidate.kernel);
        }
    }
    let command = command_line();
    let preparation = session::Preparation {
        blocks: &settings.block_sizes.iter().copied().map(BlockShape::linear).collect::<Vec<_>>(),
        // The copy needs a source and a destination of half a pass each: one pass's bytes
        // more, past the kernel's own buffers.
        scratch: kernel.pass.bytes_per_pass as u64
            + if settings.counters { counters::scratch(kernel.pass.bytes_per_pass) } else { 0 },
        describe: settings.provenance.then_some((&firsts[..], &command[..])),
        cuda_version: driver.cuda_version(),
        upload: true,
    };
    if let Some(facts) = session::prepare(&mut gpu, &mut run, &preparation)?.facts {
        console.out(&facts.lines(gpu.limits()));
    }
    if let Some(order) = &replay {
        let launched =
            engine::replay(&mut gpu, &mut run, &candidates, &settings.block_sizes).map_err(failed)?;
        return counters::list_launches(order, &launched);
    }
    let rows = candidates.len() * settings.block_sizes.len();
    let mut with_progress = WithProgress::new(&mut gpu, rows);
    let result = engine::run(&mut with_progress, &mut run, &candidates, &settings.block_sizes, timing);
    with_progress.finish();
    let mut result = result.map_err(failed)?;
    let mut warnings = Vec::new();
    if settings.counters {
        let launches = result
            .rows
            .iter()
            .map(|row| Launched {
                label: engine::row_label(&row.candidate, row.threads_per_block),
                block: BlockShape::linear(row.threads_per_block),
                grid: GridShape::linear(row.grid_blocks),
            })
            .collect();
        let bytes_per_pass = result.pass.bytes_per_pass;
        let (counters_run, read) =
            counters::read_launches(driver, gpu, device, bytes_per_pass, timing, launches, &mut warnings);
        for (row, counters) in result.rows.iter_mut().zip(read) {
            row.counters = counters;
        }
        result.counters = Some(counters_run);
    }
    console.out(&render(&result));
    for warning in &warnings {
        console.err(warning);
    }
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The table's heading and a record a row: its configuration, resources, time and GB/s against
/// the copy's `copy_gbps` and the datasheet's `peak`.
fn rows_records(result: &Variants, copy_gbps: f64, peak: Option<f64>) -> Vec<Vec<String>> {
    // Configurations that ask for dynamic shared memory: a column says how much a block asked.
    let shared = result.rows.iter().any(|row| row.shared_memory > 0);
    let mut heading = vec!["compiler", "variant", "thr/blk", "regs"];
    if shared {
        heading.push("smem/blk");
    }
    heading.extend(["blk/SM", "grid", "ms", "GB/s", "of copy", "of peak"]);
    let mut records = vec![heading.into_iter().map(String::from).collect::<Vec<_>>()];
    for row in &result.rows {
        let candidate = &row.candidate;
        let gbps = result.gigabytes_per_second(row.stats.median);
        let mut record = vec![
            candidate.compiler.clone(),
            candidate.name.clone(),
            row.threads_per_block.to_string(),
            row.registers_per_thread.to_string(),
        ];
        if shared {
            record.push(row.shared_memory.to_string());
        }
        record.extend([
            row.blocks_per_sm.to_string(),
            row.grid_blocks.to_string(),
            format!("{:.4}", row.stats.median),
            format!("{gbps:.1}"),
            format!("{:.1}%", 100.0 * gbps / copy_gbps),
            peak.map_or_else(|| "-".to_string(), |peak| format!("{:.1}%", 100.0 * gbps / peak)),
        ]);
        records.push(record);
    }
    records
}

/// Where the buffers start: "every buffer starts at a 256-byte boundary", or the buffers of the
/// same offset in one clause each ("red, green, blue and out start 2 element(s) (8 bytes) past a
/// 256-byte boundary").
fn buffer_starts(result: &Variants) -> String {
    // Buffers of the same offset in one clause: "red, green, blue and out start 2 elements
    // (8 bytes) past a 256-byte boundary".
    let mut groups: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    for &(name, elements, bytes) in &result.offsets {
        match groups.iter_mut().find(|(known, known_bytes, _)| (*known, *known_bytes) == (elements, bytes)) {
            Some((_, _, names)) => names.push(name),
            None => groups.push((elements, bytes, vec![name])),
        }
    }
    let clauses: Vec<String> = groups
        .iter()
        .map(|(elements, bytes, names)| {
            let names = match names.split_last() {
                Some((last, [])) => format!("{last} starts"),
                Some((last, rest)) => format!("{} and {last} start", rest.join(", ")),
                None => unreachable!("a group has a buffer"),
            };
            format!("{names} {elements} element(s) ({bytes} bytes) past a 256-byte boundary")
        })
        .collect();
    if clauses.is_empty() {
        "every buffer starts at a 256-byte boundary".to_string()
    } else {
        clauses.join("; ")
    }
}

/// The report: the ceiling, one row per (kernel, block size), and the winners.
pub fn render(result: &Variants) -> String {
    let mut text = table::device_and_image(&result.limits, &result.pass);
    let starts = buffer_starts(result);
    text += &format!("{}; {starts}\n", table::timing_line(result.timing).trim_end());
    let copy_gbps = result.copy_gigabytes_per_second();
    let peak = engine::datasheet_peak(&result.limits.name);
    text += &format!(
        "Ceiling: cuMemcpyDtoD of {:.1} MiB (read and written: as many bytes as one pass counts), median {:.4} ms = {:.1} GB/s{}\n\n",
        frame_size::mib(result.bytes_moved() / 2.0),
        result.copy.median,
        copy_gbps,
        peak.map_or_else(
            || "; no datasheet peak known for this GPU".to_string(),
            |peak| format!("; datasheet peak {peak:.0} GB/s ({:.1} percent of it)", 100.0 * copy_gbps / peak)
        ),
    );
    text += &table::render_columns(rows_records(result, copy_gbps, peak));
    text.push('\n');
    let describe = |row: &VariantRow| {
        let candidate = &row.candidate;
        let gbps = result.gigabytes_per_second(row.stats.median);
        format!(
            "{} {} at {} threads per block, {:.4} ms, {gbps:.1} GB/s = {:.1} percent of the copy{}",
            candidate.compiler,
            candidate.name,
            row.threads_per_block,
            row.stats.median,
            100.0 * gbps / copy_gbps,
            peak.map_or_else(String::new, |peak| format!(
                " and {:.1} percent of the datasheet peak",
                100.0 * gbps / peak
            ))
        )
    };
    if let Some(best) = result.fastest(None) {
        text += &format!("Fastest: {}.\n", describe(best));
    }
    let compilers = result.compilers();
    for compiler in &compilers {
        if let Some(best) = result.fastest(Some(compiler)) {
            text += &format!("Fastest {compiler}: {}.\n", describe(best));
        }
    }
    // Each configuration's best row of the first compiler against its best of the second, where
    // both ran (a module this driver could not load is left out).
    if let [first, second, ..] = compilers[..] {
        let ratios: Vec<String> = result
            .candidates
            .iter()
            .filter(|candidate| candidate.compiler == first)
            .filter_map(|candidate| {
                let name = &candidate.name;
                let ours = result.fastest_of(result.candidate(first, name)?)?;
                let theirs = result.fastest_of(result.candidate(second, name)?)?;
                Some(format!("{name} {:.3}", ours.stats.median / theirs.stats.median))
            })
            .collect();
        if !ratios.is_empty() {
            text += &format!("{first} / {second} time, best row of each variant: {}.\n", ratios.join(", "));
        }
    }
    text + &counters_lines(result)
}

/// With `--counters`: each row's counters, a row each; what bound each compiler's fastest row
/// (the rules of [`Bound`]) and, under it, what each variant's best row short of 95 percent of it
/// read lower (the rules of [`Loss`]); then, for each variant whose best row under one compiler is
/// more than 2 percent slower than under another, what its counters read lower, or that they
/// read alike. Empty without `--counters`.
fn counters_lines(result: &Variants) -> String {
    let Some(run) = &result.counters else { return String::new() };
    let line = match table::counters_line(run, "each row", "the timed samples") {
        Ok(line) => line,
        Err(none) => return none + "\n",
    };
    let records = result.rows.iter().map(|row| {
        let candidate = &row.candidate;
        (
            vec![candidate.compiler.clone(), candidate.name.clone(), row.threads_per_block.to_string()],
            row.counters.as_ref(),
        )
    });
    let mut text =
        format!("\n{line}\n") + &table::counters_table(run, &["compiler", "variant", "thr/blk"], records);
    let reading = |row| reading_of(result, run, row);
    let compilers = result.compilers();
    for compiler in &compilers {
        let Some(best_row) = result.fastest(Some(compiler)) else { continue };
        let Some(best) = reading(best_row) else { continue };
        text += &format!(
            "Bound: {compiler}'s fastest row, {} at {} threads per block, by {}.\n",
            best_row.candidate.name,
            best_row.threads_per_block,
            Bound::of(best).phrase()
        );
        let rows = result.candidates.iter().filter(|candidate| candidate.compiler == *compiler).filter_map(
            |candidate| {
                let row = result.fastest_of(candidate)?;
                let label = format!("{} at {} threads per block", candidate.name, row.threads_per_block);
                Some((label, best_row.stats.median / row.stats.median, reading(row)))
            },
        );
        for line in table::loss_lines(rows, best, &format!("{compiler}'s fastest"), "the fastest row's") {
            text += &(line + "\n");
        }
    }
    // Each variant's best row under each compiler against its best under every other.
    for slow_compiler in &compilers {
        for fast_compiler in compilers.iter().filter(|fast| *fast != slow_compiler) {
            for candidate in result.candidates.iter().filter(|candidate| candidate.compiler == *slow_compiler)
            {
                let Some(other) = result.candidate(fast_compiler, &candidate.name) else { continue };
                let (Some(slow), Some(fast)) = (result.fastest_of(candidate), result.fastest_of(other))
                else {
                    continue;
                };
                let ratio = slow.stats.median / fast.stats.median;
                if !above_gap(ratio) {
                    continue;
                }
                let Some((slower, faster)) = reading(slow).zip(reading(fast)) else { continue };
                let why = table::gap_why(slower, faster, fast_compiler, "");
                text += &format!(
                    "{slow_compiler} {} at its best, {} threads per block, {ratio:.3} times {fast_compiler}'s best time: {why}.\n",
                    candidate.name, slow.threads_per_block
                );
            }
        }
    }
    text
}

/// A row's counters as the rules of [`Bound`] and [`Loss`] read them.
fn reading_of<'a>(result: &Variants, run: &CountersRun, row: &'a VariantRow) -> Option<Reading<'a>> {
    let counters = row.counters.as_ref()?;
    let theoretical = result.limits.occupancy_percent_of(row.blocks_per_sm, row.threads_per_block);
    Some(run.reading(counters, theoretical, &[]))
}

/// Standard error of a `variants` run.
pub fn render_stderr(result: &Variants) -> String {
    let labelled: Vec<String> =
        result.failures.iter().map(|(label, failure)| format!("{label}: {failure}")).collect();
    table::failure_lines(&labelled, "the table above is not a measurement of these kernels")
}

#[cfg(test)]
mod tests {
    use crate::measure::gpu::mock::MockGpu;
    use crate::measure::gpu::ptx::EmbeddedPtx;
    use crate::measure::sampling::timing::Timing;
    use crate::model::counters::{Counters, CountersRun};
    use crate::model::frame_size::FrameSize;
    use crate::model::pass::Pass;
    use crate::model::stats::RunStats;
    use crate::search::candidates::{Candidate, VariantRow, Variants};

    const MODULE: EmbeddedPtx = EmbeddedPtx::user("nvcc", "");

    fn candidate(compiler: &str, name: &str) -> Candidate {
        Candidate {
            compiler: compiler.into(),
            name: name.into(),
            index: 0,
            items_per_thread: 1,
            kernel: MODULE.kernel("grayscale"),
        }
    }

    /// A row of `compiler`'s `name` at 256 threads, 8 blocks an SM, taking `ms`, its counters
    /// reading `dram` GB/s, `occupancy` and `warp` percent.
    fn row(compiler: &str, name: &str, ms: f64, dram: f64, occupancy: f64, warp: f64) -> VariantRow {
        VariantRow {
            candidate: candidate(compiler, name),
            registers_per_thread: 16,
            threads_per_block: 256,
            shared_memory: 0,
            blocks_per_sm: 8,
            grid_blocks: 1056,
            stats: RunStats { median: ms, min: ms, max: ms, mad: 0.0 },
            counters: Some(Counters {
                dram_bytes_per_second: Some(dram * 1e9),
                achieved_occupancy_percent: Some(occupancy),
                warp_efficiency_percent: Some(warp),
                ..Counters::default()
            }),
        }
    }

    #[test]
    fn counters_say_what_bound_each_compilers_fastest_each_slower_variants_loss_and_each_compilers_gap() {
        let rows = vec![
            row("Rust", "x1", 1.0, 3600.0, 95.0, 100.0),
            // Two items a trip: fewer warps resident.
            row("Rust", "x2", 1.5, 2400.0, 50.0, 100.0),
            row("C++", "x1", 1.0, 3600.0, 95.0, 100.0),
            // Rust's x2 at 1.5 ms against C++'s at 1.2, at the same occupancy: less bandwidth.
            row("C++", "x2", 1.2, 3000.0, 50.0, 100.0),
        ];
        let result = Variants {
            limits: MockGpu::h200_like().limits,
            pass: Pass {
                kernel: "grayscale".into(),
                frame: FrameSize { width: 1024, height: 1 },
                bytes_per_pass: 8192.0,
                bytes_counted: "moved per pass".into(),
                detail: None,
                items: None,
            },
            offsets: Vec::new(),
            timing: Timing::launch(0, 1),
            candidates: rows.iter().map(|row| row.candidate.clone()).collect(),
            copy: RunStats { median: 1.0, min: 1.0, max: 1.0, mad: 0.0 },
            rows,
            failures: Vec::new(),
            counters: Some(CountersRun {
                copy_bytes_per_second: Some(4e12),
                profiler: Some("Nsight Compute 2099.1".into()),
                unavailable: None,
            }),
        };
        let text = super::counters_lines(&result);
        assert!(text.contains("Bound: Rust's fastest row, x1 at 256 threads per block, by DRAM bandwidth, at 90% of the copy.\n"), "{text}");
        assert!(text.contains("  x2 at 256 threads per block (0.67 of Rust's fastest): occupancy, 50% achieved of 100% theoretical, against the fastest row's 95%.\n"), "{text}");
        assert!(text.contains("  x2 at 256 threads per block (0.83 of C++'s fastest): occupancy"), "{text}");
        assert!(text.contains("Rust x2 at its best, 256 threads per block, 1.250 times C++'s best time: less bandwidth, DRAM at 60% of the copy against C++'s 75%.\n"), "{text}");
        // x1 runs alike under both, and C++ is nowhere slower.
        assert!(!text.contains("Rust x1 at its best") && !text.contains("C++ x"), "{text}");
    }
}
