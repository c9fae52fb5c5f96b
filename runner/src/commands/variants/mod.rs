/*!
`block-size variants`: after the block size, the memory operations. The variants (vector loads,
several pixels per thread) of the grayscale kernel, or with `--kernel histogram` of the
histogram (vector loads of the luma, several per trip, copies of the bins), from both
compilers, against a device-to-device copy of the same bytes ([`crate::commands::variants::engine`]).
*/

pub mod engine;

use self::engine::{Candidate, Compiler, Family, VariantRow, Variants};
use crate::commands::job::Job;
use crate::commands::settings::{DEFAULT_WARMUPS, check_block_sizes};
use crate::error::{Console, Error, exit, failed};
use crate::kernel::workload::grayscale::{self, GrayscaleWorkload};
use crate::kernel::workload::histogram::{self, HistogramWorkload};
use crate::kernel::workload::{KernelSpec, Params};
use crate::measure::backend::{Driver, Timing};
use crate::measure::device::{self, command_line};
use crate::measure::progress::WithProgress;
use crate::measure::ptx;
use crate::measure::timing::TimingMode;
use crate::measure::workload::Workload as _;
use crate::model::frame_size::{self, FrameSize};
use crate::results::table;

/// Block sizes `variants` sweeps unless told otherwise: the plateau of the one-pixel sweep.
pub const VARIANT_BLOCK_SIZES: [u32; 4] = [128, 256, 512, 1024];

/// What `block-size variants` is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantsRequest {
    /// `--device`: the CUDA device ordinal.
    pub device: u32,
    /// `--kernel`: whose shapes, `grayscale` (the default) or `histogram`.
    pub kernel: String,
    /// `--bins`: histogram bins, 1 to 4096 (`--kernel histogram` only; 256 without it).
    pub bins: Option<u32>,
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
    /// `--offset`: elements (floats of every plane, or pixels of the luma) the input starts
    /// past a 16-byte boundary, 0 to 1024.
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
            kernel: grayscale::KERNEL.name.to_string(),
            bins: None,
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

/// The kernels `variants` takes: each family, and the kernel whose frame and checks it uses.
const FAMILIES: [(Family, &KernelSpec); 2] =
    [(Family::Grayscale, &grayscale::KERNEL), (Family::Histogram, &histogram::KERNEL)];

impl VariantsRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<(Family, &'static KernelSpec, Params), Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        let Some(&(family, spec)) = FAMILIES.iter().find(|(_, spec)| spec.name == self.kernel) else {
            let names: Vec<&str> = FAMILIES.iter().map(|(_, spec)| spec.name).collect();
            return Err(usage(format!(
                "variants measures the shapes of --kernel {}, not `{}`",
                names.join(" or "),
                self.kernel
            )));
        };
        for (option, value) in [("--width", self.width), ("--height", self.height), ("--runs", self.runs)] {
            if value == 0 {
                return Err(usage(format!("{option} must be at least 1, not 0")));
            }
        }
        check_block_sizes(&self.block_sizes).map_err(usage)?;
        if self.offset > 1024 {
            return Err(usage(format!("--offset must be 0 to 1024, not {}", self.offset)));
        }
        if self.bins.is_some() && family != Family::Histogram {
            return Err(usage(format!("--bins does not apply to variants of --kernel {}", spec.name)));
        }
        let bins = self.bins.unwrap_or(histogram::DEFAULT_BINS);
        if !(1..=super::MAX_BINS).contains(&bins) {
            return Err(usage(format!("--bins must be 1 to {}, not {bins}", super::MAX_BINS)));
        }
        let frame = FrameSize::new(self.width, self.height);
        let params = Params { offset: self.offset as usize, ..super::params(frame, bins) };
        (spec.validate)(&params).map_err(usage)?;
        Ok((family, spec, params))
    }
}

/// Every variant from both compilers (those this driver can load), the copy ceiling, one table.
pub(crate) fn exec<D: Driver>(
    driver: &D,
    request: &VariantsRequest,
    console: &mut Console,
) -> Result<i32, Error> {
    let (family, spec, params) = request.checked()?;
    let options = request;
    let all = engine::candidates(family);
    let kernels: Vec<ptx::KernelRef> = all.iter().map(|candidate| candidate.kernel).collect();
    // The copy needs a source and a destination of half a pass each: one pass's bytes more,
    // past the workload's own (whose footprint counts the offset).
    let pass_bytes = (spec.pass)(&params).bytes_per_pass as u64;
    let job = Job { spec, params, block_sizes: &options.block_sizes };
    let scratch = pass_bytes.saturating_add(64 * options.offset);
    let device::Opened { mut gpu, loaded, .. } =
        crate::commands::job::open_several(driver, options.device, &kernels, job, |_| scratch, console)?;
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
    let bad_input = |error: anyhow::Error| Error::new(exit::USAGE, format!("{error:#}"));
    // Launch mode by default, as the copy ceiling it is set against: each copy and each
    // launch between its own pair of events.
    let timing = Timing::fixed(options.timing_mode, options.warmups, options.runs);
    let rows = candidates.len() * options.block_sizes.len();
    let offset = options.offset as usize;
    let result = match family {
        Family::Grayscale => {
            let mut workload = GrayscaleWorkload::new(&job.params).map_err(bad_input)?;
            workload.upload(&mut gpu).map_err(failed)?;
            let mut with_progress = WithProgress::new(&mut gpu, rows);
            let result = engine::run(
                &mut with_progress,
                family,
                &mut workload,
                &candidates,
                &options.block_sizes,
                timing,
                offset,
                |_, _| Ok(()),
            );
            with_progress.finish();
            result
        }
        Family::Histogram => {
            let mut workload =
                HistogramWorkload::new(&job.params, &histogram::SHAPES[0]).map_err(bad_input)?;
            workload.upload(&mut gpu).map_err(failed)?;
            let mut with_progress = WithProgress::new(&mut gpu, rows);
            let result = engine::run(
                &mut with_progress,
                family,
                &mut workload,
                &candidates,
                &options.block_sizes,
                timing,
                offset,
                |workload, candidate| {
                    let entry = candidate.kernel.entry;
                    let shape = histogram::shape_of_entry(entry);
                    workload.set_shape(
                        shape.ok_or_else(|| anyhow::anyhow!("no histogram shape has entry {entry}"))?,
                    );
                    Ok(())
                },
            );
            with_progress.finish();
            result
        }
    };
    let mut result = result.map_err(failed)?;
    if family == Family::Histogram {
        result.pass.detail = Some(histogram::variants_detail(job.params.bins));
    }
    console.out(&render(&result));
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: the ceiling, one row per (kernel, block size), and the winners.
pub fn render(result: &Variants) -> String {
    let mut text = table::device_and_image(&result.limits, &result.pass);
    let (start, counted) = match result.family {
        Family::Grayscale => ("planes start {} floats", "the bytes one pass moves"),
        Family::Histogram => ("the luma starts {} pixels", "as many bytes as one pass reads"),
    };
    text += &format!(
        "{}; {} past a 16-byte boundary\n",
        table::timing_line(result.timing).trim_end(),
        start.replace("{}", &result.offset.to_string())
    );
    let copy_gbps = result.copy_gigabytes_per_second();
    let peak = engine::datasheet_peak(&result.limits.name);
    text += &format!(
        "Ceiling: cuMemcpyDtoD of {:.1} MiB (read and written: {counted}), median {:.4} ms = {:.1} GB/s{}\n\n",
        frame_size::mib(result.bytes_moved() / 2.0),
        result.copy.median,
        copy_gbps,
        peak.map_or_else(
            || "; no datasheet peak known for this GPU".to_string(),
            |peak| format!("; datasheet peak {peak:.0} GB/s ({:.1} percent of it)", 100.0 * copy_gbps / peak)
        ),
    );
    // The histogram's shapes ask for different shared memory a block: a column says how much.
    let shared = result.family == Family::Histogram;
    let mut heading = vec!["compiler", "variant", "thr/blk", "regs"];
    if shared {
        heading.push("smem/blk");
    }
    heading.extend(["blk/SM", "grid", "ms", "GB/s", "of copy", "of peak"]);
    let mut records = vec![heading.into_iter().map(String::from).collect::<Vec<_>>()];
    for row in &result.rows {
        let candidate = row.candidate;
        let gbps = result.gigabytes_per_second(row.stats.median);
        let mut record = vec![
            candidate.compiler.to_string(),
            candidate.variant.name.to_string(),
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
    text += &table::render_columns(records);
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
    table::failure_lines(&labelled, "the table above is not a measurement of these kernels")
}
