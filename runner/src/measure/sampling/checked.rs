/*!
One measured launch configuration, checked: zero the workload's outputs, run the timed
launches, and check what they computed (on the GPU against a reference kept there, or copied
back and compared on the host: [`Workload::check`]). The sweep, `compare`, `tail` and `variants`
all measure this way, so none of them can time a configuration without checking it; a later
round of a search samples a configuration its first round checked ([`Verdict::Known`]).
*/

use crate::measure::sampling::workload::Workload;

use crate::measure::gpu::backend::{Gpu, Launch, Timing};
use crate::measure::sampling::timing::{COLD_WINDOW, Op, Stopped, TimingMode, decide, next_chunk, schedule};
use crate::measure::sensors::{ClockReading, RowClock, RowEnergy, throttled};
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::mismatch::Mismatch;
use anyhow::{Context as _, Result};
use std::time::Duration;

/// One row's samples, why they stopped (`None`: a fixed count) and the SM clock they ran at.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Each sample's milliseconds, in order.
    pub run_ms: Vec<f32>,
    /// Why the noise-driven stop ended the row (`None`: a fixed count).
    pub stopped: Option<Stopped>,
    /// The SM clock while they ran (`None`: the device has no sensors).
    pub clock: Option<RowClock>,
}

/// Most samples one call of [`sample`] asks for at once in batch, launch and graph modes.
const CHUNK_CAP: u32 = 64;

/// The clock readings of one row: one after each chunk of samples.
#[derive(Default)]
struct ClockLog {
    kept: Vec<(ClockReading, usize)>,
    throttled_samples: u32,
    reasons: Vec<String>,
    /// The device has no sensors, or a read failed: the row's clock is `n/a`.
    unread: bool,
}

impl ClockLog {
    /// Reads the clock after a chunk of `samples`: whether to keep them. A throttled chunk
    /// is dropped where `may_retake` (the row's budget lasts), else kept; counted either way.
    fn read(&mut self, gpu: &mut dyn Gpu, samples: usize, may_retake: bool) -> bool {
        if self.unread || samples == 0 {
            return true;
        }
        let reading = gpu.sensors().ok().and_then(|sensors| {
            let default = sensors.default_sm_mhz();
            sensors.clock().ok().map(|reading| (reading, default))
        });
        let Some((reading, default_sm_mhz)) = reading else {
            self.unread = true;
            return true;
        };
        if let Some(why) = throttled(reading, default_sm_mhz) {
            self.throttled_samples += samples as u32;
            if !self.reasons.contains(&why) {
                self.reasons.push(why);
            }
            if may_retake {
                return false;
            }
        }
        self.kept.push((reading, samples));
        true
    }

    fn row(self) -> Option<RowClock> {
        if self.unread {
            return None;
        }
        RowClock::of(&self.kept, self.throttled_samples, self.reasons)
    }
}

/// Times `launch` on `gpu`: `timing.warmups` warm-ups, then `timing.runs` samples of
/// `timing.mode`, or with [`Timing::stop`] at least that many and more, a chunk at a time,
/// until [`decide`] stops the row. With [`Timing::min_sample`], the first sample also times a
/// launch: where it is shorter than that, it is dropped and the row's samples take as many
/// launches as [`Timing::grown_launches`] gives. The budget counts from after the warm-ups, on
/// [`Gpu::clock`]. Where the device has sensors, the SM clock is read after each chunk, and
/// a chunk read throttled ([`throttled`]) is dropped and taken again while the budget lasts.
///
/// `prior`: samples the row already holds (a race's first round), which the noise-driven stop
/// counts with the new ones, their own time spent from its budget, so that a row sampled on
/// stops where one measured at once would; only the new samples are returned.
pub fn sample(gpu: &mut dyn Gpu, launch: &Launch, timing: &Timing, prior: &[f32]) -> Result<Samples> {
    let zero = !launch.zero_before_each.is_empty();
    stop_if_interrupted()?;
    let mut clocks = ClockLog::default();
    let mut timing = *timing;
    let mut run_ms = Vec::new();
    if timing.may_grow() {
        // The warm-ups and one sample, which times a launch: the row's first sample where it
        // lasts long enough, else dropped and the row sampled at more launches a sample.
        let first = gpu.run_schedule(launch, &schedule(&timing, timing.warmups, 1, zero))?;
        let launches = timing.grown_launches(first.first().map_or(0.0, |&ms| f64::from(ms)));
        if launches > timing.launches() {
            timing.launches_per_sample = launches;
        } else if clocks.read(gpu, first.len(), true) {
            // A throttled one is dropped (and counted), as a throttled chunk is.
            run_ms = first;
        }
        (timing.warmups, timing.min_sample) = (0, None);
    }
    let Some(stop) = timing.stop else {
        let left = timing.runs.saturating_sub(run_ms.len() as u32);
        if left > 0 {
            run_ms.extend(gpu.run_schedule(launch, &schedule(&timing, timing.warmups, left, zero))?);
        }
        clocks.read(gpu, run_ms.len(), false);
        return Ok(Samples { run_ms, stopped: None, clock: clocks.row() });
    };
    if timing.warmups > 0 {
        gpu.run_schedule(launch, &schedule(&timing, timing.warmups, 0, zero))?;
    }
    let cap = if timing.mode == TimingMode::Cold { COLD_WINDOW } else { CHUNK_CAP };
    // The prior samples' own time, spent from the budget before this round's first.
    let prior_spent = timing.samples_own_time(prior);
    let started = gpu.clock();
    let mut all: Vec<f32> = prior.to_vec();
    loop {
        stop_if_interrupted()?;
        let elapsed = gpu.clock().saturating_sub(started) + prior_spent;
        all.truncate(prior.len());
        all.extend_from_slice(&run_ms);
        if let Some(stopped) = decide(&all, timing.runs, &stop, elapsed) {
            return Ok(Samples { run_ms, stopped: Some(stopped), clock: clocks.row() });
        }
        let chunk = next_chunk(all.len() as u32, timing.runs, &stop, elapsed, cap);
        let taken = gpu.run_schedule(launch, &schedule(&timing, 0, chunk, zero))?;
        let budget_left = gpu.clock().saturating_sub(started) + prior_spent < stop.max_time_per_row;
        if clocks.read(gpu, taken.len(), budget_left) {
            run_ms.extend(taken);
        }
    }
}

/// Host time of GPU work each chunk of the energy window queues.
const ENERGY_CHUNK: Duration = Duration::from_millis(10);

/// Chunks the energy window keeps queued, so that the GPU never waits for the host while it
/// reads the counter (a read takes 4 ms on the H200).
const ENERGY_CHUNKS_QUEUED: usize = 4;

/// The most launches one chunk of the energy window holds.
const ENERGY_CHUNK_LAUNCHES: u32 = 4096;

/// A counter step this soon after the window's first launches is not its start: the power
/// before it may include the idle GPU.
const ENERGY_SETTLE: Duration = Duration::from_millis(10);

/// One chunk of [`energy`]'s launches: `launches` launches (each after zeroing the buffers that
/// need it, where `zero`), then event `event` recorded.
fn energy_chunk(launches: usize, zero: bool, event: usize) -> Vec<Op> {
    let mut ops = Vec::new();
    for _ in 0..launches {
        if zero {
            ops.push(Op::Zero);
        }
        ops.push(Op::Launch);
    }
    ops.push(Op::Record(event));
    ops
}

/// The energy of `launch` at `median_ms` a pass, on `gpu`'s energy counter: the launches run
/// back to back, [`ENERGY_CHUNKS_QUEUED`] chunks of about [`ENERGY_CHUNK`] queued, each
/// queued again once the host expects it done, while the host reads the counter; from the
/// first step of the counter after [`ENERGY_SETTLE`] to the first step at least `window`
/// later, the energy over the time between them is the mean power, and the joules per pass
/// that power times `median_ms`. A step's time is taken halfway between the read that saw it
/// and the read before. `None` where the device has no sensors, a read fails, the counter
/// does not step within four windows and a second, goes back, or gives 0 W.
pub fn energy(
    gpu: &mut dyn Gpu,
    launch: &Launch,
    median_ms: f64,
    window: Duration,
) -> Result<Option<RowEnergy>> {
    let first = gpu.sensors().ok().and_then(|sensors| sensors.energy_mj().ok());
    let Some(mut last) = first.filter(|_| median_ms.is_finite() && median_ms > 0.0) else { return Ok(None) };
    let zero = !launch.zero_before_each.is_empty();
    let launches =
        (ENERGY_CHUNK.as_secs_f64() * 1e3 / median_ms).ceil().clamp(1.0, f64::from(ENERGY_CHUNK_LAUNCHES));
    let chunk_time = Duration::from_secs_f64(launches * median_ms / 1e3);
    let chunk = |event: usize| energy_chunk(launches as usize, zero, event);
    let began = gpu.clock();
    let give_up = began + window * 4 + Duration::from_secs(1);
    // Each chunk's event, and when the host expects the GPU to reach it.
    let mut queued = std::collections::VecDeque::new();
    let mut free_at = began;
    for event in 0..ENERGY_CHUNKS_QUEUED {
        gpu.run_schedule(launch, &chunk(event))?;
        free_at = free_at.max(gpu.clock()) + chunk_time;
        queued.push_back((event, free_at));
    }
    let mut last_read = gpu.clock();
    let mut steps: Vec<(Duration, u64)> = Vec::new();
    let measured = loop {
        stop_if_interrupted()?;
        let Ok(sensors) = gpu.sensors() else { break None };
        let Ok(value) = sensors.energy_mj() else { break None };
        let now = gpu.clock();
        // The counter only grows while the driver is loaded: one that went back was reset,
        // and no window across it is a reading.
        if value < last {
            break None;
        }
        // A read that took no time (a scripted clock) waits for the oldest chunk instead.
        let mut stalled = now == last_read;
        let at = (last_read + now) / 2;
        if value != last && at.saturating_sub(began) >= ENERGY_SETTLE {
            steps.push((at, value));
        }
        (last, last_read) = (value, now);
        if let (Some(&(first_at, first)), Some(&(at, value))) = (steps.first(), steps.last())
            && at.saturating_sub(first_at) >= window
        {
            let seconds = (at - first_at).as_secs_f64();
            break Some((value.saturating_sub(first) as f64 / 1e3 / seconds, seconds));
        }
        if now > give_up {
            break None;
        }
        // Queue again the oldest chunk once the GPU should have finished it (a wait that
        // returns at once where it has), one a read, so that a GPU slower than its median
        // never keeps the host from reading.
        if let Some(&(event, done)) = queued.front()
            && (gpu.clock() >= done || std::mem::take(&mut stalled))
        {
            queued.pop_front();
            gpu.run_schedule(launch, &[Op::WaitFor(event)])?;
            gpu.run_schedule(launch, &chunk(event))?;
            free_at = free_at.max(gpu.clock()) + chunk_time;
            queued.push_back((event, free_at));
        }
    };
    // Where the buffers are zeroed before each launch the check sees one pass, as after a batch.
    let tail: &[Op] =
        if zero { &[Op::Synchronize, Op::Zero, Op::Launch, Op::Synchronize] } else { &[Op::Synchronize] };
    gpu.run_schedule(launch, tail)?;
    // A GPU running launches draws power: 0 W (a counter that did not move over the window)
    // is no reading, shown `n/a` and never ranked, rather than a winner at 0 mJ.
    let measured = measured.filter(|&(watts, _)| watts.is_finite() && watts > 0.0);
    Ok(measured.map(|(watts, window_s)| RowEnergy {
        joules_per_pass: watts * median_ms / 1e3,
        watts,
        window_s,
    }))
}

/// Whether a measurement checks what its launches computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Check it: the outputs zeroed first, checked after the samples. With `corrupt`, that
    /// output element is overwritten on the device before the check (`--corrupt-pixel`).
    Check {
        /// The element `--corrupt-pixel` overwrites.
        corrupt: Option<usize>,
    },
    /// Already known: an earlier round of the search checked this configuration, so this one
    /// only samples it (a check costs a comparison at least, and with a host reference a copy
    /// of the whole output).
    Known,
}

/// What one checked measurement found.
pub struct Checked {
    /// Milliseconds of each sample: one launch's, or in batch mode a batch's mean.
    pub run_ms: Vec<f32>,
    /// Why the noise-driven stop ended the samples (`None`: a fixed count).
    pub stopped: Option<Stopped>,
    /// Where the output disagrees with the reference, if it does.
    pub mismatch: Option<Mismatch>,
    /// The SM clock while the samples ran (`None`: no sensors).
    pub clock: Option<RowClock>,
    /// The row's energy, with `--energy` (`None`: not asked, or no sensors).
    pub energy: Option<RowEnergy>,
}

/// Measures the active kernel on `workload`, a grid of `grid` blocks of `block` threads, its
/// samples taken as `timing` says ([`sample`], sampling on from `prior`), then with [`Timing::energy_window`] its
/// energy ([`energy`]), then checked where `verdict` says so ([`Verdict`]; a known verdict's
/// `mismatch` is `None`). `Err` only when the driver fails.
pub fn measure(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    grid: GridShape,
    block: BlockShape,
    timing: Timing,
    verdict: Verdict,
    prior: &[f32],
) -> Result<Checked> {
    if verdict != Verdict::Known {
        workload.clear_outputs(gpu)?;
    }
    let launch = workload.launch(grid, block)?;
    let context = || format!("launching {grid} blocks of {block} threads");
    let samples = sample(gpu, &launch, &timing, prior).with_context(context)?;
    let energy = match timing.energy_window {
        Some(window) if !samples.run_ms.is_empty() => {
            let median = crate::model::stats::RunStats::of(&samples.run_ms).median;
            energy(gpu, &launch, median, window).with_context(context)?
        }
        _ => None,
    };
    let mismatch = match verdict {
        Verdict::Check { corrupt } => {
            if let Some(index) = corrupt {
                workload.corrupt(gpu, index)?;
            }
            workload.check(gpu)?
        }
        Verdict::Known => None,
    };
    Ok(Checked { run_ms: samples.run_ms, stopped: samples.stopped, mismatch, clock: samples.clock, energy })
}

/// A signal asked the run to stop: the row in progress is dropped, the finished ones kept.
fn stop_if_interrupted() -> Result<()> {
    match crate::measure::supervision::interrupt::requested() {
        Some(signal) => Err(anyhow::anyhow!(crate::measure::supervision::interrupt::Interrupted(signal))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::mock::{ClockReading, MockGpu, MockSensors};
    use crate::measure::sampling::timing::NoiseStop;
    use crate::tests::fixture;

    fn gpu_with(sensors: MockSensors) -> (MockGpu, Box<dyn Workload>) {
        let mut gpu = fixture::gpu();
        gpu.sensors = Some(sensors);
        gpu.milliseconds = vec![(128, 0.5), (256, 1.0)];
        let workload = fixture::workload(&mut gpu, fixture::kernel(33 * 17));
        (gpu, workload)
    }

    const CHECK: Verdict = Verdict::Check { corrupt: None };

    /// One checked row of `threads` threads, one block, timed as `timing`.
    fn measure_row(gpu: &mut MockGpu, workload: &mut dyn Workload, threads: u32, timing: Timing) -> Checked {
        measure(gpu, workload, GridShape::linear(1), BlockShape::linear(threads), timing, CHECK, &[]).unwrap()
    }

    const STOP: NoiseStop =
        NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_millis(100), max_runs: 1000 };

    #[test]
    fn the_energy_window_spans_whole_counter_steps_and_reads_the_scripted_power() {
        let sensors = MockSensors { watts: vec![(128, 300.0), (256, 200.0)], ..MockSensors::default() };
        let (mut gpu, mut workload) = gpu_with(sensors);
        let timing = Timing { energy_window: Some(Duration::from_millis(500)), ..Timing::launch(1, 10) };
        for (threads, watts, ms) in [(128, 300.0, 0.5), (256, 200.0, 1.0)] {
            let started = gpu.clock;
            let checked = measure(
                &mut gpu,
                workload.as_mut(),
                GridShape::linear(64),
                BlockShape::linear(threads),
                timing,
                Verdict::Check { corrupt: None },
                &[],
            )
            .unwrap();
            assert_eq!(checked.mismatch, None, "the check after the window sees one pass");
            let energy = checked.energy.expect("an energy reading");
            assert!((energy.watts - watts).abs() / watts < 0.02, "{threads}: {energy:?}");
            assert!((energy.joules_per_pass - watts * ms / 1e3).abs() / (watts * ms / 1e3) < 0.02);
            // Whole steps of 100 ms, at least the window: 0.5 s here, the step times read to
            // within a read (4 ms) of the true ones.
            assert!((0.49..0.61).contains(&energy.window_s), "{energy:?}");
            let spent = gpu.clock - started;
            assert!(spent < Duration::from_millis(800), "a row's window costs {spent:?}");
        }
    }

    #[test]
    fn without_sensors_or_a_counter_that_never_steps_energy_is_unread() {
        let mut gpu = fixture::gpu();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
        let timing = Timing { energy_window: Some(Duration::from_millis(100)), ..Timing::launch(0, 3) };
        let checked = measure_row(&mut gpu, workload.as_mut(), 128, timing);
        assert_eq!((checked.energy, checked.clock), (None, None));
        let (mut gpu, mut workload) =
            gpu_with(MockSensors { step: Duration::from_secs(3600), ..MockSensors::default() });
        let checked = measure_row(&mut gpu, workload.as_mut(), 128, timing);
        assert_eq!(checked.energy, None);
        assert!(gpu.clock < Duration::from_secs(3), "it gives up after four windows and a second");
    }

    #[test]
    fn a_microsecond_kernel_s_samples_grow_to_the_minimum_sample_and_a_long_one_s_do_not() {
        use crate::measure::sampling::timing::{MIN_SAMPLE, Op, TimingMode};
        // One row of a kernel of `ms` a launch timed as `timing`: its samples, and the launches
        // each of its samples held, in order.
        let row = |ms: f32, timing: Timing| {
            let mut gpu = fixture::gpu();
            gpu.milliseconds = vec![(128, ms)];
            let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
            let checked = measure_row(&mut gpu, workload.as_mut(), 128, timing);
            assert_eq!(checked.mismatch, None);
            let launches: Vec<u32> = gpu
                .enqueued
                .iter()
                .filter_map(|op| match op {
                    Op::Sample { launches, .. } => Some(*launches),
                    _ => None,
                })
                .collect();
            (checked.run_ms.len(), launches)
        };
        for mode in [TimingMode::Batch, TimingMode::Graph] {
            let timing = Timing { min_sample: Some(MIN_SAMPLE), ..Timing::fixed(mode, 2, 10) };
            // 2 µs a launch: ten make 20 µs, so after a first sample of ten, dropped, ten of 50.
            let mut expected = vec![10];
            expected.extend([50; 10]);
            assert_eq!(row(0.002, timing), (10, expected), "{mode}");
            // Under the noise-driven stop too.
            let (kept, launches) = row(0.002, timing.until(STOP));
            assert!(kept >= 10 && launches.len() == kept + 1, "{mode}");
            assert!(launches[0] == 10 && launches[1..].iter().all(|&launches| launches == 50), "{mode}");
            // 0.5 ms a launch: ten are long enough, and the first sample is the row's first.
            assert_eq!(row(0.5, timing), (10, vec![10; 10]), "{mode}");
        }
        // A count asked for is kept, however short the kernel.
        assert_eq!(row(0.002, Timing::fixed(TimingMode::Batch, 2, 10)), (10, vec![10; 10]));
    }

    #[test]
    fn a_throttled_chunk_is_taken_again_while_the_budget_lasts_and_counted() {
        let throttled = ClockReading { sm_mhz: 1400, reasons: 0x4 };
        let steady = ClockReading { sm_mhz: 1965, reasons: 0 };
        let sensors = MockSensors { clock_script: vec![throttled, steady], ..MockSensors::default() };
        let (mut gpu, mut workload) = gpu_with(sensors);
        let timing = Timing::launch(0, 10).until(STOP);
        let checked = measure_row(&mut gpu, workload.as_mut(), 128, timing);
        let clock = checked.clock.unwrap();
        assert_eq!(checked.run_ms.len(), 10, "the throttled ten were dropped and taken again");
        assert_eq!((clock.median_mhz, clock.min_mhz, clock.throttled_samples), (1965, 1965, 10));
        assert_eq!(clock.reasons, ["sw_power_cap"]);

        // Every reading throttled: once the budget is spent the samples are kept, counted.
        let sensors = MockSensors { clock_script: vec![throttled], ..MockSensors::default() };
        let (mut gpu, mut workload) = gpu_with(sensors);
        let checked = measure_row(&mut gpu, workload.as_mut(), 256, timing);
        let clock = checked.clock.unwrap();
        assert!(!checked.run_ms.is_empty());
        assert_eq!(clock.min_mhz, 1400);
        assert!(clock.throttled_samples as usize >= checked.run_ms.len() + 10, "{clock:?}");
        // A fixed count keeps them and says so.
        let sensors = MockSensors { clock_script: vec![throttled], ..MockSensors::default() };
        let (mut gpu, mut workload) = gpu_with(sensors);
        let checked = measure_row(&mut gpu, workload.as_mut(), 128, Timing::launch(0, 7));
        assert_eq!((checked.run_ms.len(), checked.clock.unwrap().throttled_samples), (7, 7));
    }
}
