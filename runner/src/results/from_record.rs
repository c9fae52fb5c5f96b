/*!
A sweep read back from its JSON export ([`sweep_of`]): the [`Sweep`] whose record
([`SweepRecord::of`]) is the file again, so that what `block-size merge` and a split sweep put
together renders through the same table, exports, plot and `--emit-rust` as a sweep measured in
this process. Only a file that records the occupancy model's check whole and each row's dynamic
shared memory (every file since `merge`) reads back; an older one is refused in one line.
*/

use crate::measure::record::provenance::Provenance;
use crate::measure::supervision::interrupt::Signal;
use crate::model::frame_size::FrameSize;
use crate::model::pass::{Items, Pass};
use crate::model::sm::Limiter;
use crate::model::stats::RunStats;
use crate::results::schema::{RowRecord, SweepRecord};
use crate::search::sweep::{CheckFailure, EndedEarly, Row, Sweep};
use std::borrow::Cow;

/// The sweep `record` is the export of, and its provenance. `Err` (one line, no file name) where
/// the file is of a block-size older than `merge` (no `occupancy_model`, no provenance, or a row
/// without its `dynamic_shared_memory`), or holds a limiter or an end no sweep writes.
pub(crate) fn sweep_of(record: &SweepRecord) -> Result<(Sweep, Provenance), String> {
    let older = |what: &str| {
        format!("written by a block-size of before `merge` (it has no {what}); measure it again to merge it")
    };
    let model_check = record.occupancy_model.clone().ok_or_else(|| older("occupancy_model"))?;
    let provenance = record.provenance.clone().ok_or_else(|| older("provenance"))?;
    let rows = record.rows.iter().map(|row| row_of(row, &older)).collect::<Result<Vec<_>, _>>()?;
    let workload = &record.workload;
    let pass = Pass {
        kernel: Cow::Owned(workload.kernel.clone()),
        frame: FrameSize { width: record.width.unwrap_or(0), height: record.height.unwrap_or(0) },
        bytes_per_pass: workload.bytes_per_pass,
        bytes_counted: Cow::Owned(workload.bytes_counted.clone()),
        detail: workload.detail.clone(),
        items: workload
            .items
            .as_ref()
            .map(|items| Items { count: items.count, noun: Cow::Owned(items.noun.clone()) }),
    };
    let ended_early = match record.ended_early.as_deref() {
        None => None,
        Some("interrupted by SIGINT") => Some(EndedEarly::Interrupted(Signal::Interrupt)),
        Some("interrupted by SIGTERM") => Some(EndedEarly::Interrupted(Signal::Terminate)),
        Some("the GPU context was lost") => Some(EndedEarly::ContextLost { configurations_left: 0 }),
        Some(other) => return Err(format!("its ended_early `{other}` is not one a sweep writes")),
    };
    let sweep = Sweep {
        limits: record.device.clone(),
        pass,
        timing: record.timing,
        rows,
        grid: record.grid,
        axes: record.axes.clone(),
        suggestion: record.suggestion,
        model_check,
        failures: record.failures.iter().cloned().map(CheckFailure::Recorded).collect(),
        ended_early,
        search: record.search,
        objective: record.objective,
        shard: record.shard,
        wall_time: record.wall_time,
        counters: record.counters.clone(),
    };
    Ok((sweep, provenance))
}

/// The row `record` is the export of.
fn row_of(record: &RowRecord, older: &dyn Fn(&str) -> String) -> Result<Row, String> {
    let dynamic_shared_memory =
        record.dynamic_shared_memory.ok_or_else(|| older("dynamic_shared_memory in its rows"))?;
    Ok(Row {
        threads_per_block: record.threads_per_block,
        block: record.shape(),
        warps_per_block: record.warps_per_block,
        idle_lanes: record.idle_lanes,
        blocks_per_sm: record.blocks_per_sm,
        resident_warps: record.warps_per_sm,
        grid_blocks: record.grid_blocks,
        grid: record.grid_shape(),
        dynamic_shared_memory,
        limiters: limiters(record.limiter.as_deref().unwrap_or("-"))?,
        run_ms: record.run_ms.clone(),
        stopped: record.stopped,
        stats: RunStats {
            median: record.median_ms,
            min: record.min_ms,
            max: record.max_ms,
            mad: record.mad_ms,
        },
        axes: record.axes.clone(),
        failed: record.failed.clone(),
        pruned: record.pruned.clone(),
        clock: record.sm_clock.clone(),
        energy: record.energy.clone(),
        counters: record.counters,
    })
}

/// The limiters of a row's `limiter` cell: `-`, or names joined by `+`.
fn limiters(cell: &str) -> Result<Vec<Limiter>, String> {
    if cell == "-" {
        return Ok(Vec::new());
    }
    cell.split('+')
        .map(|name| match name {
            "warps" => Ok(Limiter::Warps),
            "blocks" => Ok(Limiter::Blocks),
            "registers" => Ok(Limiter::Registers),
            "shared memory" => Ok(Limiter::SharedMemory),
            other => Err(format!("a row's limiter `{other}` is not one the occupancy model names")),
        })
        .collect()
}
