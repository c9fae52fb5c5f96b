/*!
One measured launch configuration, checked: zero the workload's outputs, run the timed
launches, copy the outputs back and compare them with the CPU reference. The sweep, `compare`,
`tail` and `variants` all measure this way, so none of them can time a configuration without
checking it.
*/

use crate::backend::{Gpu, Timing};
use crate::timing::{Sampling, Stopped};
use crate::workload::{Mismatch, Workload};
use anyhow::{Context as _, Result};

/// What one checked measurement found.
pub struct Checked {
    /// Milliseconds of each timed launch.
    pub run_ms: Vec<f32>,
    /// Where the output disagrees with the reference, if it does.
    pub mismatch: Option<Mismatch>,
}

/// Measures the active kernel on `workload` at `grid_blocks` x `threads_per_block`, each
/// launch between its own events ([`Sampling::LAUNCH`], a fixed count). With `corrupt`, that
/// output element is overwritten on the device after the launches (the `--corrupt-pixel`
/// self-test). `Err` only when the driver fails.
pub fn measure(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    grid_blocks: u32,
    threads_per_block: u32,
    timing: Timing,
    corrupt: Option<usize>,
) -> Result<Checked> {
    let (checked, _) =
        measure_sampled(gpu, workload, grid_blocks, threads_per_block, timing, &Sampling::LAUNCH, corrupt)?;
    Ok(checked)
}

/// As [`measure`], with the samples taken as `sampling` says ([`crate::timing::sample`]); also
/// returns why the noise-driven stop ended the row, where it ran.
pub fn measure_sampled(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    grid_blocks: u32,
    threads_per_block: u32,
    timing: Timing,
    sampling: &Sampling,
    corrupt: Option<usize>,
) -> Result<(Checked, Option<Stopped>)> {
    workload.clear_outputs(gpu)?;
    let launch = workload.launch(grid_blocks, threads_per_block)?;
    let samples = crate::timing::sample(gpu, &launch, timing, sampling)
        .with_context(|| format!("launching {grid_blocks} blocks of {threads_per_block} threads"))?;
    if let Some(index) = corrupt {
        workload.corrupt(gpu, index)?;
    }
    Ok((Checked { run_ms: samples.run_ms, mismatch: workload.check(gpu)? }, samples.stopped))
}
