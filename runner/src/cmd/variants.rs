/*!
`block-size variants`: after the block size, the memory operations. The grayscale kernel's
variants (vector loads, several pixels per thread) from both compilers, against a
device-to-device copy of the same bytes ([`crate::variants`]).
*/

use super::device::{self, Job, command_line};
use crate::backend::{Driver, Timing};
use crate::error::{Console, Error, exit, failed};
use crate::frame_size::{self, FrameSize};
use crate::progress::WithProgress;
use crate::ptx;
use crate::report;
use crate::settings::{DEFAULT_WARMUPS, check_block_sizes};
use crate::timing::TimingMode;
use crate::variants::{self, Candidate, Compiler, VariantRow, Variants};
use crate::workload::grayscale::{self, GrayscaleWorkload};
use crate::workload::{Params, Workload as _};

/// Block sizes `variants` sweeps unless told otherwise: the plateau of the one-pixel sweep.
pub const VARIANT_BLOCK_SIZES: [u32; 4] = [128, 256, 512, 1024];

/// What `block-size variants` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantsRequest {
    /// `--device`: the CUDA device ordinal.
    pub device: u32,
    /// `--width`: the frame's width, at least 1.
    pub width: u32,
    /// `--height`: the frame's height, at least 1.
    pub height: u32,
    /// `--block-sizes`: threads per block of each row ([`VARIANT_BLOCK_SIZES`]).
    pub block_sizes: Vec<u32>,
    /// `--warmups`: untimed launches before each row.
    pub warmups: u32,
    /// `--runs`: timed launches per row, at least 1.
    pub runs: u32,
    /// `--timing`: how each row is timed (launch, as the copy ceiling).
    pub timing_mode: TimingMode,
    /// `--offset`: floats every plane starts past a 16-byte boundary, 0 to 1024.
    pub offset: u64,
    /// `--provenance`: print the provenance lines first.
    pub provenance: bool,
    /// The command line the provenance records: this process's where empty.
    pub command: Vec<String>,
}

impl Default for VariantsRequest {
    fn default() -> Self {
        Self {
            device: 0,
            width: super::DEFAULT_WIDTH,
            height: super::DEFAULT_HEIGHT,
            block_sizes: VARIANT_BLOCK_SIZES.to_vec(),
            warmups: DEFAULT_WARMUPS,
            runs: super::DEFAULT_RUNS,
            timing_mode: TimingMode::Launch,
            offset: 0,
            provenance: false,
            command: Vec::new(),
        }
    }
}

impl VariantsRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.params().map(|_| ())
    }

    fn params(&self) -> Result<Params, Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        for (option, value) in [("--width", self.width), ("--height", self.height), ("--runs", self.runs)] {
            if value == 0 {
                return Err(usage(format!("{option} must be at least 1, not 0")));
            }
        }
        check_block_sizes(&self.block_sizes).map_err(usage)?;
        if self.offset > 1024 {
            return Err(usage(format!("--offset must be 0 to 1024, not {}", self.offset)));
        }
        let frame = FrameSize::new(self.width, self.height);
        Ok(Params {
            offset: self.offset as usize,
            ..super::params(frame, crate::workload::histogram::DEFAULT_BINS)
        })
    }
}

/// Every variant from both compilers (those this driver can load), the copy ceiling, one table.
pub(crate) fn exec<D: Driver>(
    driver: &D,
    request: &VariantsRequest,
    console: &mut Console,
) -> Result<i32, Error> {
    let params = request.params()?;
    let options = request;
    let all = variants::candidates();
    let kernels: Vec<ptx::KernelRef> = all.iter().map(|candidate| candidate.kernel).collect();
    // The copy needs a source and a destination of half a pass each: one more frame.
    let frame_bytes = params.frame.bytes(crate::workload::grayscale::frame::BYTES_PER_PIXEL);
    let offset_bytes = 64 * options.offset;
    let job = Job { spec: &grayscale::KERNEL, params, block_sizes: &options.block_sizes };
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
        console.out(&device::provenance_lines(
            &mut gpu,
            driver.cuda_version(),
            &firsts,
            &command_line(&request.command),
        )?);
    }
    let mut workload =
        GrayscaleWorkload::new(&job.params).map_err(|error| Error::new(exit::USAGE, format!("{error:#}")))?;
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
        options.offset as usize,
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
