/*!
`block-size tail`: what a partial last wave costs. One block size, the same frame, grids of
0.5 to 8 waves ([`crate::tail`]), each row against the one-wave grid.
*/

use super::device::{self, Console, Job, Stop, exit, failed};
use super::{DeviceArgs, FrameArgs, Given, KernelArgs, ProvenanceArgs};
use crate::backend::{Driver, Timing};
use crate::frame_size::FrameSize;
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
pub struct TailArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,

    #[command(flatten)]
    pub device: DeviceArgs,

    #[command(flatten)]
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

    /// Untimed launches before each row
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..), default_value_t = super::DEFAULT_WARMUPS)]
    pub warmups: u32,

    /// Timed launches per row
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), default_value_t = super::DEFAULT_RUNS)]
    pub runs: u32,

    /// Evict L2 before each timed launch
    #[arg(long, id = "flush-l2")]
    pub flush_l2: bool,

    #[command(flatten)]
    pub provenance: ProvenanceArgs,
}

/// What `block-size tail` was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct TailOptions {
    pub device: u32,
    pub kernel: &'static KernelSpec,
    pub bins: u32,
    pub frame: FrameSize,
    pub threads_per_block: u32,
    pub waves: Vec<f64>,
    pub warmups: u32,
    pub runs: u32,
    pub flush_l2: bool,
    pub provenance: bool,
}

impl TailOptions {
    pub fn params(&self) -> Params {
        super::params(self.frame, self.bins)
    }

    pub fn timing(&self) -> Timing {
        Timing { warmups: self.warmups, runs: self.runs, flush_l2: self.flush_l2 }
    }
}

impl TailArgs {
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
            warmups: self.warmups,
            runs: self.runs,
            flush_l2: self.flush_l2,
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
    let mut gpu =
        device::open_one(driver, options.device, kernel, job, device::flush_scratch(options.flush_l2))?;
    if options.provenance {
        console.out(&device::provenance_lines(&mut gpu, driver.cuda_version(), &[kernel], args)?);
    }
    let mut workload = device::create_workload(spec, &job.params)?;
    workload.upload(&mut gpu).map_err(failed)?;
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
            (defaults.frame, defaults.runs, defaults.flush_l2),
            (
                FrameSize::new(super::super::DEFAULT_WIDTH, super::super::DEFAULT_HEIGHT),
                super::super::DEFAULT_RUNS,
                false
            )
        );
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
