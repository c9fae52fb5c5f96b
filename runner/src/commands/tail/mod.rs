/*!
`tail`: what a partial last wave costs. One block size, the same work, grids of 0.5 to 8 waves
([`crate::search::waves`]), each row against the one-wave grid, for any kernel whose blocks loop over the work
(a grid-stride loop).
*/

use crate::commands::compare::one_device;
use crate::commands::counters;
use crate::commands::options::TailArgs;
use crate::commands::session;
use crate::commands::settings::Settings;
use crate::commands::sweep::prepare::check_kernel;
use crate::error::{Console, Error, exit, failed};
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Driver, Gpu as _};
use crate::measure::gpu::device::{self, command_line};
use crate::measure::profiler::Launched;
use crate::measure::sampling::timing::Timing;
use crate::measure::supervision::supervise::Supervision;
use crate::model::block_shape::BlockShape;
use crate::model::counters::Bound;
use crate::results::table;
use crate::search::waves::{self as engine, Tail};

/// The grids `waves` may ask for: each above 0 and at most 1000 waves.
fn check_waves(waves: &[f64]) -> Result<(), Error> {
    let usage = |message: String| Error::new(exit::USAGE, message);
    if waves.is_empty() {
        return Err(usage("--waves lists no grid size".to_string()));
    }
    if let Some(bad) = waves.iter().find(|waves| !(waves.is_finite() && **waves > 0.0 && **waves <= 1000.0)) {
        return Err(usage(format!("--waves {bad} is not a grid size: give waves above 0 and at most 1000")));
    }
    Ok(())
}

/// Everything about a tail experiment that needs no device: one device, the settings (their
/// timing returned), one block (returned: `block_sizes`' one in x alone, or `block_shapes`' one,
/// a shape beyond x for a kernel with a domain alone), the grids, the kernel's description.
fn checked(kernel: &Kernel, settings: &Settings, waves: &[f64]) -> Result<(u32, Timing, BlockShape), Error> {
    let device = one_device(settings, "tail")?;
    let timing = settings.checked()?;
    let usage = |message: String| Error::new(exit::USAGE, message);
    let block = match (&settings.block_shapes[..], &settings.block_sizes[..]) {
        ([], [threads]) => BlockShape::linear(*threads),
        ([], sizes) => {
            return Err(usage(format!("tail measures one block size: give one, not {}", sizes.len())));
        }
        ([shape], _) if !shape.is_linear() && kernel.domain_sides().is_none() => {
            return Err(usage(format!(
                "--block-shape {shape}: the kernel `{}` launches blocks in x alone (its description has no domain, Kernel::domain); give it --block-size",
                kernel.pass.kernel
            )));
        }
        ([shape], _) => *shape,
        (shapes, _) => {
            return Err(usage(format!("tail measures one block: give one shape, not {}", shapes.len())));
        }
    };
    check_waves(waves)?;
    check_kernel(kernel, &[kernel.module()])?;
    Ok((device, timing, block))
}

impl TailArgs {
    /// Every check of [`tail`] of `kernel` with these options that needs no device, the first
    /// failing one as one line (exit 2): one device, the options' own, one block size or
    /// shape, `--waves` each above 0 and at most 1000, the kernel's description.
    pub fn validate_for(&self, kernel: &Kernel) -> Result<(), Error> {
        checked(kernel, &self.settings(), &self.waves).map(|_| ())
    }
}

/// `kernel` at the one block size (or shape) of `options` with grids of each of its `--waves`
/// waves over the same work (a wave being blocks/SM x SMs blocks; each above 0 and at most
/// 1000), and the table, each row against the one-wave grid: what a partial last wave costs a
/// kernel whose blocks loop over the work. Its own module alone is measured; a driver that
/// cannot load it is exit 3 with its line. `options` are `block-size tail`'s ([`TailArgs`]).
/// `Ok` carries the exit status: 0, or 1 where a check failed.
pub fn tail<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    options: &TailArgs,
    console: &mut Console,
) -> Result<i32, Error> {
    tail_with(driver, kernel, &options.settings(), &options.waves, console)
}

/// [`tail`] with its settings already made: of `settings` it reads the device (one), the
/// block size, the timing, the provenance, the counters and the command line.
pub(crate) fn tail_with<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
    waves: &[f64],
    console: &mut Console,
) -> Result<i32, Error> {
    let (device, timing, block) = checked(kernel, settings, waves)?;
    // A replay under a profiler (`--counters`): this process launches each row's grid once and
    // lists them.
    let replay = Supervision::from_env().replay;
    let device = replay.as_ref().map_or(device, |order| order.device);
    let threads_per_block = block.threads();
    let entry = kernel.kernels()[0];
    let session::Opened { mut gpu, .. } = session::open(driver, device, &[entry], session::Loading::Every)?;
    device::check_block_size_limits(&[threads_per_block], gpu.limits())
        .and_then(|()| block.check(gpu.limits().max_block_dimensions, gpu.limits().max_threads_per_block))
        .map_err(|message| Error::new(exit::USAGE, message))?;
    // The grids' sizes need the device's residency: outputs of one element per block are
    // allocated for the largest.
    let shared = (kernel.shared)(block, &kernel.variants()[0]);
    let blocks_per_sm = gpu.blocks_per_sm(threads_per_block, shared).map_err(failed)?;
    let wave_blocks = (blocks_per_sm * gpu.limits().multiprocessors).max(1);
    let max_grid = waves.iter().map(|&waves| engine::grid_for(waves, wave_blocks)).max().unwrap_or(1);
    // Over a domain a row's grid starts as many waves as asked, so it has at most that many
    // whole waves of blocks.
    let max_grid = if kernel.domain_sides().is_some() {
        max_grid.div_ceil(wave_blocks).saturating_mul(wave_blocks)
    } else {
        max_grid
    };
    let mut run = Run::new(kernel, max_grid);
    let scratch = if timing.flushes() { 2 * u64::from(gpu.limits().l2_cache_bytes) } else { 0 }
        + if settings.counters { counters::scratch(kernel.pass.bytes_per_pass) } else { 0 };
    let (command, entries) = (command_line(), [entry]);
    let preparation = session::Preparation {
        blocks: &[block],
        scratch,
        describe: settings.provenance.then_some((&entries[..], &command[..])),
        cuda_version: driver.cuda_version(),
        upload: true,
    };
    let facts = session::prepare(&mut gpu, &mut run, &preparation)?.facts;
    if let Some(order) = &replay {
        let launched = engine::replay(&mut gpu, &mut run, block, waves).map_err(failed)?;
        return counters::list_launches(order, &launched);
    }
    if let Some(facts) = facts {
        console.out(&facts.lines(gpu.limits()));
    }
    let mut result = engine::run(&mut gpu, &mut run, block, waves, timing).map_err(failed)?;
    let mut warnings = Vec::new();
    if settings.counters {
        let launches = result
            .rows
            .iter()
            .map(|row| Launched { label: engine::row_label(row.waves), block, grid: row.grid })
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

/// The report: the grid sizes, how full their last wave is, and what each costs against the
/// one-wave grid.
pub fn render(result: &Tail) -> String {
    let mut text = table::device_and_image(&result.limits, &result.pass);
    text += &table::timing_line(result.timing);
    let shape = if result.block.is_linear() { String::new() } else { format!(", block {}", result.block) };
    text += &format!(
        "Block size: {} threads{shape}; {} blocks/SM x {} SMs = {} blocks per wave; the {} is the same in every row\n\n",
        result.threads_per_block,
        result.blocks_per_sm,
        result.limits.multiprocessors,
        result.wave_blocks,
        if result.pass.items.is_none() { "frame" } else { "work" }
    );
    let one_wave = result.one_wave_ms();
    // Over a domain: each row's grid, its blocks, and how evenly its blocks share the domain.
    let shaped = result.rows.iter().any(|row| !row.grid.is_linear());
    let mut header = vec!["waves", "grid", "full waves", "last wave", "ms", "GB/s", "vs 1 wave"];
    if shaped {
        header.splice(2..2, ["blocks", "max/mean"]);
    }
    let mut records = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for row in &result.rows {
        let mut record = vec![
            format!("{:.2}", row.actual_waves),
            row.grid.to_string(),
            row.full_waves.to_string(),
            format!("{:.0}%", 100.0 * row.last_wave_fill),
            format!("{:.4}", row.stats.median),
            format!("{:.1}", result.pass.gigabytes_per_second(row.stats.median)),
            one_wave.map_or_else(|| "-".to_string(), |base| format!("{:.2}", row.stats.median / base)),
        ];
        if shaped {
            record.splice(2..2, [row.grid_blocks.to_string(), format!("{:.3}", row.imbalance)]);
        }
        records.push(record);
    }
    text += &table::render_columns(records);
    if shaped {
        text += "\nOver the domain each grid is laid so that it starts as many waves as asked and its blocks share the work as evenly as its sides allow: max/mean is the most tiles a block takes over the mean (docs/tail.md).\n";
    }
    text + &counters_lines(result)
}

/// With `--counters`: each grid's counters, a row each, and what bound the one-wave grid and
/// each grid bound otherwise (the rules of [`Bound`]); empty without.
fn counters_lines(result: &Tail) -> String {
    let Some(run) = &result.counters else { return String::new() };
    let line = match table::counters_line(run, "each grid", "the timed samples") {
        Ok(line) => line,
        Err(none) => return none + "\n",
    };
    let records = result
        .rows
        .iter()
        .map(|row| (vec![format!("{:.2}", row.actual_waves), row.grid.to_string()], row.counters.as_ref()));
    let mut text = format!("\n{line}\n") + &table::counters_table(run, &["waves", "grid"], records);
    let theoretical = result.limits.occupancy_percent_of(result.blocks_per_sm, result.threads_per_block);
    let bounds: Vec<(String, Bound)> = result
        .rows
        .iter()
        .filter_map(|row| {
            let counters = row.counters.as_ref()?;
            let bound = Bound::of(run.reading(counters, theoretical, &[]));
            Some((format!("{:.2} waves ({})", row.actual_waves, row.grid), bound))
        })
        .collect();
    let mut kinds: Vec<&str> = Vec::new();
    for (label, bound) in &bounds {
        // The first grid of each kind of bound says it; grids bound alike after it do not.
        if !kinds.contains(&bound.kind()) {
            kinds.push(bound.kind());
            text += &format!("Bound: {label} by {}.\n", bound.phrase());
        }
    }
    text
}

/// Standard error of the tail experiment.
pub fn render_stderr(result: &Tail) -> String {
    table::failure_lines(&result.failures, "the table above is not a measurement of this kernel")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_measures_one_block_size() {
        // `TailArgs` takes one `--block-size`; the settings of a program's own could hold more.
        let two = Settings { block_sizes: vec![128, 256], ..Settings::default() };
        let error = checked(&crate::tests::fixture::kernel(256), &two, &[1.0]).unwrap_err();
        assert_eq!(
            (error.exit_status(), error.to_string().as_str()),
            (exit::USAGE, "tail measures one block size: give one, not 2")
        );
    }
}
