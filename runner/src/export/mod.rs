/*!
Exports of a finished sweep: JSON for scripts, CSV for spreadsheets, Markdown for reports.

Each format is one module implementing [`Exporter`] over the same [`Record`], so the formats
cannot disagree about what a row holds.
*/

mod csv;
mod json;
mod markdown;

use crate::backend::{DeviceLimits, Suggestion, Timing};
use crate::provenance::Provenance;
use crate::ptx;
use crate::report::{self, Summary};
use crate::stats::RunStats;
use crate::sweep::Sweep;
use crate::workload::Pass;
use anyhow::Result;
use serde::Serialize;

pub use self::csv::CsvExporter;
pub use self::json::JsonExporter;
pub use self::markdown::MarkdownExporter;

/// One export format.
pub trait Exporter {
    /// The file's text.
    fn render(&self, record: &Record) -> Result<String>;
}

/// The formats `--format` offers besides the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Markdown,
}

impl Format {
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Self::Json => Box::new(JsonExporter),
            Self::Csv => Box::new(CsvExporter),
            Self::Markdown => Box::new(MarkdownExporter),
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
    pub threads_per_block: u32,
    pub warps_per_block: u32,
    pub idle_lanes: u32,
    pub blocks_per_sm: u32,
    pub warps_per_sm: u32,
    pub occupancy_percent: f64,
    pub grid_blocks: u32,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mad_ms: f64,
    pub gigabytes_per_second: f64,
    pub fraction_of_best: f64,
    pub within_noise_of_best: bool,
    /// The resources that bind blocks/SM at this size by the occupancy model
    /// (`warps+blocks` where two meet; `-` where the model did not run).
    pub limiter: String,
    /// Every timed launch, in order (JSON only; CSV and Markdown keep one line per row).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub run_ms: Vec<f32>,
}

/// A sweep as the exports describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// Command, date, GPU, driver, CUDA version, PTX sha256, rust-cuda revision, toolchain.
    pub provenance: Provenance,
    pub device: DeviceLimits,
    pub kernel: &'static str,
    pub ptx_sha256: String,
    /// The kernel measured (`--kernel`) and what one pass of it moves.
    pub workload: Pass,
    pub width: u32,
    pub height: u32,
    pub pixels: u64,
    pub timing: Timing,
    pub rows: Vec<RowRecord>,
    pub suggestion: Suggestion,
    pub fastest_threads_per_block: Option<u32>,
    pub rows_near_best: usize,
    pub model_check: String,
    /// Failed checks; a non-empty list means the rows are not a measurement.
    pub failures: Vec<String>,
    /// The sentences after the table, as the printed report says them.
    #[serde(skip)]
    pub summary: Summary,
}

impl Record {
    pub fn of(sweep: &Sweep, provenance: Provenance) -> Self {
        let rows = sweep
            .rows
            .iter()
            .map(|row| {
                let RunStats { median, min, max, mad } = row.stats;
                RowRecord {
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
                    limiter: report::limiter_cell(&row.limiters),
                    run_ms: row.run_ms.clone(),
                }
            })
            .collect();
        let summary = Summary::of(sweep);
        Self {
            provenance,
            device: sweep.limits.clone(),
            kernel: ptx::RUST_CUDA.label,
            ptx_sha256: ptx::RUST_CUDA.sha256(),
            workload: sweep.pass.clone(),
            width: sweep.pass.frame.width,
            height: sweep.pass.frame.height,
            pixels: sweep.pixels(),
            timing: sweep.timing,
            rows,
            suggestion: sweep.suggestion,
            fastest_threads_per_block: sweep.best().map(|row| row.threads_per_block),
            rows_near_best: sweep.rows_near_best(),
            model_check: summary.model_clause(),
            failures: sweep.failures.iter().map(ToString::to_string).collect(),
            summary,
        }
    }
}
