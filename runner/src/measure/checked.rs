/*!
One measured launch configuration, checked: zero the workload's outputs, run the timed
launches, copy the outputs back and compare them with the CPU reference. The sweep, `compare`,
`tail` and `variants` all measure this way, so none of them can time a configuration without
checking it.
*/

use crate::measure::workload::Workload;

use crate::measure::backend::{Gpu, Launch, Timing};
use crate::measure::timing::{COLD_WINDOW, Stopped, TimingMode, decide, next_chunk, schedule};
use crate::model::mismatch::Mismatch;
use anyhow::{Context as _, Result};

/// One row's samples and why they stopped (`None`: a fixed count).
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Each sample's milliseconds, in order.
    pub run_ms: Vec<f32>,
    /// Why the noise-driven stop ended the row (`None`: a fixed count).
    pub stopped: Option<Stopped>,
}

/// Most samples one call of [`sample`] asks for at once in batch, launch and graph modes.
const CHUNK_CAP: u32 = 64;

/// Times `launch` on `gpu`: `timing.warmups` warm-ups, then `timing.runs` samples of
/// `timing.mode`, or with [`Timing::stop`] at least that many and more, a chunk at a time,
/// until [`decide`] stops the row. The budget counts from after the warm-ups, on
/// [`Gpu::clock`].
pub fn sample(gpu: &mut dyn Gpu, launch: &Launch, timing: &Timing) -> Result<Samples> {
    let zero = !launch.zero_before_each.is_empty();
    stop_if_interrupted()?;
    let Some(stop) = timing.stop else {
        let ops = schedule(timing, timing.warmups, timing.runs, zero);
        return Ok(Samples { run_ms: gpu.run_schedule(launch, &ops)?, stopped: None });
    };
    if timing.warmups > 0 {
        gpu.run_schedule(launch, &schedule(timing, timing.warmups, 0, zero))?;
    }
    let cap = if timing.mode == TimingMode::Cold { COLD_WINDOW } else { CHUNK_CAP };
    let started = gpu.clock();
    let mut run_ms = Vec::new();
    loop {
        stop_if_interrupted()?;
        let elapsed = gpu.clock().saturating_sub(started);
        if let Some(stopped) = decide(&run_ms, timing.runs, &stop, elapsed) {
            return Ok(Samples { run_ms, stopped: Some(stopped) });
        }
        let chunk = next_chunk(run_ms.len() as u32, timing.runs, &stop, elapsed, cap);
        run_ms.extend(gpu.run_schedule(launch, &schedule(timing, 0, chunk, zero))?);
    }
}

/// What one checked measurement found.
pub struct Checked {
    /// Milliseconds of each sample: one launch's, or in batch mode a batch's mean.
    pub run_ms: Vec<f32>,
    /// Why the noise-driven stop ended the samples (`None`: a fixed count).
    pub stopped: Option<Stopped>,
    /// Where the output disagrees with the reference, if it does.
    pub mismatch: Option<Mismatch>,
}

/// Measures the active kernel on `workload` at `grid_blocks` x `threads_per_block`, its
/// samples taken as `timing` says ([`sample`]). With `corrupt`, that output
/// element is overwritten on the device after the launches (the `--corrupt-pixel` self-test).
/// `Err` only when the driver fails.
pub fn measure(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    grid_blocks: u32,
    threads_per_block: u32,
    timing: Timing,
    corrupt: Option<usize>,
) -> Result<Checked> {
    workload.clear_outputs(gpu)?;
    let launch = workload.launch(grid_blocks, threads_per_block)?;
    let samples = sample(gpu, &launch, &timing)
        .with_context(|| format!("launching {grid_blocks} blocks of {threads_per_block} threads"))?;
    if let Some(index) = corrupt {
        workload.corrupt(gpu, index)?;
    }
    Ok(Checked { run_ms: samples.run_ms, stopped: samples.stopped, mismatch: workload.check(gpu)? })
}

/// A signal asked the run to stop: the row in progress is dropped, the finished ones kept.
fn stop_if_interrupted() -> Result<()> {
    match crate::measure::interrupt::requested() {
        Some(signal) => Err(anyhow::anyhow!(crate::measure::interrupt::Interrupted(signal))),
        None => Ok(()),
    }
}
