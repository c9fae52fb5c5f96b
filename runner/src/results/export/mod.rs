/*!
Exports of a finished sweep: JSON for scripts, CSV for spreadsheets, Markdown for reports, HTML
for a browser.

Each format is one module implementing [`Exporter`] over the same [`Record`], so the formats
cannot disagree about what a row holds.
*/

mod csv;
pub(crate) mod html;
mod json;
mod markdown;

use crate::measure::backend::Timing;
use crate::measure::provenance::Provenance;
use crate::measure::timing::{Stopped, TimingMode};
use crate::model::axis_values::AxisValues;
use crate::model::grid::GridPolicy;
use crate::model::limits::{DeviceLimits, Suggestion};
use crate::model::pass::Pass;
use crate::model::stats::RunStats;
use crate::results::table::{self, Summary};
use crate::search::sweep::{ModelCheck, Sweep};
use anyhow::Result;
use serde::Serialize;

pub use self::csv::CsvExporter;
pub use self::html::HtmlExporter;
pub use self::json::JsonExporter;
pub use self::markdown::MarkdownExporter;

/// The version of the JSON export's layout, its `schema_version` field. A file without the
/// field is version 1 (before 2026-12-01: `timing` had `flush_l2` and `cold_keeps_l2` where it
/// now has `l2_flush`, and there were no `head`, `summary` and `shared_memory_per_block`).
/// Version 2 had one tunable (`tunable`, `fastest_tunable`, a row's `tunable`) where version 3
/// has any number of axes (`axes`, `fastest_axes`, a row's `axes`) and pruned rows
/// (`pruned`).
pub const SCHEMA_VERSION: u32 = 3;

/// One export format.
pub trait Exporter {
    /// The file's text.
    fn render(&self, record: &Record) -> Result<String>;
}

/// The formats `--format` offers besides the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON: provenance, every row, every sample.
    Json,
    /// CSV: one line per row.
    Csv,
    /// Markdown: the table and its summary.
    Markdown,
    /// HTML: one self-contained page with the table, the plot, the provenance, the summary and
    /// an occupancy explorer.
    Html,
}

impl Format {
    /// The exporter of this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Self::Json => Box::new(JsonExporter),
            Self::Csv => Box::new(CsvExporter),
            Self::Markdown => Box::new(MarkdownExporter),
            Self::Html => Box::new(HtmlExporter),
        }
    }
}

/// Renders `sweep` in `format`.
pub fn render(sweep: &Sweep, provenance: Provenance, format: Format) -> Result<String> {
    format.exporter().render(&Record::of(sweep, provenance))
}

/// One row as every format sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowRecord {
    /// The row's value on each axis of the sweep ([`Record::axes`]), as an object in the
    /// axes' order; absent where the sweep has no axis.
    #[serde(skip_serializing_if = "AxisValues::is_empty")]
    pub axes: AxisValues,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Warps per block, rounded up.
    pub warps_per_block: u32,
    /// Threads of the last warp with no work: a block size not a multiple of 32.
    pub idle_lanes: u32,
    /// The driver's resident blocks per SM.
    pub blocks_per_sm: u32,
    /// Resident warps per SM: blocks/SM x warps per block.
    pub warps_per_sm: u32,
    /// Resident warps over the SM's maximum, in percent.
    pub occupancy_percent: f64,
    /// Blocks launched.
    pub grid_blocks: u32,
    /// The median sample, in milliseconds.
    pub median_ms: f64,
    /// The fastest sample, in milliseconds.
    pub min_ms: f64,
    /// The slowest sample, in milliseconds.
    pub max_ms: f64,
    /// The samples' median absolute deviation, in milliseconds.
    pub mad_ms: f64,
    /// The bytes one pass moves over the median, in GB/s.
    pub gigabytes_per_second: f64,
    /// The fastest row's median over this row's.
    pub fraction_of_best: f64,
    /// Whether this row is slower than the fastest by no more than their MADs added.
    pub within_noise_of_best: bool,
    /// The resources that bind blocks/SM at this size by the occupancy model
    /// (`warps+blocks` where two meet; `-` where the model did not run).
    pub limiter: String,
    /// How the samples were taken (`--timing`): batch, cold or launch.
    pub timing_mode: TimingMode,
    /// Launches each sample holds: a batch's, or 1.
    pub launches_per_sample: u32,
    /// Samples this row took.
    pub samples: usize,
    /// Why the noise-driven stop ended the row (converged, time_budget, max_runs); empty for a
    /// fixed count.
    pub stopped: Option<Stopped>,
    /// Every sample's milliseconds, in order: one launch's, or a batch's mean (JSON only; CSV
    /// and Markdown keep one line per row).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub run_ms: Vec<f32>,
    /// Why this configuration has no measurement (a launch fault, a hang); empty where it has
    /// one. Its times are then empty too.
    pub failed: Option<String>,
    /// Why this configuration was not launched: the device cannot launch it by the occupancy
    /// model (threads, registers or shared memory beyond a block's); empty where it was. Its
    /// times are then empty too.
    pub pruned: Option<String>,
}

/// A sweep as the exports describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// The layout's version: [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Command, date, GPU, driver, CUDA version, PTX sha256, rust-cuda revision, toolchain.
    pub provenance: Provenance,
    /// What the driver reports about the device.
    pub device: DeviceLimits,
    /// The label of the module measured (the provenance's `kernel`).
    pub kernel: String,
    /// SHA-256 of its PTX.
    pub ptx_sha256: String,
    /// The kernel measured (`--kernel`) and what one pass of it moves.
    pub workload: Pass,
    /// The frame's width; absent where a pass covers items, not a frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// The frame's height; absent where a pass covers items, not a frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Pixels, or items, one pass covers.
    pub pixels: u64,
    /// How each row was timed; the L2 flush as one field, `l2_flush`.
    pub timing: Timing,
    /// How many blocks each row launched (`--grid`): `one-wave`, `per-item` or `waves:K`.
    pub grid: GridPolicy,
    /// The names of the axes beyond the block size, in order (empty where there is none):
    /// each row says its values.
    pub axes: Vec<String>,
    /// Shared memory each block asked for, static plus dynamic, in bytes, where it was the
    /// same at every row and the occupancy model read it.
    pub shared_memory_per_block: Option<u32>,
    /// The lines the table printed above itself: the device, the work, the timing, the grid.
    pub head: Vec<String>,
    /// One record per row.
    pub rows: Vec<RowRecord>,
    /// The driver's suggested block size and grid.
    pub suggestion: Suggestion,
    /// The fastest row's block size.
    pub fastest_threads_per_block: Option<u32>,
    /// The fastest row's values on the axes (absent where the sweep has no axis).
    #[serde(skip_serializing_if = "AxisValues::is_empty")]
    pub fastest_axes: AxisValues,
    /// Rows within 95 percent of the fastest.
    pub rows_near_best: usize,
    /// How the samples were spent (`--search`): `exhaustive`, or `race` (raced rows say
    /// `stopped: raced`).
    pub search: crate::search::strategy::Search,
    /// The occupancy model's check, in words.
    pub model_check: String,
    /// The lines the table printed below itself: the suggestion, the fastest row, the rows
    /// near it, the noise-driven stop, the occupancy model's check.
    pub summary: Vec<String>,
    /// Failed checks; a non-empty list means the rows are not a measurement.
    pub failures: Vec<String>,
    /// Why the sweep ended before its last configuration ("interrupted by SIGINT", "the GPU
    /// context was lost"), where it did (null where it did not): the rows are then those
    /// finished before.
    pub ended_early: Option<String>,
    /// The sentences after the table, for the formats that word them their own way.
    #[serde(skip)]
    pub sentences: Summary,
}

impl Record {
    /// The record of `sweep`, with its provenance.
    pub fn of(sweep: &Sweep, provenance: Provenance) -> Self {
        let rows = sweep
            .rows
            .iter()
            .map(|row| {
                let RunStats { median, min, max, mad } = row.stats;
                RowRecord {
                    axes: row.axes.clone(),
                    threads_per_block: row.threads_per_block,
                    warps_per_block: row.warps_per_block,
                    idle_lanes: row.idle_lanes,
                    blocks_per_sm: row.blocks_per_sm,
                    warps_per_sm: row.resident_warps,
                    occupancy_percent: sweep.occupancy_percent(row),
                    grid_blocks: row.grid_blocks,
                    median_ms: median,
                    min_ms: min,
                    max_ms: max,
                    mad_ms: mad,
                    gigabytes_per_second: sweep.gigabytes_per_second(row),
                    fraction_of_best: sweep.fraction_of_best(row),
                    within_noise_of_best: sweep.within_noise_of_best(row),
                    limiter: table::limiter_cell(&row.limiters),
                    timing_mode: sweep.timing.mode,
                    launches_per_sample: sweep.timing.launches(),
                    samples: row.run_ms.len(),
                    stopped: row.stopped,
                    run_ms: row.run_ms.clone(),
                    failed: row.failed.clone(),
                    pruned: row.pruned.clone(),
                }
            })
            .collect();
        let summary = Summary::of(sweep);
        let frame = sweep.pass.items.is_none().then_some(sweep.pass.frame);
        let shared_memory_per_block = match (&sweep.model_check, sweep.constant_dynamic_shared_memory()) {
            (ModelCheck::Ran { resources, .. }, Some(dynamic)) => {
                Some(resources.static_shared_memory + dynamic)
            }
            _ => None,
        };
        let head = table::header(&sweep.limits, &sweep.pass, sweep.timing) + &sweep.grid.header_line();
        Self {
            schema_version: SCHEMA_VERSION,
            kernel: provenance.kernel.clone(),
            ptx_sha256: provenance.ptx_sha256.clone(),
            provenance,
            device: sweep.limits.clone(),
            workload: sweep.pass.clone(),
            width: frame.map(|frame| frame.width),
            height: frame.map(|frame| frame.height),
            pixels: sweep.pixels(),
            timing: sweep.timing,
            grid: sweep.grid,
            axes: sweep.axes.clone(),
            shared_memory_per_block,
            head: head.lines().map(str::to_string).collect(),
            rows,
            suggestion: sweep.suggestion,
            fastest_threads_per_block: sweep.best().map(|row| row.threads_per_block),
            fastest_axes: sweep.best().map(|row| row.axes.clone()).unwrap_or_default(),
            rows_near_best: sweep.rows_near_best(),
            search: sweep.search,
            model_check: summary.model_clause(),
            summary: summary.lines().lines().map(str::to_string).collect(),
            failures: sweep.failures.iter().map(ToString::to_string).collect(),
            ended_early: sweep.ended_early.map(|ended| match ended {
                crate::search::sweep::EndedEarly::Interrupted(signal) => {
                    format!("interrupted by {}", signal.name())
                }
                crate::search::sweep::EndedEarly::ContextLost { .. } => {
                    "the GPU context was lost".to_string()
                }
            }),
            sentences: summary,
        }
    }
}
