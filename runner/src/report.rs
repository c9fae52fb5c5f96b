/*!
The printed report, line for line the shape of `block_size.cu`'s output: device, image and
timing lines, the ten-column table, the driver's suggestion, the fastest row and the count
of rows near it. Failed checks and the closing verdict go to standard error.
*/

use crate::backend::{DeviceLimits, Timing};
use crate::cli::OccupancyOptions;
use crate::compare::{Comparison, round_ratios};
use crate::model::{self, Preset};
use crate::stats::{median, quantile};
use crate::sweep::{ModelCheck, Sweep};
use crate::tail::Tail;
use crate::variants::{self, Variants};
use crate::workload::Pass;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Padding, Style};

/// Column headings and the width `block_size.cu` prints each one in, so that the two
/// programs' tables line up character for character.
const COLUMNS: [(&str, usize); 10] = [
    ("thr/blk", 8),
    ("warps", 6),
    ("idle", 5),
    ("blk/SM", 7),
    ("warps/SM", 9),
    ("occ", 6),
    ("grid", 7),
    ("ms", 9),
    ("GB/s", 8),
    ("of best", 8),
];

/// The last column, after the seed's ten (and `--stats`' three): which resources bind
/// blocks/SM at this size, by the occupancy model.
const LIMITER_COLUMN: (&str, usize) = ("limiter", 14);

/// The lines printed before the sweep starts.
pub fn header(limits: &DeviceLimits, pass: &Pass, timing: Timing) -> String {
    device_and_image(limits, pass)
        + &format!(
            "Timing: median of {} runs after {} warm-ups, each run between its own CUDA events{}\n",
            timing.runs,
            timing.warmups,
            if timing.flush_l2 { ", L2 flushed before each run" } else { "" }
        )
}

/// The device line pair, the image line (what a pass moves, as GB/s counts it) and the
/// kernel's own line where it has one; shared by the sweep, `compare`, `tail` and `variants`.
fn device_and_image(limits: &DeviceLimits, pass: &Pass) -> String {
    let Pass { width, height, pixels, .. } = *pass;
    let mebibytes = pass.bytes_per_pass / (1024.0 * 1024.0);
    let mut text = format!(
        "GPU: {} (compute capability {}.{})\n  SMs {}, resident warps/SM {}, resident blocks/SM {}\n\
         Image: {width} x {height}, {pixels} pixels, {mebibytes:.1} MiB {}\n",
        limits.name,
        limits.compute_capability.0,
        limits.compute_capability.1,
        limits.multiprocessors,
        limits.max_warps_per_sm(),
        limits.max_blocks_per_sm,
        pass.bytes_counted,
    );
    if let Some(detail) = &pass.detail {
        text += detail;
        text.push('\n');
    }
    text
}

/// A row's limiters as the table prints them: `-` where the model did not run.
fn limiter_cell(limiters: &[model::Limiter]) -> String {
    if limiters.is_empty() { "-".to_string() } else { model::limiter_names(limiters) }
}

/// Extra columns `--stats` adds after the seed's ten, with their widths.
const STATS_COLUMNS: [(&str, usize); 3] = [("min ms", 9), ("max ms", 9), ("MAD ms", 9)];

/// The seed's ten columns, one row per block size; with `stats`, three more columns; last,
/// the binding limit.
pub fn table(sweep: &Sweep, stats: bool) -> String {
    let columns: Vec<(&str, usize)> = COLUMNS
        .iter()
        .chain(if stats { &STATS_COLUMNS[..] } else { &[] })
        .chain([&LIMITER_COLUMN])
        .copied()
        .collect();
    let mut records = vec![columns.iter().map(|(name, _)| name.to_string()).collect::<Vec<_>>()];
    for row in &sweep.rows {
        let mut record = vec![
            row.threads_per_block.to_string(),
            row.warps_per_block.to_string(),
            row.idle_lanes.to_string(),
            row.blocks_per_sm.to_string(),
            row.resident_warps.to_string(),
            format!("{:.0}%", sweep.occupancy_percent(row)),
            row.grid_blocks.to_string(),
            format!("{:.3}", row.stats.median),
            format!("{:.1}", sweep.gigabytes_per_second(row)),
            format!(
                "{:.2}{}",
                sweep.fraction_of_best(row),
                if sweep.within_noise_of_best(row) { "*" } else { "" }
            ),
        ];
        if stats {
            record.extend([row.stats.min, row.stats.max, row.stats.mad].map(|ms| format!("{ms:.4}")));
        }
        record.push(limiter_cell(&row.limiters));
        records.push(record);
    }
    let mut table = Builder::from_iter(records.iter().cloned()).build();
    table.with(Style::blank()).with(Padding::zero()).with(Alignment::right());
    // Widen each column to block_size.cu's printf width with left padding, so the cells
    // stay right-aligned; a wider value simply widens its column, as printf would.
    for (index, (_, width)) in columns.iter().enumerate() {
        let natural = records.iter().map(|record| record[index].chars().count()).max().unwrap_or(0);
        table.modify(Columns::one(index), Padding::new(width.saturating_sub(natural), 0, 0, 0));
    }
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// The lines after the table: the driver's suggestion, the fastest row, the near-best count.
pub fn summary(sweep: &Sweep) -> String {
    let mut text = format!(
        "cuOccupancyMaxPotentialBlockSize suggests {} threads per block and a grid of {} blocks.\n",
        sweep.suggestion.threads_per_block, sweep.suggestion.grid_blocks
    );
    if let Some(best) = sweep.best() {
        text += &format!(
            "Fastest measured: {} threads per block at {:.3} ms.\n",
            best.threads_per_block, best.stats.median
        );
    }
    text += &format!(
        "{} of {} configurations reach at least 95 percent of that row.\n",
        sweep.rows_near_best(),
        sweep.rows.len()
    );
    if sweep.rows.iter().any(|row| sweep.within_noise_of_best(row)) {
        text += "* slower than the fastest row by no more than the two rows' median absolute deviations added: within the measured noise.\n";
    }
    text += &match &sweep.model_check {
        ModelCheck::Ran { resources, agreeing_rows } => format!(
            "Occupancy model ({} registers/thread, {} B static{} shared memory) agrees with the driver's blk/SM at {} of {} block sizes.\n",
            resources.registers_per_thread,
            resources.static_shared_memory,
            match sweep.constant_dynamic_shared_memory() {
                Some(0) => String::new(),
                Some(bytes) => format!(" + {bytes} B dynamic"),
                None => " + each row's dynamic".to_string(),
            },
            agreeing_rows,
            sweep.rows.len()
        ),
        ModelCheck::Unavailable { compute_capability: (major, minor) } => {
            format!("Occupancy model: not checked: it does not know compute capability {major}.{minor}.\n")
        }
    };
    text
}

/// What follows the header once the sweep is done: a blank line, the table, a blank line,
/// the summary.
pub fn body(sweep: &Sweep, stats: bool) -> String {
    format!("\n{}\n{}", table(sweep, stats), summary(sweep))
}

/// Everything for standard error: one line per failed check, then the verdict. Empty when
/// every check held.
pub fn stderr(sweep: &Sweep) -> String {
    failure_lines(&sweep.failures, "the table above is not a measurement of this kernel")
}

/// One `check failed:` line per failure, then how many failed and what that means.
fn failure_lines<T: std::fmt::Display>(failures: &[T], verdict: &str) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut text: String = failures.iter().map(|failure| format!("check failed: {failure}\n")).collect();
    text += &format!("\n{} check(s) failed: {verdict}.\n", failures.len());
    text
}

/// Renders right-aligned columns, two spaces apart, headings first.
fn render_columns(records: Vec<Vec<String>>) -> String {
    let mut table = Builder::from_iter(records).build();
    table.with(Style::blank()).with(Padding::new(1, 0, 0, 0)).with(Alignment::right());
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// `block-size occupancy`: the model's table for one preset, or several side by side.
pub fn occupancy(options: &OccupancyOptions) -> String {
    let presets: Vec<&Preset> =
        options.gpus.iter().map(|key| model::preset(key).expect("the CLI accepts presets only")).collect();
    let (registers, shared) = (options.registers_per_thread, options.shared_memory_per_block);
    let mut text = String::new();
    for preset in &presets {
        let sm = preset.model();
        text += &format!(
            "{}: compute capability {}.{}, {} SMs; per SM {} warps, {} blocks, {} registers, {} KiB shared memory{}\n",
            preset.name,
            preset.compute_capability.0,
            preset.compute_capability.1,
            preset.multiprocessors,
            sm.max_warps_per_sm,
            sm.max_blocks_per_sm,
            sm.registers_per_sm,
            sm.shared_memory_per_sm / 1024,
            if sm.reserved_shared_memory_per_block > 0 {
                format!(" ({} B of it reserved per block)", sm.reserved_shared_memory_per_block)
            } else {
                String::new()
            },
        );
    }
    text += &format!("Kernel: {registers} registers/thread, {shared} B shared memory/block\n\n");

    let mut records = Vec::new();
    if let [preset] = presets.as_slice() {
        records.push(["thr/blk", "warps", "blk/SM", "warps/SM", "occ", "limiter"].map(String::from).to_vec());
        let sm = preset.model();
        for &threads in &options.block_sizes {
            let occupancy = sm.occupancy(threads, registers, shared);
            records.push(vec![
                threads.to_string(),
                crate::occupancy::warps_per_block(threads).to_string(),
                occupancy.blocks_per_sm.to_string(),
                occupancy.warps_per_sm.to_string(),
                format!("{:.0}%", occupancy.occupancy_percent),
                occupancy.limiter_names(),
            ]);
        }
    } else {
        // Two columns per GPU: its blocks per SM, and the occupancy they reach.
        let mut heading = vec!["thr/blk".to_string()];
        for preset in &presets {
            heading.push(format!("{} blk/SM", preset.key));
            heading.push("occ".to_string());
        }
        records.push(heading);
        for &threads in &options.block_sizes {
            let mut record = vec![threads.to_string()];
            for preset in &presets {
                let occupancy = preset.model().occupancy(threads, registers, shared);
                record.push(occupancy.blocks_per_sm.to_string());
                record.push(format!("{:.0}%", occupancy.occupancy_percent));
            }
            records.push(record);
        }
    }
    text += &render_columns(records);
    text
}

/// `block-size compare`: header, one row per block size, and the ratio summary.
pub fn comparison(result: &Comparison) -> String {
    let mut text = device_and_image(&result.limits, &result.pass);
    text += &format!(
        "Timing: median of {} interleaved rounds after {} warm-ups per kernel; one launch per kernel per round, \
         each between its own CUDA events; the order rotates every round\n",
        result.rounds, result.warmups,
    );
    let registers: Vec<String> = result
        .kernels
        .iter()
        .zip(&result.resources)
        .map(|(label, resources)| format!("{label} {}", resources.registers_per_thread))
        .collect();
    text += &format!("Registers/thread after the driver's JIT: {}\n\n", registers.join(", "));

    let baseline = &result.kernels[result.baseline];
    let others: Vec<usize> = (0..result.kernels.len()).filter(|&k| k != result.baseline).collect();
    let mut heading = vec!["thr/blk".to_string()];
    for label in &result.kernels {
        heading.extend([format!("{label} blk/SM"), "ms".into(), "GB/s".into()]);
    }
    for &k in &others {
        heading.push(format!("{}/{baseline} (p25-p75)", result.kernels[k]));
    }
    let mut records = vec![heading];
    for row in &result.rows {
        let mut record = vec![row.threads_per_block.to_string()];
        for cell in &row.cells {
            let ms = cell.median_ms();
            record.extend([
                cell.blocks_per_sm.to_string(),
                format!("{ms:.4}"),
                format!("{:.1}", result.gigabytes_per_second(ms)),
            ]);
        }
        for &k in &others {
            let ratios = round_ratios(row, k, result.baseline);
            record.push(format!(
                "{:.3} ({:.3}-{:.3})",
                median(&ratios),
                quantile(&ratios, 0.25),
                quantile(&ratios, 0.75)
            ));
        }
        records.push(record);
    }
    text += &render_columns(records);
    text.push('\n');

    for (k, label) in result.kernels.iter().enumerate() {
        if let Some((row, ms)) =
            result.rows.iter().map(|row| (row, row.cells[k].median_ms())).min_by(|a, b| a.1.total_cmp(&b.1))
        {
            text += &format!(
                "Fastest {label} row: {} threads per block at {ms:.4} ms ({:.1} GB/s).\n",
                row.threads_per_block,
                result.gigabytes_per_second(ms)
            );
        }
    }
    for &k in &others {
        let per_row: Vec<f64> =
            result.rows.iter().map(|row| median(&round_ratios(row, k, result.baseline))).collect();
        if per_row.is_empty() {
            continue;
        }
        let slower = per_row.iter().filter(|&&ratio| ratio > 1.01).count();
        text += &format!(
            "{} / {baseline} time: row medians from {:.3} to {:.3}; {} of {} rows more than 1 percent slower.\n",
            result.kernels[k],
            per_row.iter().copied().fold(f64::INFINITY, f64::min),
            per_row.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            slower,
            per_row.len()
        );
    }
    text
}

/// Standard error of a comparison: one line per wrong kernel output, then the verdict.
pub fn comparison_stderr(result: &Comparison) -> String {
    failure_lines(&result.failures, "the comparison above is not a measurement of these kernels")
}

/// `block-size tail`: the grid sizes, how full their last wave is, and what each costs
/// against the one-wave grid.
pub fn tail(result: &Tail) -> String {
    let mut text = device_and_image(&result.limits, &result.pass);
    text += &format!(
        "Timing: median of {} runs after {} warm-ups, each run between its own CUDA events{}\n",
        result.timing.runs,
        result.timing.warmups,
        if result.timing.flush_l2 { ", L2 flushed before each run" } else { "" }
    );
    text += &format!(
        "Block size: {} threads; {} blocks/SM x {} SMs = {} blocks per wave; the frame is the same in every row\n\n",
        result.threads_per_block, result.blocks_per_sm, result.limits.multiprocessors, result.wave_blocks
    );
    let one_wave = result.one_wave_ms();
    let mut records = vec![
        ["waves", "grid", "full waves", "last wave", "ms", "GB/s", "vs 1 wave"].map(String::from).to_vec(),
    ];
    for row in &result.rows {
        records.push(vec![
            format!("{:.2}", row.actual_waves),
            row.grid_blocks.to_string(),
            row.full_waves.to_string(),
            format!("{:.0}%", 100.0 * row.last_wave_fill),
            format!("{:.4}", row.stats.median),
            format!("{:.1}", result.pass.gigabytes_per_second(row.stats.median)),
            one_wave.map_or_else(|| "-".to_string(), |base| format!("{:.2}", row.stats.median / base)),
        ]);
    }
    text += &render_columns(records);
    text
}

/// Standard error of the tail experiment.
pub fn tail_stderr(result: &Tail) -> String {
    failure_lines(&result.failures, "the table above is not a measurement of this kernel")
}

/// One line for `--device all`'s closing summary.
pub fn device_summary(sweep: &Sweep) -> String {
    let verdict = if sweep.failures.is_empty() {
        "every check held".to_string()
    } else {
        format!("{} check(s) failed", sweep.failures.len())
    };
    match sweep.best() {
        Some(best) => format!(
            "GPU {} ({}): fastest {} threads per block at {:.3} ms ({:.1} GB/s); {} of {} rows within 95 percent; {verdict}.\n",
            sweep.limits.ordinal,
            sweep.limits.name,
            best.threads_per_block,
            best.stats.median,
            sweep.gigabytes_per_second(best),
            sweep.rows_near_best(),
            sweep.rows.len()
        ),
        None => format!("GPU {} ({}): no rows; {verdict}.\n", sweep.limits.ordinal, sweep.limits.name),
    }
}

/// `block-size variants`: the ceiling, one row per (kernel, block size), and the winners.
pub fn variants(result: &Variants) -> String {
    let mut text = device_and_image(&result.limits, &result.pass);
    text += &format!(
        "Timing: median of {} runs after {} warm-ups, each run between its own CUDA events; planes start {} floats past a 16-byte boundary\n",
        result.timing.runs, result.timing.warmups, result.offset
    );
    let copy_gbps = result.copy_gigabytes_per_second();
    let peak = variants::datasheet_peak(&result.limits.name);
    text += &format!(
        "Ceiling: cuMemcpyDtoD of {:.1} MiB (read and written: the bytes one pass moves), median {:.4} ms = {:.1} GB/s{}\n\n",
        result.bytes_moved() / 2.0 / (1024.0 * 1024.0),
        result.copy.median,
        copy_gbps,
        peak.map_or_else(
            || "; no datasheet peak known for this GPU".to_string(),
            |peak| format!("; datasheet peak {peak:.0} GB/s ({:.1} percent of it)", 100.0 * copy_gbps / peak)
        ),
    );
    let mut records = vec![
        ["compiler", "variant", "thr/blk", "regs", "blk/SM", "grid", "ms", "GB/s", "of copy", "of peak"]
            .map(String::from)
            .to_vec(),
    ];
    for row in &result.rows {
        let candidate = &result.candidates[row.candidate];
        let gbps = result.gigabytes_per_second(row.stats.median);
        records.push(vec![
            candidate.compiler.to_string(),
            candidate.variant.name.to_string(),
            row.threads_per_block.to_string(),
            result.registers[row.candidate].to_string(),
            row.blocks_per_sm.to_string(),
            row.grid_blocks.to_string(),
            format!("{:.4}", row.stats.median),
            format!("{gbps:.1}"),
            format!("{:.1}%", 100.0 * gbps / copy_gbps),
            peak.map_or_else(|| "-".to_string(), |peak| format!("{:.1}%", 100.0 * gbps / peak)),
        ]);
    }
    text += &render_columns(records);
    text.push('\n');
    let describe = |row: &crate::variants::VariantRow| {
        let candidate = &result.candidates[row.candidate];
        let gbps = result.gigabytes_per_second(row.stats.median);
        format!(
            "{} {} at {} threads per block, {:.4} ms, {gbps:.1} GB/s = {:.1} percent of the copy{}",
            candidate.compiler,
            candidate.variant.name,
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
    for compiler in ["Rust", "C++"] {
        if let Some(best) = result.fastest(Some(compiler)) {
            text += &format!("Fastest {compiler}: {}.\n", describe(best));
        }
    }
    // Each variant's best Rust row against its best C++ row, where both ran (a module this
    // driver could not load is left out).
    let of = |compiler: &str, name: &str| {
        result.candidates.iter().position(|c| c.compiler == compiler && c.variant.name == name)
    };
    let ratios: Vec<String> = result
        .candidates
        .iter()
        .filter(|candidate| candidate.compiler == "Rust")
        .filter_map(|candidate| {
            let name = candidate.variant.name;
            let rust = result.fastest_of(of("Rust", name)?)?;
            let cpp = result.fastest_of(of("C++", name)?)?;
            Some(format!("{name} {:.3}", rust.stats.median / cpp.stats.median))
        })
        .collect();
    if !ratios.is_empty() {
        text += &format!("Rust / C++ time, best row of each variant: {}.\n", ratios.join(", "));
    }
    text
}

/// Standard error of a `variants` run.
pub fn variants_stderr(result: &Variants) -> String {
    let labelled: Vec<String> =
        result.failures.iter().map(|(label, failure)| format!("{label}: {failure}")).collect();
    failure_lines(&labelled, "the table above is not a measurement of these kernels")
}
