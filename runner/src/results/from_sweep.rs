/*!
The record of a sweep just measured: [`SweepRecord::of`] and [`RowRecord::of`]. Apart from
the schema, which sits at the bottom of the results layer, because the record's head and
summary lines are the table's words ([`crate::results::table`]).
*/

use crate::measure::record::provenance::Provenance;
use crate::model::stats::RunStats;
use crate::results::schema::{Origin, PassRecord, RowRecord, SCHEMA_VERSION, SweepRecord};
use crate::results::table::{self, Summary};
use crate::search::sweep::{EndedEarly, ModelCheck, Row, Sweep};

impl RowRecord {
    /// The record of `row`, one of `sweep`'s rows.
    pub fn of(sweep: &Sweep, row: &Row) -> Self {
        let RunStats { median, min, max, mad } = row.stats;
        Self {
            axes: row.axes.clone(),
            threads_per_block: row.threads_per_block,
            block: (!row.block.is_linear()).then_some(row.block),
            warps_per_block: row.warps_per_block,
            idle_lanes: row.idle_lanes,
            blocks_per_sm: row.blocks_per_sm,
            warps_per_sm: row.resident_warps,
            occupancy_percent: sweep.occupancy_percent(row),
            grid_blocks: row.grid_blocks,
            grid: (!row.grid.is_linear()).then_some(row.grid),
            dynamic_shared_memory: Some(row.dynamic_shared_memory),
            median_ms: median,
            min_ms: min,
            max_ms: max,
            mad_ms: mad,
            gigabytes_per_second: sweep.gigabytes_per_second(row),
            fraction_of_best: sweep.fraction_of_best(row),
            within_noise_of_best: sweep.within_noise_of_best(row),
            limiter: Some(table::limiter_cell(&row.limiters)),
            timing_mode: sweep.timing.mode,
            launches_per_sample: sweep.timing.launches(),
            samples: row.run_ms.len(),
            stopped: row.stopped,
            run_ms: row.run_ms.clone(),
            failed: row.failed.clone(),
            pruned: row.pruned.clone(),
            sm_clock: row.clock.clone(),
            energy: row.energy.clone(),
            counters: row.counters,
        }
    }
}

impl SweepRecord {
    /// The record of `sweep`, with its provenance: what `--json` writes.
    pub fn of(sweep: &Sweep, provenance: Provenance) -> Self {
        let summary = Summary::of(sweep);
        let frame = sweep.pass.items.is_none().then_some(sweep.pass.frame);
        let shared_memory_per_block = match (&sweep.model_check, sweep.constant_dynamic_shared_memory()) {
            (ModelCheck::Ran { resources, .. }, Some(dynamic)) => {
                Some(resources.static_shared_memory + dynamic)
            }
            _ => None,
        };
        let head = table::header(&sweep.limits, &sweep.pass, sweep.timing)
            + &sweep.grid.header_line()
            + &table::shard_line(sweep.shard);
        Self {
            schema_version: SCHEMA_VERSION,
            kernel: provenance.kernel.clone(),
            ptx_sha256: provenance.ptx_sha256.clone(),
            provenance: Some(provenance),
            device: sweep.limits.clone(),
            workload: PassRecord::of(&sweep.pass),
            width: frame.map(|frame| frame.width),
            height: frame.map(|frame| frame.height),
            pixels: sweep.pixels(),
            timing: sweep.timing,
            grid: sweep.grid,
            axes: sweep.axes.clone(),
            shared_memory_per_block: Some(shared_memory_per_block),
            head: Some(head.lines().map(str::to_string).collect()),
            rows: sweep.rows.iter().map(|row| RowRecord::of(sweep, row)).collect(),
            suggestion: sweep.suggestion,
            fastest_threads_per_block: sweep.fastest().map(|row| row.threads_per_block),
            fastest_block: sweep.fastest().map(|row| row.block).filter(|block| !block.is_linear()),
            fastest_axes: sweep.fastest().map(|row| row.axes.clone()).unwrap_or_default(),
            rows_near_best: sweep.rows_near_best(),
            search: sweep.search,
            objective: sweep.scored_objective(),
            model_check: summary.model_clause(),
            summary: Some(summary.lines().lines().map(str::to_string).collect()),
            occupancy_model: Some(sweep.model_check.clone()),
            shard: sweep.shard,
            wall_time: sweep.wall_time,
            counters: sweep.counters.clone(),
            merged_from: Vec::new(),
            failures: sweep.failures.iter().map(ToString::to_string).collect(),
            ended_early: sweep.ended_early.map(|ended| match ended {
                EndedEarly::Interrupted(signal) => format!("interrupted by {}", signal.name()),
                EndedEarly::ContextLost { .. } => "the GPU context was lost".to_string(),
            }),
            origin: Origin::default(),
        }
    }
}
