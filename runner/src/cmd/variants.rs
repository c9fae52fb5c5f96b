/*!
`block-size variants`: after the block size, the memory operations. The grayscale kernel's
variants (vector loads, several pixels per thread) from both compilers, against a
device-to-device copy of the same bytes ([`crate::variants`]).
*/

use super::device::{self, Console, Job, Stop, exit, failed};
use super::{DeviceArgs, FrameArgs, ProvenanceArgs, VariantBlockSizesArgs, WarmupsArgs, unique_block_sizes};
use crate::backend::{Driver, Timing};
use crate::frame_size::{self, FrameSize};
use crate::progress::WithProgress;
use crate::ptx;
use crate::report;
use crate::variants::{self, Candidate, Compiler, VariantRow, Variants};
use crate::workload::grayscale::{self, GrayscaleWorkload};
use crate::workload::{Params, Workload as _};
use clap::Args;
use std::ffi::OsString;

/// Block sizes `variants` sweeps unless told otherwise: the plateau of the one-pixel sweep.
pub const VARIANT_BLOCK_SIZES: [u32; 4] = [128, 256, 512, 1024];

// The options of `block-size variants`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Vector loads and several pixels per thread of the grayscale kernel (grayscale only), in Rust and C++, against a device-to-device copy"
)]
#[cfg_attr(doc, doc = "The options of `block-size variants`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct VariantsArgs {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--block-sizes`.")]
    pub block_sizes: VariantBlockSizesArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    /// Timed launches per row
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), default_value_t = super::DEFAULT_RUNS)]
    pub runs: u32,

    /// How each row's samples sit between CUDA events: launch (the default, as the copy
    /// ceiling: each launch between its own events), batch (--runs samples of 10 launches
    /// between one pair) or cold (one launch a sample after an L2 flush, queued behind a
    /// blocking kernel); the copy ceiling is timed one copy per pair of events in every mode
    #[arg(long, value_name = "MODE", value_enum, default_value = "launch")]
    pub timing: super::TimingArg,

    /// Start every plane this many floats past a 16-byte boundary (1-3: misaligned vectors)
    #[arg(long, value_name = "FLOATS", value_parser = clap::value_parser!(u64).range(0..=1024), default_value_t = 0)]
    pub offset: u64,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,
}

/// What `block-size variants` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantsOptions {
    /// CUDA device ordinal.
    pub device: u32,
    /// The frame every variant converts.
    pub frame: FrameSize,
    /// Threads per block of each row.
    pub block_sizes: Vec<u32>,
    /// Untimed launches before each row.
    pub warmups: u32,
    /// Timed launches per row.
    pub runs: u32,
    /// How each row is timed (`--timing`).
    pub timing_mode: crate::timing::TimingMode,
    /// Elements every buffer starts past an aligned address (`--offset`).
    pub offset: usize,
    /// Print the provenance lines first.
    pub provenance: bool,
}

impl VariantsOptions {
    /// What the workload is built from.
    pub fn params(&self) -> Params {
        Params { offset: self.offset, ..super::params(self.frame, crate::workload::histogram::DEFAULT_BINS) }
    }
}

impl VariantsArgs {
    /// The options, once they hold; the message is one line.
    pub fn validate(&self) -> Result<VariantsOptions, String> {
        Ok(VariantsOptions {
            device: self.device.device,
            frame: self.frame.size(),
            block_sizes: unique_block_sizes(&self.block_sizes.block_sizes)?,
            warmups: self.warmups.warmups,
            runs: self.runs,
            timing_mode: self.timing.mode(),
            offset: self.offset as usize,
            provenance: self.provenance.provenance,
        })
    }
}

/// Every variant from both compilers (those this driver can load), the copy ceiling, one table.
pub fn exec<D: Driver>(
    driver: &D,
    options: &VariantsOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let all = variants::candidates();
    let kernels: Vec<ptx::KernelRef> = all.iter().map(|candidate| candidate.kernel).collect();
    // The copy needs a source and a destination of half a pass each: one more frame.
    let frame_bytes = options.frame.bytes(crate::frame::BYTES_PER_PIXEL);
    let offset_bytes = 64 * options.offset as u64;
    let job = Job { spec: &grayscale::KERNEL, params: options.params(), block_sizes: &options.block_sizes };
    let device::Opened { mut gpu, loaded, .. } = device::open_several(
        driver,
        options.device,
        &kernels,
        job,
        // Saturating: a count past 64 bits then fails the fit check's own checked sum.
        |_| frame_bytes.map_or(u64::MAX, |bytes| bytes.saturating_add(offset_bytes)),
        console,
    )?;
    let candidates: Vec<Candidate> =
        all.into_iter().filter(|candidate| loaded.contains(&candidate.kernel)).collect();
    if options.provenance {
        // One line per module: its first loaded kernel stands for its file.
        let mut firsts: Vec<ptx::KernelRef> = Vec::new();
        for candidate in &candidates {
            if !firsts.iter().any(|first| first.module == candidate.kernel.module) {
                firsts.push(candidate.kernel);
            }
        }
        console.out(&device::provenance_lines(&mut gpu, driver.cuda_version(), &firsts, args)?);
    }
    let mut workload =
        GrayscaleWorkload::new(&job.params).map_err(|error| Stop::new(exit::USAGE, format!("{error:#}")))?;
    workload.upload(&mut gpu).map_err(failed)?;
    // Launch mode by default, as the copy ceiling it is set against: each copy and each
    // launch between its own pair of events.
    let timing = Timing::fixed(options.timing_mode, options.warmups, options.runs);
    let rows = candidates.len() * options.block_sizes.len();
    let mut with_progress = WithProgress::new(&mut gpu, rows);
    let result = variants::run(
        &mut with_progress,
        &mut workload,
        &candidates,
        &options.block_sizes,
        timing,
        options.offset,
    );
    with_progress.finish();
    let result = result.map_err(failed)?;
    console.out(&render(&result));
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: the ceiling, one row per (kernel, block size), and the winners.
pub fn render(result: &Variants) -> String {
    let mut text = report::device_and_image(&result.limits, &result.pass);
    text += &format!(
        "{}; planes start {} floats past a 16-byte boundary\n",
        report::timing_line(result.timing).trim_end(),
        result.offset
    );
    let copy_gbps = result.copy_gigabytes_per_second();
    let peak = variants::datasheet_peak(&result.limits.name);
    text += &format!(
        "Ceiling: cuMemcpyDtoD of {:.1} MiB (read and written: the bytes one pass moves), median {:.4} ms = {:.1} GB/s{}\n\n",
        frame_size::mib(result.bytes_moved() / 2.0),
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
        let candidate = row.candidate;
        let gbps = result.gigabytes_per_second(row.stats.median);
        records.push(vec![
            candidate.compiler.to_string(),
            candidate.variant.name.to_string(),
            row.threads_per_block.to_string(),
            row.registers_per_thread.to_string(),
            row.blocks_per_sm.to_string(),
            row.grid_blocks.to_string(),
            format!("{:.4}", row.stats.median),
            format!("{gbps:.1}"),
            format!("{:.1}%", 100.0 * gbps / copy_gbps),
            peak.map_or_else(|| "-".to_string(), |peak| format!("{:.1}%", 100.0 * gbps / peak)),
        ]);
    }
    text += &report::render_columns(records);
    text.push('\n');
    let describe = |row: &VariantRow| {
        let candidate = row.candidate;
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
    for compiler in Compiler::ALL {
        if let Some(best) = result.fastest(Some(compiler)) {
            text += &format!("Fastest {compiler}: {}.\n", describe(best));
        }
    }
    // Each variant's best Rust row against its best C++ row, where both ran (a module this
    // driver could not load is left out).
    let ratios: Vec<String> = result
        .candidates
        .iter()
        .filter(|candidate| candidate.compiler == Compiler::Rust)
        .filter_map(|candidate| {
            let name = candidate.variant.name;
            let rust = result.fastest_of(result.candidate(Compiler::Rust, name)?)?;
            let cpp = result.fastest_of(result.candidate(Compiler::Cpp, name)?)?;
            Some(format!("{name} {:.3}", rust.stats.median / cpp.stats.median))
        })
        .collect();
    if !ratios.is_empty() {
        text += &format!("Rust / C++ time, best row of each variant: {}.\n", ratios.join(", "));
    }
    text
}

/// Standard error of a `variants` run.
pub fn render_stderr(result: &Variants) -> String {
    let labelled: Vec<String> =
        result.failures.iter().map(|(label, failure)| format!("{label}: {failure}")).collect();
    report::failure_lines(&labelled, "the table above is not a measurement of these kernels")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::parse;

    fn options(args: &[&str]) -> Result<VariantsOptions, String> {
        parse::<VariantsArgs>(args)?.0.validate()
    }

    #[test]
    fn variants_reads_its_options() {
        let asked = options(&["--offset", "3", "--width", "11520", "--height", "5760"]).unwrap();
        assert_eq!((asked.offset, asked.frame), (3, FrameSize::new(11520, 5760)));
        assert_eq!(asked.block_sizes, VARIANT_BLOCK_SIZES);
        assert_eq!(asked.params().offset, 3);
        assert!(options(&["--offset", "2000"]).is_err());
        assert!(options(&["--kernel", "histogram"]).unwrap_err().contains("unexpected argument '--kernel'"));
        assert!(options(&["--bins", "16"]).unwrap_err().contains("unexpected argument '--bins'"));
    }
}
