/*!
One measured launch configuration, checked: zero the workload's outputs, run the timed
launches, copy the outputs back and compare them with the CPU reference. The sweep, `compare`,
`tail` and `variants` all measure this way, so none of them can time a configuration without
checking it.
*/

use crate::backend::{Gpu, Timing};
use crate::timing::Stopped;
use crate::workload::{Mismatch, Workload};
use anyhow::{Context as _, Result};

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
/// samples taken as `timing` says ([`crate::timing::sample`]). With `corrupt`, that output
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
    let samples = crate::timing::sample(gpu, &launch, &timing)
        .with_context(|| format!("launching {grid_blocks} blocks of {threads_per_block} threads"))?;
    if let Some(index) = corrupt {
        workload.corrupt(gpu, index)?;
    }
    Ok(Checked { run_ms: samples.run_ms, stopped: samples.stopped, mismatch: workload.check(gpu)? })
}
