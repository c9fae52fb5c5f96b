/*!
A sweep of every configuration of a kernel's axes on one device: for each configuration the
restriction keeps, its entry point selected, its inputs on the device, its block sizes swept
([`crate::search::sweep`]) and journaled; then the parts put together
([`crate::search::assemble`]). A part that ends early (a signal, a lost context) ends the
sweep with the rows so far.
*/

use crate::kernel::run::Run;
use crate::measure::gpu::backend::Gpu;
use crate::measure::record::journal::Journal;
use crate::measure::sampling::workload::Workload as _;
use crate::measure::supervision::progress::WithProgress;
use crate::model::launch_bounds::LaunchBounds;
use crate::model::shard::ShardOf;
use crate::search::assemble;
use crate::search::sweep::{self, Plan, Session, Sweep};
use anyhow::{Context as _, Result};

/// Measures every configuration of `run`'s kernel that its restriction keeps, on `gpu`
/// (uploaded to it first, but for a later round of a race), as `plan` says; `journal` keeps
/// each finished configuration.
pub(crate) fn measure(
    run: &mut Run,
    gpu: &mut dyn Gpu,
    plan: &Plan,
    mut journal: Option<&mut Journal>,
) -> Result<Sweep> {
    let kernel = run.kernel();
    run.select(0, gpu)?;
    // A later round of a race runs on its first round's GPU and buffers: allocating them
    // again held another copy of every input on the device each round, and took the upload's
    // time (a race in rungs has many rounds).
    let later = matches!(plan.round, sweep::Round::Rung(..) | sweep::Round::Survivors(_));
    if !(later && run.start_later_round()) {
        run.upload(gpu)?;
    }
    let mut parts = Vec::with_capacity(kernel.variants().len());
    // Configuration k of the whole sweep, counted across the configurations of the axes, for
    // a shard's share (`crate::model::shard`).
    let mut k = 0;
    for variant in kernel.variants() {
        let mut blocks = kernel.kept(variant.index, &plan.blocks);
        if let Some(shard) = plan.shard {
            blocks.retain(|_| {
                k += 1;
                shard.holds(k - 1)
            });
        }
        if blocks.is_empty() {
            // The restriction keeps no block size of this configuration: no rows, no part.
            continue;
        }
        let entry = kernel.module().kernel(variant.entry);
        gpu.select_kernel(entry)?;
        run.select(variant.index, gpu).with_context(|| format!("the configuration {}", variant.axes))?;
        let bounds = LaunchBounds::of(
            entry.module.ptx,
            entry.entry,
            gpu.max_threads_per_block().context("reading the kernel's most threads a block")?,
            gpu.limits().max_threads_per_block,
        );
        let plan =
            Plan { blocks, grid: variant.grid.unwrap_or(plan.grid), bounds: Some(bounds), ..plan.clone() };
        let mut session = Session { journal: journal.as_deref_mut(), axes: variant.axes.clone() };
        let part = with_progress(gpu, run, &plan, &mut session)?;
        let ended_early = part.ended_early.is_some();
        parts.push((variant.axes.clone(), part));
        if ended_early {
            break;
        }
    }
    let mut sweep = assemble::assemble(kernel.axis_names(), parts)
        .context("the kernel has no configuration to sweep (the description was validated)")?;
    sweep.shard =
        plan.shard.map(|shard| ShardOf { shard, configurations: kernel.configurations(&plan.blocks) });
    Ok(sweep)
}

/// Sweeps the uploaded `run` as `plan` says, with a progress bar on a long sweep.
pub(crate) fn with_progress(
    gpu: &mut dyn Gpu,
    run: &mut Run,
    plan: &Plan,
    session: &mut Session,
) -> Result<Sweep> {
    let mut with_progress = WithProgress::new(gpu, plan.blocks.len());
    let result = sweep::measure_in(&mut with_progress, run, plan, session);
    with_progress.finish();
    result
}
