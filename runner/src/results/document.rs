/*!
A JSON export read back ([`Document`]): what `block-size diff` compares and `block-size report`
renders. It reads the fields those need and ignores the rest, so a file of schema version 1
(before `schema_version`) still compares; a file of a newer version than this program writes
is refused, as is anything that is not an export of a sweep.
*/

use crate::error::{Error, exit};
use crate::model::axis_values::AxisValues;
use crate::model::limits::DeviceLimits;
use crate::results::export::SCHEMA_VERSION;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::Path;

/// A sweep's JSON export, read back.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Document {
    /// The layout's version; 1 where the file does not say.
    #[serde(default = "version_one")]
    pub schema_version: u32,
    /// The provenance object as written: command, date, GPU, driver, PTX, compilers.
    #[serde(default)]
    pub provenance: Map<String, Value>,
    /// The device's limits.
    pub device: DeviceLimits,
    /// The label of the module measured (`cuda_builder`).
    pub kernel: String,
    /// SHA-256 of its PTX.
    pub ptx_sha256: String,
    /// The kernel and what a pass moves. Files from before the field (2026-11-30) measured the
    /// grayscale kernel, the only one then, 16 bytes a pixel: [`Document::parse`] says so.
    #[serde(default)]
    pub workload: Option<Workload>,
    /// The frame's width, where a pass covers a frame.
    #[serde(default)]
    pub width: Option<u32>,
    /// The frame's height.
    #[serde(default)]
    pub height: Option<u32>,
    /// Pixels or items a pass covers.
    pub pixels: u64,
    /// How each row was timed, as written (its layout depends on the version).
    pub timing: Value,
    /// The grid policy's name; files from before `--grid` launched one wave.
    #[serde(default = "one_wave")]
    pub grid: String,
    /// The names of the axes beyond the block size (version 3; [`Document::parse`] fills it
    /// in from version 2's `tunable`).
    #[serde(default)]
    pub axes: Vec<String>,
    /// Version 2's one axis, its name.
    #[serde(default)]
    tunable: Option<String>,
    /// Shared memory per block, where every row had the same.
    #[serde(default)]
    pub shared_memory_per_block: Option<u32>,
    /// The lines above the table (version 2).
    #[serde(default)]
    pub head: Vec<String>,
    /// The rows, each with its samples.
    pub rows: Vec<Row>,
    /// The lines below the table (version 2).
    #[serde(default)]
    pub summary: Vec<String>,
    /// Failed checks of that run.
    #[serde(default)]
    pub failures: Vec<String>,
}

fn version_one() -> u32 {
    1
}

fn one_wave() -> String {
    "one-wave".to_string()
}

/// One row as the export writes it (the fields of [`crate::results::export::RowRecord`] that version 1
/// files have, and the limiter and sample count where they are there).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Row {
    /// Its values on the axes (version 3; filled in from version 2's `tunable`).
    #[serde(default)]
    pub axes: AxisValues,
    /// Version 2's one axis, its value.
    #[serde(default)]
    tunable: Option<String>,
    /// Why it was not launched (version 3), where it was not.
    #[serde(default)]
    pub pruned: Option<String>,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Idle lanes of the last warp.
    pub idle_lanes: u32,
    /// The driver's blocks per SM.
    pub blocks_per_sm: u32,
    /// Resident warps per SM.
    pub warps_per_sm: u32,
    /// Occupancy in percent.
    pub occupancy_percent: f64,
    /// Blocks launched.
    pub grid_blocks: u32,
    /// The median sample, ms.
    #[serde(deserialize_with = "nan_if_null")]
    pub median_ms: f64,
    /// The fastest sample, ms.
    #[serde(deserialize_with = "nan_if_null")]
    pub min_ms: f64,
    /// The slowest sample, ms.
    #[serde(deserialize_with = "nan_if_null")]
    pub max_ms: f64,
    /// Median absolute deviation, ms.
    #[serde(deserialize_with = "nan_if_null")]
    pub mad_ms: f64,
    /// GB/s at the median.
    #[serde(deserialize_with = "nan_if_null")]
    pub gigabytes_per_second: f64,
    /// The fastest median over this row's.
    #[serde(deserialize_with = "nan_if_null")]
    pub fraction_of_best: f64,
    /// Within the noise of the fastest.
    pub within_noise_of_best: bool,
    /// The binding limits (since 2026-11-30).
    #[serde(default)]
    pub limiter: Option<String>,
    /// Every sample, ms.
    #[serde(default)]
    pub run_ms: Vec<f64>,
    /// Why the configuration has no measurement (a launch fault, a hang); its times are then
    /// null, read as NaN.
    #[serde(default)]
    pub failed: Option<String>,
}

/// A time the export wrote as null (a configuration with no measurement) reads as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

/// The kernel and its pass, as the export writes them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Workload {
    /// `--kernel`.
    pub kernel: String,
    /// Bytes a pass moves, as GB/s counts them.
    pub bytes_per_pass: f64,
    /// What those bytes are.
    pub bytes_counted: String,
    /// The kernel's parameters in words (the histogram's bins).
    #[serde(default)]
    pub detail: Option<String>,
    /// What a pass covers where it is not a frame.
    #[serde(default)]
    pub items: Option<Items>,
}

/// Items a pass covers, where not a frame.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Items {
    /// How many.
    pub count: u64,
    /// What they are called.
    pub noun: String,
}

impl Document {
    /// Reads `path`; a file that cannot be read, is not a sweep's JSON export, is of a newer
    /// layout, has no rows or a row without samples is one line, exit 2.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let bad = |why: String| Error::new(exit::USAGE, format!("{}: {why}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|error| bad(format!("cannot read it: {error}")))?;
        Self::parse(&text).map_err(bad)
    }

    /// Parses an export's text; `Err` says why it is not one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut document: Self = serde_json::from_str(text).map_err(|error| {
            format!("not a JSON export of a block-size sweep (--json, --format json): {error}")
        })?;
        if document.schema_version > SCHEMA_VERSION {
            return Err(format!(
                "schema version {}, newer than the {SCHEMA_VERSION} this block-size reads: update block-size",
                document.schema_version
            ));
        }
        if document.workload.is_none() {
            document.workload = Some(Workload {
                kernel: "grayscale".to_string(),
                bytes_per_pass: 16.0 * document.pixels as f64,
                bytes_counted: "moved per pass".to_string(),
                detail: None,
                items: None,
            });
        }
        if document.rows.is_empty() {
            return Err("the sweep has no rows".to_string());
        }
        // Version 2's one axis is version 3's first.
        if let Some(name) = document.tunable.take() {
            document.axes = vec![name.clone()];
            for row in &mut document.rows {
                row.axes =
                    AxisValues(row.tunable.take().map(|value| (name.clone(), value)).into_iter().collect());
            }
        }
        if let Some(row) = document
            .rows
            .iter()
            .find(|row| row.run_ms.is_empty() && row.failed.is_none() && row.pruned.is_none())
        {
            return Err(format!("the row of {} has no samples (run_ms)", document.label(row)));
        }
        Ok(document)
    }

    /// The kernel and what a pass moves (filled in by [`Document::parse`] where the file is
    /// older than the field).
    pub fn workload(&self) -> &Workload {
        self.workload.as_ref().expect("parse fills in the workload")
    }

    /// A row's configuration in words: `256 threads`, or `256 threads, tile 4, grid waves:2`.
    pub fn label(&self, row: &Row) -> String {
        crate::model::axis_values::configuration_label(row.threads_per_block, &row.axes)
    }

    /// What a pass covers: `3840 x 2160 frame`, or `1048576 values`.
    pub fn extent(&self) -> String {
        match (&self.workload().items, self.width, self.height) {
            (Some(items), _, _) => format!("{} {}", items.count, items.noun),
            (None, Some(width), Some(height)) => format!("{width} x {height} frame"),
            _ => format!("{} pixels", self.pixels),
        }
    }

    /// A provenance field as text, where the file has it.
    pub fn provenance(&self, key: &str) -> Option<String> {
        match self.provenance.get(key)? {
            Value::String(text) => Some(text.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    /// The timing in a few words, from either layout: `batch, 10 launches a sample, L2 flush
    /// none, noise-driven stop`.
    pub fn timing_words(&self) -> String {
        let field = |key: &str| self.timing.get(key).cloned().unwrap_or(Value::Null);
        let mode = field("mode").as_str().map_or_else(|| "mode not recorded".to_string(), str::to_string);
        let launches = field("launches_per_sample")
            .as_u64()
            .map_or_else(String::new, |launches| format!(", {launches} launch(es) a sample"));
        let l2 = match (field("l2_flush"), field("flush_l2"), field("cold_keeps_l2")) {
            (Value::String(flush), _, _) => flush,
            // Version 1: cold timing flushed unless it kept the L2, whatever flush_l2 said.
            (_, Value::Bool(flush), keeps) => {
                let cold = mode == "cold" && keeps != Value::Bool(true);
                if flush || cold { "flushed" } else { "none" }.to_string()
            }
            _ => "not recorded".to_string(),
        };
        let stop = if field("stop").is_null() { "fixed count" } else { "noise-driven stop" };
        format!("{mode}{launches}, L2 flush {l2}, {stop}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_an_export_is_said_in_one_line() {
        for (text, why) in [
            ("{", "not a JSON export of a block-size sweep (--json, --format json): EOF while parsing"),
            ("[1, 2]", "not a JSON export of a block-size sweep (--json, --format json): invalid type"),
            (
                "{\"rows\": []}",
                "not a JSON export of a block-size sweep (--json, --format json): missing field",
            ),
        ] {
            let error = Document::parse(text).unwrap_err();
            assert!(error.starts_with(why), "{error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
        let missing = Document::read(Path::new("/no/such/file.json")).unwrap_err();
        assert_eq!(missing.exit_status(), exit::USAGE);
        assert!(missing.to_string().starts_with("/no/such/file.json: cannot read it: "), "{missing}");
    }
}
