/*!
`compare`: a kernel's Rust PTX against other builds of the same entry point with the same
parameters (its CUDA C++ twin built by nvcc, rustc's NVPTX build, another variant), on the same
device buffers, timed side by side in interleaved rounds ([`engine`]), every row checked, each
against the baseline (the first of them).
*/

pub mod engine;

use self::engine::{Comparison, round_ratios};
use crate::commands::settings::{DeviceChoice, Settings};
use crate::commands::sweep::prepare::{check_kernel, entry_in};
use crate::error::{Console, Error, exit, failed};
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::backend::Driver;
use crate::measure::device::{self, command_line};
use crate::measure::ptx::{KernelRef, entry_params};
use crate::measure::workload::Workload as _;
use crate::model::block_shape::BlockShape;
use crate::model::stats::{median, quantile};
use crate::results::table;

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

impl Settings {
    /// Every check of [`compare`] with these settings that needs no device, the first failing
    /// one as one line (exit 2): one device, the settings' own, `rounds` at least 1, the
    /// kernel's description, and every entry compared in its PTX with the kernel's parameters.
    pub fn validate_compare(&self, kernel: &Kernel, rounds: u32, against: &[KernelRef]) -> Result<(), Error> {
        checked(kernel, self, rounds, against).map(|_| ())
    }
}

/// Compares `kernel`'s entry (its first configuration's) with the same entry in each of its
/// twins ([`Kernel::twin`]: its CUDA C++ twin, rustc's NVPTX build), or with the entries of
/// `against` where given (another variant with the same parameters), in `rounds` interleaved
/// rounds at each block size, and prints the table: one launch of every kernel a round, each
/// between its own events, the order rotating; every kernel checked at every block size. Every
/// build is loaded where this driver can (one `Left out:` line for each it cannot), all run on
/// the same buffers; the ratios divide by the first of them this driver loads, else by the
/// kernel's own. Of `settings` it reads the device (one), the block sizes, the warm-ups, the
/// provenance and the command line. `Ok` carries the exit status: 0, or 1 where a check failed.
pub fn compare<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
    rounds: u32,
    against: &[KernelRef],
    console: &mut Console,
) -> Result<i32, Error> {
    let (device, kernels, blocks) = checked(kernel, settings, rounds, against)?;
    let (mut gpu, loaded) = device::open_what_loads(driver, device, &kernels, console)?;
    let max_grid = kernel.largest_grid(&blocks);
    let mut run = Run::new(kernel, max_grid);
    crate::commands::sweep::check_device(&mut run, &gpu, &blocks, 0)?;
    if settings.provenance {
        console.out(&device::provenance_lines(
            &mut gpu,
            driver.cuda_version(),
            &loaded,
            &command_line(&settings.command),
        )?);
    }
    run.build().map_err(|error| Error::new(exit::USAGE, format!("{error:#}")))?;
    run.upload(&mut gpu).map_err(failed)?;
    let baseline = kernels[1..].iter().copied().find(|other| loaded.contains(other)).unwrap_or(loaded[0]);
    let result = engine::run(&mut gpu, &mut run, &loaded, baseline, &blocks, settings.timing.warmups, rounds)
        .map_err(failed)?;
    console.out(&render(&result));
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: header, one row per block size, and the ratio summary.
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
    text += &format!("Registers/thread after the driver's JIT: {}\n\n", registers.join(", "));

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

    for compared in &result.kernels {
        let (kernel, label) = (compared.kernel, compared.kernel.module.label);
        if let Some((row, ms)) = result
            .rows
            .iter()
            .map(|row| (row, row.cell(kernel).median_ms()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
        {
            text += &format!(
                "Fastest {label} row: {} at {ms:.4} ms ({:.1} GB/s).\n",
                row.block.in_words(),
                result.gigabytes_per_second(ms)
            );
        }
    }
    for &kernel in &others {
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

/// Standard error of a comparison: one line per wrong kernel output, then the verdict.
pub fn render_stderr(result: &Comparison) -> String {
    table::failure_lines(&result.failures, "the comparison above is not a measurement of these kernels")
}
