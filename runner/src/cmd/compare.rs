/*!
`block-size compare`: the same kernel from every compiler that builds it (for the grayscale
kernel cuda_builder, nvcc and rustc's NVPTX backend; for the histogram cuda_builder and nvcc),
on the same device buffers, timed side by side in interleaved rounds ([`crate::compare`]),
each against its CUDA C++ twin.
*/

use super::device::{self, Console, Job, Stop, exit, failed};
use super::{
    BlockSizesArgs, DeviceArgs, FrameArgs, Given, KernelArgs, ProvenanceArgs, WarmupsArgs, unique_block_sizes,
};
use crate::backend::Driver;
use crate::compare::{self, Comparison, round_ratios};
use crate::frame_size::FrameSize;
use crate::ptx::KernelRef;
use crate::report;
use crate::stats::{median, quantile};
use crate::workload::{KernelSpec, Params};
use clap::Args;
use std::ffi::OsString;

/// Interleaved rounds `compare` times per block size unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 30;

// The options of `block-size compare`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "The kernel from cuda_builder and nvcc (and, for grayscale, rustc's NVPTX backend), timed side by side in interleaved rounds"
)]
#[cfg_attr(doc, doc = "The options of `block-size compare`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct CompareArgs {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--kernel` and `--bins`.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--block-sizes`.")]
    pub block_sizes: BlockSizesArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    /// Interleaved rounds timed per block size
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_ROUNDS)]
    pub rounds: u32,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,
}

/// What `block-size compare` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareOptions {
    /// CUDA device ordinal.
    pub device: u32,
    /// The kernel compared.
    pub kernel: &'static KernelSpec,
    /// Histogram bins (`--bins`).
    pub bins: u32,
    /// The frame every kernel converts.
    pub frame: FrameSize,
    /// Threads per block of each row.
    pub block_sizes: Vec<u32>,
    /// Untimed launches of each kernel before the rounds.
    pub warmups: u32,
    /// Interleaved rounds: one timed launch of every kernel at every block size each.
    pub rounds: u32,
    /// Print the provenance lines first.
    pub provenance: bool,
}

impl CompareOptions {
    /// What the workload is built from.
    pub fn params(&self) -> Params {
        super::params(self.frame, self.bins)
    }
}

impl CompareArgs {
    /// The options, once every check that needs no device holds; the message is one line.
    pub fn validate(&self, given: Given) -> Result<CompareOptions, String> {
        let (kernel, bins) = self.kernel.choice(given)?;
        let options = CompareOptions {
            device: self.device.device,
            kernel,
            bins,
            frame: self.frame.size(),
            block_sizes: unique_block_sizes(&self.block_sizes.block_sizes)?,
            warmups: self.warmups.warmups,
            rounds: self.rounds,
            provenance: self.provenance.provenance,
        };
        (kernel.validate)(&options.params())?;
        Ok(options)
    }
}

/// The kernel's modules on the same buffers, its CUDA C++ twin as the baseline (or, where this
/// driver cannot load that, the first module loaded).
pub fn exec<D: Driver>(
    driver: &D,
    options: &CompareOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let spec = options.kernel;
    let kernels: Vec<KernelRef> = spec.modules.iter().map(|&module| spec.kernel_in(module)).collect();
    let job = Job { spec, params: options.params(), block_sizes: &options.block_sizes };
    let device::Opened { mut gpu, loaded, .. } =
        device::open_several(driver, options.device, &kernels, job, |_| 0, console)?;
    if options.provenance {
        console.out(&device::provenance_lines(&mut gpu, driver.cuda_version(), &loaded, args)?);
    }
    let mut workload = device::create_workload(spec, &job.params)?;
    workload.upload(&mut gpu).map_err(failed)?;
    let twin = spec.kernel_in(spec.baseline);
    let baseline = if loaded.contains(&twin) { twin } else { loaded[0] };
    let result = compare::run(
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
    let mut text = report::device_and_image(&result.limits, &result.pass);
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
    text += &report::render_columns(records);
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
    report::failure_lines(&result.failures, "the comparison above is not a measurement of these kernels")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::parse;
    use crate::sweep::DEFAULT_BLOCK_SIZES;
    use crate::workload::{grayscale, histogram};

    fn options(args: &[&str]) -> Result<CompareOptions, String> {
        let (parsed, matches) = parse::<CompareArgs>(args)?;
        parsed.validate(Given(Some(&matches)))
    }

    #[test]
    fn compare_reads_its_own_options() {
        assert_eq!(
            options(&["--width", "8160", "--height", "8160", "--rounds", "5"]),
            Ok(CompareOptions {
                device: 0,
                kernel: &grayscale::KERNEL,
                bins: histogram::DEFAULT_BINS,
                frame: FrameSize::new(8160, 8160),
                block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
                warmups: super::super::DEFAULT_WARMUPS,
                rounds: 5,
                provenance: false,
            })
        );
        assert!(options(&["--rounds", "0"]).is_err());
        assert!(options(&["--runs", "3"]).unwrap_err().contains("unexpected argument '--runs'"));
        assert_eq!(
            options(&["--kernel", "histogram", "--bins", "1"])
                .map(|options| (options.kernel.name, options.bins)),
            Ok(("histogram", 1))
        );
        assert_eq!(
            options(&["--bins", "7"]).unwrap_err(),
            "--bins does not apply to --kernel grayscale; it is an option of --kernel histogram"
        );
    }
}
