/*!
`block-size tail`: what a partial last wave costs. One block size, the same frame, grids of
0.5 to 8 waves ([`crate::tail`]), each row against the one-wave grid.
*/

use super::device::{self, Console, Job, Stop, exit, failed};
use super::{DeviceArgs, FrameArgs, Given, KernelArgs, ProvenanceArgs, TimingArgs};
use crate::backend::{Driver, Timing};
use crate::frame_size::FrameSize;
use crate::progress::Phase;
use crate::report;
use crate::tail::{self, DEFAULT_WAVES, Tail};
use crate::workload::{KernelSpec, Params};
use clap::{ArgAction, Args};
use std::ffi::OsString;

// The options of `block-size tail`.
#[derive(Args, Debug, Clone, PartialEq)]
#[command(
    about = "What a partial last wave costs: one block size, grids of 0.5 to 8 waves over the same frame"
)]
#[cfg_attr(doc, doc = "The options of `block-size tail`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TailArgs {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--kernel` and `--bins`.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    /// Threads per block, 1 to the device's maximum
    #[arg(long, id = "block-size", value_name = "THREADS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = 256)]
    pub block_size: u32,

    /// Grid sizes in waves (blocks/SM x SMs), comma-separated, each above 0
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_values_t = DEFAULT_WAVES,
        action = ArgAction::Set
    )]
    pub waves: Vec<f64>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The timing options.")]
    pub timing: TimingArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,
}

/// What `block-size tail` was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct TailOptions {
    /// CUDA device ordinal.
    pub device: u32,
    /// The kernel measured.
    pub kernel: &'static KernelSpec,
    /// Histogram bins (`--bins`).
    pub bins: u32,
    /// The frame the kernel converts.
    pub frame: FrameSize,
    /// The one block size every grid is launched with.
    pub threads_per_block: u32,
    /// The grids, in waves (blocks/SM x SMs blocks each).
    pub waves: Vec<f64>,
    /// How each row is timed: `--timing`, its counts and the L2 flush.
    pub timing: Timing,
    /// Print the provenance lines first.
    pub provenance: bool,
}

impl TailOptions {
    /// What the workload is built from.
    pub fn params(&self) -> Params {
        super::params(self.frame, self.bins)
    }

    /// How each row is timed.
    pub fn timing(&self) -> Timing {
        self.timing
    }
}

impl TailArgs {
    /// The options, once every check that needs no device holds; the message is one line.
    pub fn validate(&self, given: Given) -> Result<TailOptions, String> {
        if let Some(bad) =
            self.waves.iter().find(|waves| !(waves.is_finite() && **waves > 0.0 && **waves <= 1000.0))
        {
            return Err(format!("--waves {bad} is not a grid size: give waves above 0 and at most 1000"));
        }
        let (kernel, bins) = self.kernel.choice(given)?;
        let options = TailOptions {
            device: self.device.device,
            kernel,
            bins,
            frame: self.frame.size(),
            threads_per_block: self.block_size,
            waves: self.waves.clone(),
            timing: self.timing.timing(given)?,
            provenance: self.provenance.provenance,
        };
        (kernel.validate)(&options.params())?;
        Ok(options)
    }
}

/// One block size, grids of several waves, the same frame.
pub fn exec<D: Driver>(
    driver: &D,
    options: &TailOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let spec = options.kernel;
    let kernel = spec.rust_kernel();
    let job = Job { spec, params: options.params(), block_sizes: &[options.threads_per_block] };
    let mut gpu = device::open_one(
        driver,
        options.device,
        kernel,
        job,
        device::flush_scratch(options.timing.flushes()),
    )?;
    if options.provenance {
        console.out(&device::provenance_lines(&mut gpu, driver.cuda_version(), &[kernel], args)?);
    }
    let building = Phase::start("building the frame and its CPU reference on every core");
    let workload = device::create_workload(spec, &job.params);
    building.finish();
    let mut workload = workload?;
    let uploading = Phase::start("uploading the frame");
    let uploaded = workload.upload(&mut gpu);
    uploading.finish();
    uploaded.map_err(failed)?;
    let result =
        tail::run(&mut gpu, workload.as_mut(), options.threads_per_block, &options.waves, options.timing())
            .map_err(failed)?;
    console.out(&render(&result));
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: the grid sizes, how full their last wave is, and what each costs against the
/// one-wave grid.
pub fn render(result: &Tail) -> String {
    let mut text = report::device_and_image(&result.limits, &result.pass);
    text += &report::timing_line(result.timing);
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
    text += &report::render_columns(records);
    text
}

/// Standard error of the tail experiment.
pub fn render_stderr(result: &Tail) -> String {
    report::failure_lines(&result.failures, "the table above is not a measurement of this kernel")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::parse;
    use crate::timing::{NoiseStop, TimingMode};

    fn options(args: &[&str]) -> Result<TailOptions, String> {
        let (parsed, matches) = parse::<TailArgs>(args)?;
        parsed.validate(Given(Some(&matches)))
    }

    #[test]
    fn tail_reads_its_options_and_rejects_empty_grids() {
        let options_of = |args: &[&str]| options(args).unwrap();
        let asked = options_of(&["--block-size", "128", "--waves", "1,1.25"]);
        assert_eq!((asked.threads_per_block, asked.waves), (128, vec![1.0, 1.25]));
        let defaults = options_of(&[]);
        assert_eq!(
            (defaults.frame, defaults.timing),
            (
                FrameSize::new(super::super::DEFAULT_WIDTH, super::super::DEFAULT_HEIGHT),
                Timing::fixed(
                    TimingMode::Batch,
                    super::super::DEFAULT_WARMUPS,
                    super::super::DEFAULT_MIN_RUNS
                )
                .until(NoiseStop::DEFAULT)
            )
        );
        let asked = options_of(&["--timing", "launch", "--runs", "4", "--warmups", "1", "--flush-l2"]);
        assert_eq!(asked.timing, Timing { flush_l2: true, ..Timing::launch(1, 4) });
        assert_eq!(defaults.waves, DEFAULT_WAVES);
        for bad in ["0", "-1", "nan", "inf"] {
            assert!(options(&["--waves", bad]).is_err(), "{bad}");
        }
        assert_eq!(
            options(&["--waves", "1001"]).unwrap_err(),
            "--waves 1001 is not a grid size: give waves above 0 and at most 1000"
        );
        assert_eq!(options_of(&["--kernel", "histogram", "--bins", "300"]).kernel.name, "histogram");
    }
}
