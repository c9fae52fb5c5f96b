/*!
`block-size compare`: the same kernel from every compiler that builds it (for the grayscale
kernel cuda_builder, nvcc and rustc's NVPTX backend; for the histogram cuda_builder and nvcc),
on the same device buffers, timed side by side in interleaved rounds ([`crate::commands::compare::engine`]),
each against its CUDA C++ twin.
*/

pub mod engine;

use self::engine::{Comparison, round_ratios};
use super::{Chosen, KernelChoice};
use crate::commands::job::Job;
use crate::commands::settings::{DEFAULT_WARMUPS, check_block_sizes};
use crate::error::{Console, Error, exit, failed};
use crate::measure::backend::Driver;
use crate::measure::device::{self, command_line};
use crate::measure::ptx::KernelRef;
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::model::stats::{median, quantile};
use crate::results::table;

/// Interleaved rounds `compare` times per block size unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 30;

/// What `block-size compare` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareRequest {
    /// `--device`: the CUDA device ordinal.
    pub device: u32,
    /// The kernel compared and its frame.
    pub kernel: KernelChoice,
    /// `--block-sizes`: threads per block of each row.
    pub block_sizes: Vec<u32>,
    /// `--warmups`: untimed launches of each kernel before the rounds.
    pub warmups: u32,
    /// `--rounds`: interleaved rounds, one timed launch of every kernel at every block size each.
    pub rounds: u32,
    /// `--provenance`: print the provenance lines first.
    pub provenance: bool,
    /// The command line the provenance records: this process's where empty.
    pub command: Vec<String>,
}

impl Default for CompareRequest {
    fn default() -> Self {
        Self {
            device: 0,
            kernel: KernelChoice::default(),
            block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
            warmups: DEFAULT_WARMUPS,
            rounds: DEFAULT_ROUNDS,
            provenance: false,
            command: Vec::new(),
        }
    }
}

impl CompareRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<Chosen, Error> {
        let chosen = self.kernel.chosen()?;
        check_block_sizes(&self.block_sizes).map_err(|message| Error::new(exit::USAGE, message))?;
        if self.rounds == 0 {
            return Err(Error::new(exit::USAGE, "--rounds must be at least 1, not 0"));
        }
        Ok(chosen)
    }
}

/// The kernel's modules on the same buffers, its CUDA C++ twin as the baseline (or, where this
/// driver cannot load that, the first module loaded).
pub(crate) fn exec<D: Driver>(
    driver: &D,
    request: &CompareRequest,
    console: &mut Console,
) -> Result<i32, Error> {
    let Chosen { spec, params } = request.checked()?;
    let options = request;
    let kernels: Vec<KernelRef> = spec.modules.iter().map(|&module| spec.kernel_in(module)).collect();
    let job = Job { spec, params, block_sizes: &options.block_sizes };
    let device::Opened { mut gpu, loaded, .. } =
        crate::commands::job::open_several(driver, options.device, &kernels, job, |_| 0, console)?;
    if options.provenance {
        console.out(&device::provenance_lines(
            &mut gpu,
            driver.cuda_version(),
            &loaded,
            &command_line(&request.command),
        )?);
    }
    let mut workload = crate::commands::job::create_workload(spec, &job.params)?;
    workload.upload(&mut gpu).map_err(failed)?;
    let twin = spec.kernel_in(spec.baseline);
    let baseline = if loaded.contains(&twin) { twin } else { loaded[0] };
    let result = engine::run(
        &mut gpu,
        workload.as_mut(),
        &loaded,
        baseline,
        &options.block_sizes,
        options.warmups,
        options.rounds,
    )
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
    let mut heading = vec!["thr/blk".to_string()];
    for compared in &result.kernels {
        heading.extend([format!("{} blk/SM", compared.kernel.module.label), "ms".into(), "GB/s".into()]);
    }
    for kernel in &others {
        heading.push(format!("{}/{baseline} (p25-p75)", kernel.module.label));
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
                "Fastest {label} row: {} threads per block at {ms:.4} ms ({:.1} GB/s).\n",
                row.threads_per_block,
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
