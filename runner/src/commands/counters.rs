/*!
`--counters` in the sweep, `compare`, `variants` and `tail`: after the rows are timed, the
device-to-device copy their DRAM rates are a percentage of, timed in the same process, then the
device let go and each measured row's counters read from the driver's
[`CounterSource`](crate::measure::profiler::CounterSource) ([`read_launches`], the sweep's
[`read`]); and the other side of Nsight Compute's replay, this program run again under `ncu`,
which launches every configuration once and lists them (the sweep's [`replay`], and every
command's [`list_launches`]).
*/

use crate::commands::session;
use crate::commands::settings::Settings;
use crate::error::{Error, exit};
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Driver, Gpu};
use crate::measure::profiler::{CounterRequest, Launched, ReplayOrder, write_launched};
use crate::measure::sampling::timing::Timing;
use crate::model::axis_values::configuration_label;
use crate::model::counters::{Counters, CountersRun};
use crate::model::stats::RunStats;
use crate::search::strategy;
use crate::search::strategy::Search;
use crate::search::sweep::{self, Row, Sweep};

/// The fewest bytes the ceiling's copy moves each way: on the H200 a copy of a 4K frame's
/// half pass (63 MiB) reached 3463 GB/s and one of the histogram's (8 MiB) 2025 GB/s, below what
/// a kernel reached, where a larger copy reaches the device's sustained rate.
pub(crate) const COPY_AT_LEAST: usize = 256 << 20;

/// Bytes the ceiling's copy moves each way: half a pass's (as many read and written as one
/// pass moves), and at least [`COPY_AT_LEAST`].
fn copy_bytes(bytes_per_pass: f64) -> usize {
    ((bytes_per_pass / 2.0) as usize).max(COPY_AT_LEAST)
}

/// Device memory `--counters` needs beside the kernel's buffers: the copy's source and
/// destination.
pub(crate) fn scratch(bytes_per_pass: f64) -> u64 {
    2 * copy_bytes(bytes_per_pass) as u64
}

/// What a replay launched in a row's place.
fn launched(row: &Row) -> Launched {
    Launched { label: configuration_label(row.block, &row.axes), block: row.block, grid: row.grid }
}

/// Times the copy the counters' DRAM rates are a percentage of, on `gpu` with `timing`: bytes
/// per second, read and written; `None` (and a warning line) where it failed.
fn time_copy(
    gpu: &mut dyn Gpu,
    bytes_per_pass: f64,
    timing: Timing,
    warnings: &mut Vec<String>,
) -> Option<f64> {
    let bytes = copy_bytes(bytes_per_pass);
    match gpu.time_copy(bytes, Timing { energy_window: None, ..timing }) {
        Ok(samples) if !samples.is_empty() => {
            let median_ms = RunStats::of(&samples).median;
            // Read and written: twice the bytes copied.
            (median_ms > 0.0).then(|| 2.0 * bytes as f64 / (median_ms * 1e-3))
        }
        Ok(_) => None,
        Err(error) => {
            warnings.push(format!(
                "Warning: the device-to-device copy failed ({error:#}): no percentage of it\n"
            ));
            None
        }
    }
}

/// Reads `sweep`'s measured rows' counters on device `ordinal` ([`read_launches`]), `gpu`
/// given up for it. What cannot be read is a warning line and `n/a` in the table, never a
/// failed sweep.
pub(crate) fn read<D: Driver>(
    driver: &D,
    gpu: D::Device,
    ordinal: u32,
    sweep: &mut Sweep,
    timing: Timing,
    warnings: &mut Vec<String>,
) {
    let measured: Vec<usize> = (0..sweep.rows.len()).filter(|&index| sweep.rows[index].measured()).collect();
    let launches = measured.iter().map(|&index| launched(&sweep.rows[index])).collect();
    let (run, counters) =
        read_launches(driver, gpu, ordinal, sweep.pass.bytes_per_pass, timing, launches, warnings);
    for (&index, counters) in measured.iter().zip(counters) {
        sweep.rows[index].counters = counters;
    }
    sweep.counters = Some(run);
}

/// The counters of `launches` (a command's measured configurations, each labelled as its
/// replay labels it) on device `ordinal`, in order, and the run's: the copy timed on `gpu` with
/// `timing` (the rows' own), then `gpu` let go, then `driver`'s source read. Letting go first
/// puts the replay's buffers where a run of its own puts them: on the H200 the grayscale
/// kernel's L2 hit rate read 26.7 to 27.0 percent beside a process that still held its
/// buffers, 25.9 alone. What cannot be read is a warning line in `warnings` and `None`
/// counters, never an error.
pub(crate) fn read_launches<D: Driver>(
    driver: &D,
    mut gpu: D::Device,
    ordinal: u32,
    bytes_per_pass: f64,
    timing: Timing,
    launches: Vec<Launched>,
    warnings: &mut Vec<String>,
) -> (CountersRun, Vec<Option<Counters>>) {
    let copy_bytes_per_second = time_copy(&mut gpu, bytes_per_pass, timing, warnings);
    drop(gpu);
    let asked = launches.len();
    let request = CounterRequest { device: ordinal, rows: launches };
    let mut run = CountersRun { copy_bytes_per_second, profiler: None, unavailable: None };
    match driver.counter_source().read(&request) {
        Ok(reading) => {
            let missing = reading.rows.iter().filter(|counters| counters.is_none()).count();
            if missing > 0 {
                warnings.push(format!(
                    "Warning: {} has no counters for {missing} of {asked} row(s): they say n/a\n",
                    reading.profiler
                ));
            }
            run.profiler = Some(reading.profiler);
            (run, reading.rows)
        }
        Err(why) => {
            warnings.push(format!("Warning: no hardware counters ({why}): their columns say n/a\n"));
            run.unavailable = Some(why);
            (run, vec![None; asked])
        }
    }
}

/// This process is a replay under a profiler ([`ReplayOrder`]): every configuration of the
/// sweep its settings make is launched once on the ordered device, unchecked and untimed for
/// any table, and what was launched is listed, in order, where the order says. Nothing is
/// printed and no file of the settings is written.
pub(crate) fn replay<D: Driver>(
    driver: &D,
    run: &mut Run,
    settings: &Settings,
    order: &ReplayOrder,
) -> Result<i32, Error> {
    let kernel = run.kernel();
    let blocks = settings.blocks_of(kernel).map_err(|why| Error::new(exit::USAGE, why))?;
    let kernels = kernel.kernels();
    let session::Opened { mut gpu, .. } =
        session::open(driver, order.device, &kernels, session::Loading::Every)?;
    session::prepare(
        &mut gpu,
        run,
        &session::Preparation {
            blocks: &blocks,
            scratch: 0,
            describe: None,
            cuda_version: driver.cuda_version(),
            upload: false,
        },
    )?;
    let plan = sweep::Plan {
        blocks,
        timing: Timing::launch(0, 1),
        grid: settings.grid,
        corrupt: None,
        round: sweep::Round::Replay,
        shard: settings.shard,
        bounds: None,
        rungs_budget: sweep::RungsBudget::default(),
    };
    let swept = strategy::measure(run, &mut gpu, &plan, Search::Exhaustive, None, &mut Vec::new())?;
    let launches: Vec<Launched> = swept.rows.iter().filter(|row| row.measured()).map(launched).collect();
    list_launches(order, &launches)
}

/// Ends a replay: lists what it launched, in order, where `order` says; its exit status.
pub(crate) fn list_launches(order: &ReplayOrder, launched: &[Launched]) -> Result<i32, Error> {
    write_launched(&order.launched, launched).map_err(|error| {
        Error::new(
            exit::FAILED,
            format!("the replay's list of launches, {}: {error}", order.launched.display()),
        )
    })?;
    Ok(exit::SUCCESS)
}
