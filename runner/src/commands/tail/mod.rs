/*!
`block-size tail`: what a partial last wave costs. One block size, the same frame, grids of
0.5 to 8 waves ([`crate::commands::tail::engine`]), each row against the one-wave grid.
*/

pub mod engine;

use self::engine::Tail;
use super::{Chosen, KernelChoice};
use crate::commands::job::Job;
use crate::commands::settings::TimingSettings;
use crate::error::{Console, Error, exit, failed};
use crate::measure::backend::Driver;
use crate::measure::device::{self, command_line};
use crate::measure::progress::Phase;
use crate::measure::timing::Timing;
use crate::results::table;

pub use crate::commands::tail::engine::DEFAULT_WAVES;

/// What `block-size tail` is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct TailRequest {
    /// `--device`: the CUDA device ordinal.
    pub device: u32,
    /// The kernel measured and its frame.
    pub kernel: KernelChoice,
    /// `--block-size`: the one block size every grid is launched with (256).
    pub threads_per_block: u32,
    /// `--waves`: the grids, in waves (blocks/SM x SMs blocks each), each above 0 and at most
    /// 1000.
    pub waves: Vec<f64>,
    /// The timing options, as the sweep's.
    pub timing: TimingSettings,
    /// `--provenance`: print the provenance lines first.
    pub provenance: bool,
    /// The command line the provenance records: this process's where empty.
    pub command: Vec<String>,
}

impl Default for TailRequest {
    fn default() -> Self {
        Self {
            device: 0,
            kernel: KernelChoice::default(),
            threads_per_block: 256,
            waves: DEFAULT_WAVES.to_vec(),
            timing: TimingSettings::default(),
            provenance: false,
            command: Vec::new(),
        }
    }
}

impl TailRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<(Chosen, Timing), Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        if self.waves.is_empty() {
            return Err(usage("--waves lists no grid size".to_string()));
        }
        if let Some(bad) =
            self.waves.iter().find(|waves| !(waves.is_finite() && **waves > 0.0 && **waves <= 1000.0))
        {
            return Err(usage(format!(
                "--waves {bad} is not a grid size: give waves above 0 and at most 1000"
            )));
        }
        if self.threads_per_block == 0 {
            return Err(usage("--block-size must be at least 1, not 0".to_string()));
        }
        let chosen = self.kernel.chosen()?;
        Ok((chosen, self.timing.validate()?))
    }
}

/// One block size, grids of several waves, the same frame.
pub(crate) fn exec<D: Driver>(
    driver: &D,
    request: &TailRequest,
    console: &mut Console,
) -> Result<i32, Error> {
    let (Chosen { spec, params }, timing) = request.checked()?;
    let options = request;
    let kernel = spec.rust_kernel();
    let job = Job { spec, params, block_sizes: &[options.threads_per_block] };
    let mut gpu = crate::commands::job::open_one(
        driver,
        options.device,
        kernel,
        job,
        device::flush_scratch(timing.flushes()),
    )?;
    if options.provenance {
        console.out(&device::provenance_lines(
            &mut gpu,
            driver.cuda_version(),
            &[kernel],
            &command_line(&request.command),
        )?);
    }
    let building = Phase::start("building the frame and its CPU reference on every core");
    let workload = crate::commands::job::create_workload(spec, &job.params);
    building.finish();
    let mut workload = workload?;
    let uploading = Phase::start("uploading the frame");
    let uploaded = workload.upload(&mut gpu);
    uploading.finish();
    uploaded.map_err(failed)?;
    let result = engine::run(&mut gpu, workload.as_mut(), options.threads_per_block, &options.waves, timing)
        .map_err(failed)?;
    console.out(&render(&result));
    console.err(&render_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// The report: the grid sizes, how full their last wave is, and what each costs against the
/// one-wave grid.
pub fn render(result: &Tail) -> String {
    let mut text = table::device_and_image(&result.limits, &result.pass);
    text += &table::timing_line(result.timing);
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
    text += &table::render_columns(records);
    text
}

/// Standard error of the tail experiment.
pub fn render_stderr(result: &Tail) -> String {
    table::failure_lines(&result.failures, "the table above is not a measurement of this kernel")
}
