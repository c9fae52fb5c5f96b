/*!
The schema of a sweep's JSON export: [`SweepRecord`] (the document) and [`RowRecord`] (one
row), the one type every export, the plot, the HTML page, `block-size diff` and `block-size
report` work from. It is written ([`serde::Serialize`]), read back ([`SweepRecord::parse`],
[`SweepRecord::read`]) and upgraded from every version this tool has written.

# Versions

[`SCHEMA_VERSION`] is the layout written, its `schema_version` field:

- **1** (2026-11-30, no `schema_version` field): `timing` had `flush_l2` (and, for a while,
  `cold_keeps_l2`) where version 2 has `l2_flush` (a cold run said `flush_l2: false` although
  it flushed); no `head`, `summary` or `shared_memory_per_block`. The first files had no
  `provenance`, `workload`, `grid`, timing mode nor a row's `limiter`, `timing_mode`,
  `launches_per_sample`, `samples` or `stopped`; later ones had one tunable, as version 2.
- **2** (2026-12-01): one tunable axis, `tunable` (its name), `fastest_tunable` and a row's
  `tunable` (its value); `search`, `ended_early` and a row's `failed` came during it.
- **3** (2026-12-01): any number of axes, `axes`, `fastest_axes` and a row's `axes`; a row's
  `pruned`.
- **4** (2026-12-02): timing mode `graph`, `timing.energy_window_s`, `objective` (a row's
  `fraction_of_best` is by it), a row's `sm_clock` and `energy`. A version 3 file reads as
  version 4 unchanged; a version 3 reader refuses a version 4 file in one line rather than
  misread its `fraction_of_best` or fail on `graph`. Later in version 4, for `block-size
  merge` (absent: not recorded, or a sweep measured whole): `occupancy_model`, `shard`,
  `merged_from` and a row's `dynamic_shared_memory`.

# The version rule

- A new field that an older file of the same version lacks keeps the version, if its absence
  has one meaning, said where the field is read: a value derived from what the file has (or
  from what the tool did before the field existed), or an explicit "not recorded" state
  (`None` here) that the HTML page and `block-size diff` say in words
  ([`SweepRecord::lacking`]). A reader ignores fields it does not know, so an older program
  still reads a newer file of its version.
- A field whose meaning changes, or one removed or renamed, raises the version, and the reader
  gets one more upgrade step ([`upgrade`]): each step turns a version into the next, so every
  older version reaches the current one.
- A file of a newer version than [`SCHEMA_VERSION`] is refused in one line (update
  block-size), as is anything that is not an export of a sweep.

The block shapes, timing and many-GPU work add to the row under this rule.

[`serde::Deserialize`] reads the current layout alone; [`SweepRecord::parse`] reads every
version: it upgrades the file's JSON step by step to the current layout, then reads it as this
type. The JSON the exporter writes of a sweep is [`SweepRecord`] serialised as it is.
*/

mod check;
pub(crate) mod t4;
mod upgrade;

use crate::error::{Error, exit, one_line, shown};
use crate::files::{MAX_INPUT_BYTES, read_bounded};
use crate::measure::record::provenance::Provenance;
use crate::measure::sampling::timing::{Stopped, Timing, TimingMode};
use crate::measure::sensors::{RowClock, RowEnergy};
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Counters, CountersRun};
use crate::model::grid::GridPolicy;
use crate::model::limits::{DeviceLimits, Suggestion};
use crate::model::objective::Objective;
use crate::model::pass::Pass;
use crate::model::shard::{Shard, ShardOf};
use crate::search::strategy::Search;
use crate::search::sweep::ModelCheck;
use serde::{Deserialize, Deserializer, Serialize};
use std::path::Path;

/// The version of the JSON export's layout, its `schema_version` field: 4 since 2026-12-02
/// (graph timing, objectives, clocks and energy). The reader upgrades versions 1 to 3 and refuses a newer one; the
/// rule for raising it is in docs/statistics-and-exports.md.
pub const SCHEMA_VERSION: u32 = 4;

/// A sweep's JSON export: the document, as written and as read back (upgraded to the current
/// layout). Fields an older file did not have are derived where the file or the tool's history
/// says what they were, and `None` ("not recorded") where nothing does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// The layout's version: [`SCHEMA_VERSION`], also after an upgrade ([`Origin`] keeps the
    /// file's).
    pub schema_version: u32,
    /// Command, date, GPU, driver, CUDA version, PTX sha256, rust-cuda revision, toolchain;
    /// `None`: not recorded (the first version 1 files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What the driver reports about the device.
    pub device: DeviceLimits,
    /// The label of the module measured (the provenance's `kernel`).
    pub kernel: String,
    /// SHA-256 of its PTX.
    pub ptx_sha256: String,
    /// The kernel measured (`--kernel`) and what one pass of it moves.
    pub workload: PassRecord,
    /// The frame's width; absent where a pass covers items, not a frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// The frame's height; absent where a pass covers items, not a frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Pixels, or items, one pass covers.
    pub pixels: u64,
    /// How each row was timed; the L2 flush as one field, `l2_flush`.
    pub timing: Timing,
    /// How many blocks each row launched (`--grid`): `one-wave`, `per-item` or `waves:K`.
    #[serde(deserialize_with = "grid_by_name")]
    pub grid: GridPolicy,
    /// The names of the axes beyond the block size, in order (empty where there is none):
    /// each row says its values.
    pub axes: Vec<String>,
    /// Shared memory each block asked for, static plus dynamic, in bytes: `Some(Some(bytes))`
    /// where it was the same at every row and the occupancy model read it, `Some(None)` (null)
    /// where not; `None`: not recorded (version 1).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub shared_memory_per_block: Option<Option<u32>>,
    /// The lines the table printed above itself: the device, the work, the timing, the grid;
    /// `None`: not recorded (version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<Vec<String>>,
    /// One record per row.
    pub rows: Vec<RowRecord>,
    /// The driver's suggested block size and grid.
    pub suggestion: Suggestion,
    /// The fastest row's block size.
    pub fastest_threads_per_block: Option<u32>,
    /// The fastest row's block shape, where it is not its block size in x alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fastest_block: Option<BlockShape>,
    /// The fastest row's values on the axes (absent where the sweep has no axis).
    #[serde(default, skip_serializing_if = "AxisValues::is_empty")]
    pub fastest_axes: AxisValues,
    /// Rows within 95 percent of the fastest.
    pub rows_near_best: usize,
    /// How the samples were spent (`--search`): `exhaustive`, or `race` (raced rows say
    /// `stopped: raced`).
    #[serde(deserialize_with = "search_by_name")]
    pub search: Search,
    /// What made a row the best (`--objective`): `time` (absent), `energy` or `edp`; the
    /// rows' `fraction_of_best` are by it.
    #[serde(default, skip_serializing_if = "is_time")]
    pub objective: Objective,
    /// The occupancy model's check, in words.
    pub model_check: String,
    /// The lines the table printed below itself: the suggestion, the fastest row, the rows
    /// near it, the noise-driven stop, the occupancy model's check; `None`: not recorded
    /// (version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Vec<String>>,
    /// The occupancy model's check whole, for `block-size merge` to add shards' up; `None`:
    /// not recorded (a file of before `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_model: Option<ModelCheck>,
    /// Where this file is one shard of a sweep (`--shard I/N`): which, and of how many
    /// configurations; absent for a whole sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardOf>,
    /// Where the measurement's wall time went, in seconds by part (`--stats`' `Time:` line);
    /// absent where it was not timed (a file written before, a merge, a T4 file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<crate::measure::sampling::wall_time::WallTime>,
    /// What `--counters` read for the sweep as a whole: the device-to-device copy its rows'
    /// DRAM rates are a percentage of, the profiler, or why no row has counters; absent
    /// without `--counters` (and in every file of before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<CountersRun>,
    /// Where this file is `block-size merge`'s (or `--split`'s) of shards: each shard's
    /// command, date and GPU; empty for a sweep measured whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<PartRecord>,
    /// Failed checks; a non-empty list means the rows are not a measurement.
    pub failures: Vec<String>,
    /// Why the sweep ended before its last configuration ("interrupted by SIGINT", "the GPU
    /// context was lost"), where it did (null where it did not): the rows are then those
    /// finished before.
    pub ended_early: Option<String>,
    /// The file's own version and what the reader derived for it: not part of the JSON.
    #[serde(skip)]
    pub origin: Origin,
}

/// One row of the export: a configuration and its measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowRecord {
    /// The row's value on each axis of the sweep ([`SweepRecord::axes`]), as an object in the
    /// axes' order; absent where the sweep has no axis.
    #[serde(default, skip_serializing_if = "AxisValues::is_empty")]
    pub axes: AxisValues,
    /// Threads per block.
    pub threads_per_block: u32,
    /// The block's shape (`32x8`) where it is not `threads_per_block` in x alone; absent for
    /// a block in x alone, as in every file of before block shapes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockShape>,
    /// Warps per block, rounded up.
    pub warps_per_block: u32,
    /// Threads of the last warp with no work: a block size not a multiple of 32.
    pub idle_lanes: u32,
    /// The driver's resident blocks per SM.
    pub blocks_per_sm: u32,
    /// Resident warps per SM: blocks/SM x warps per block.
    pub warps_per_sm: u32,
    /// Resident warps over the SM's maximum, in percent.
    #[serde(deserialize_with = "nan_if_null")]
    pub occupancy_percent: f64,
    /// Blocks launched.
    pub grid_blocks: u32,
    /// The grid's shape (`120x270`) where it is not `grid_blocks` in x alone; absent for a
    /// grid in x alone, as in every file of before grid shapes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridShape>,
    /// Bytes of dynamic shared memory its blocks were launched with (absent: not recorded, a
    /// file of before `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_shared_memory: Option<u32>,
    /// The median sample, in milliseconds (NaN, written null, where there is no measurement).
    #[serde(deserialize_with = "nan_if_null")]
    pub median_ms: f64,
    /// The fastest sample, in milliseconds.
    #[serde(deserialize_with = "nan_if_null")]
    pub min_ms: f64,
    /// The slowest sample, in milliseconds.
    #[serde(deserialize_with = "nan_if_null")]
    pub max_ms: f64,
    /// The samples' median absolute deviation, in milliseconds.
    #[serde(deserialize_with = "nan_if_null")]
    pub mad_ms: f64,
    /// The bytes one pass moves over the median, in GB/s.
    #[serde(deserialize_with = "nan_if_null")]
    pub gigabytes_per_second: f64,
    /// The fastest row's median over this row's.
    #[serde(deserialize_with = "nan_if_null")]
    pub fraction_of_best: f64,
    /// Whether this row is slower than the fastest by no more than their MADs added.
    pub within_noise_of_best: bool,
    /// The resources that bind blocks/SM at this size by the occupancy model (`warps+blocks`
    /// where two meet; `-` where the model did not run); `None`: not recorded (the first
    /// version 1 files).
    pub limiter: Option<String>,
    /// How the samples were taken (`--timing`): batch, cold, launch or graph.
    pub timing_mode: TimingMode,
    /// Launches each sample holds: a batch's or a graph's, or 1.
    pub launches_per_sample: u32,
    /// Samples this row took.
    pub samples: usize,
    /// Why the noise-driven stop ended the row (converged, time_budget, max_runs, raced,
    /// median_known);
    /// empty for a fixed count.
    pub stopped: Option<Stopped>,
    /// Every sample's milliseconds, in order: one launch's, or a batch's mean (JSON only; CSV
    /// and Markdown keep one line per row).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_ms: Vec<f32>,
    /// Why this configuration has no measurement (a launch fault, a hang); empty where it has
    /// one. Its times are then empty too.
    pub failed: Option<String>,
    /// Why this configuration was not launched: the device cannot launch it by the occupancy
    /// model (threads, registers or shared memory beyond a block's); empty where it was. Its
    /// times are then empty too.
    pub pruned: Option<String>,
    /// The SM clock while its samples ran (absent: no sensors, or a file of before
    /// 2026-12-02).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock: Option<RowClock>,
    /// Its energy (`--energy`; absent without).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<RowEnergy>,
    /// Its hardware counters (`--counters`; absent without, or where they were not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
}

/// One shard of a merged file: what measured it, where and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartRecord {
    /// Which shard (absent: a whole sweep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Its command line.
    pub command: String,
    /// When it started (RFC 3339, UTC).
    pub date: String,
    /// Its GPU's name.
    pub gpu: String,
}

fn is_time(objective: &Objective) -> bool {
    *objective == Objective::Time
}

/// The kernel and what one pass of it moves, as the export writes [`Pass`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassRecord {
    /// The kernel's name (`--kernel`).
    pub kernel: String,
    /// Bytes one pass moves, as every GB/s column counts them.
    pub bytes_per_pass: f64,
    /// What those bytes are: "moved per pass".
    pub bytes_counted: String,
    /// A line on the kernel's parameters, where it has any (the histogram's bins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What a pass covers where it is not a frame of pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<ItemsRecord>,
}

/// Items a pass covers, where it is not a frame: how many, and what they are called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemsRecord {
    /// How many.
    pub count: u64,
    /// Their name in the plural: "values".
    pub noun: String,
}

/// Where a record came from: the version of the file it was read from, and what the reader
/// derived for the fields that version did not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file's `schema_version` (1 where it had none); [`SCHEMA_VERSION`] for a record of
    /// a sweep just measured.
    pub schema_version: u32,
    /// Each derived field in words, with why: "timing: launch mode, one launch a sample (...)".
    pub derived: Vec<&'static str>,
    /// Where the record was read from a file in Kernel Tuner's formats, that file in words ("a
    /// T4 results file (schema 1.0.0)", "a Kernel Tuner cache file"): a T4 results file
    /// (Kernel Tuner's, or `--format t4`'s) or Kernel Tuner's cache. Then only its rows'
    /// configurations, samples and validity were in the file, and every other field reads as
    /// not recorded ([`t4`]).
    pub(crate) kernel_tuner: Option<String>,
}

impl Default for Origin {
    /// A record in the current layout, nothing derived.
    fn default() -> Self {
        Self { schema_version: SCHEMA_VERSION, derived: Vec::new(), kernel_tuner: None }
    }
}

impl PassRecord {
    /// The record of `pass`.
    pub fn of(pass: &Pass) -> Self {
        Self {
            kernel: pass.kernel.to_string(),
            bytes_per_pass: pass.bytes_per_pass,
            bytes_counted: pass.bytes_counted.to_string(),
            detail: pass.detail.clone(),
            items: pass
                .items
                .as_ref()
                .map(|items| ItemsRecord { count: items.count, noun: items.noun.to_string() }),
        }
    }
}

impl RowRecord {
    /// Whether the row has a measurement: it neither failed nor was pruned.
    pub fn measured(&self) -> bool {
        self.failed.is_none() && self.pruned.is_none()
    }

    /// Its block: its shape, or its threads in x alone.
    pub fn shape(&self) -> BlockShape {
        self.block.unwrap_or(BlockShape::linear(self.threads_per_block))
    }

    /// Its grid: its shape, or its blocks in x alone.
    pub fn grid_shape(&self) -> GridShape {
        self.grid.unwrap_or(GridShape::linear(self.grid_blocks))
    }

    /// Its configuration in words: `256 threads`, `block 32x8`, or `256 threads, tile 4, grid
    /// waves:2`.
    pub fn label(&self) -> String {
        crate::model::axis_values::configuration_label(self.shape(), &self.axes)
    }
}

impl SweepRecord {
    /// Reads `path` (at most [`MAX_INPUT_BYTES`]); a file that cannot be read, is larger, is not
    /// a sweep's JSON export, is of a newer layout, or holds what no sweep writes (no rows, a
    /// measured row without samples, a time that is not finite and above zero, counts that
    /// disagree: [`check`]) is one line naming the file, exit 2.
    pub fn read(path: &Path) -> Result<Self, Error> {
        let mut records = Self::read_all(path)?;
        match records.len() {
            1 => Ok(records.remove(0)),
            several => Err(Error::new(
                exit::USAGE,
                format!(
                    "{}: the results of {several} GPU models (block-size merge --json of several): this reads one sweep; block-size report and merge read them all",
                    shown(path)
                ),
            )),
        }
    }

    /// Reads `path` as [`SweepRecord::read`] does, where it may also be `block-size merge
    /// --json`'s document of several GPU models: a JSON array of sweeps' exports, each read
    /// and checked as one (a message about one names it `FILE[1]`). An empty array is refused.
    pub fn read_all(path: &Path) -> Result<Vec<Self>, Error> {
        let usage = |why: String| Error::new(exit::USAGE, one_line(&why));
        let text = read_bounded(path, "result file", MAX_INPUT_BYTES).map_err(usage)?;
        Self::parse_all(&text).map_err(|why| usage(format!("{}{why}", shown(path))))
    }

    /// [`SweepRecord::parse`] of one export, or of each element of a JSON array of them; `Err`
    /// begins with the element's place (`[1]: `) or `: `, for the caller to put after the
    /// file's name.
    pub(crate) fn parse_all(text: &str) -> Result<Vec<Self>, String> {
        if !text.trim_start().starts_with('[') {
            return Self::parse(text).map(|record| vec![record]).map_err(|why| format!(": {why}"));
        }
        crate::files::check_unique_keys(text).map_err(|why| format!(": {}", one_line(&why)))?;
        let elements: Vec<Box<serde_json::value::RawValue>> =
            serde_json::from_str(text).map_err(|error| {
                one_line(&format!(
                    ": {NOT_AN_EXPORT}, nor a JSON array of them (block-size merge --json): {error}"
                ))
            })?;
        if elements.is_empty() {
            return Err(format!(": an empty JSON array: {NOT_AN_EXPORT}, nor a JSON array of them"));
        }
        elements
            .iter()
            .enumerate()
            .map(|(index, element)| Self::parse(element.get()).map_err(|why| format!("[{index}]: {why}")))
            .collect()
    }

    /// Parses an export of any version this tool wrote, upgraded to the current layout, and
    /// checks what it holds, or a T4 results file (Kernel Tuner's, or `--format t4`'s: its
    /// record's [`Origin`] says so, and holds only what T4 carries); `Err` says in one line
    /// why the text is neither.
    pub fn parse(text: &str) -> Result<Self, String> {
        let not_an_export = |error: serde_json::Error| one_line(&format!("{NOT_AN_EXPORT}: {error}"));
        crate::files::check_unique_keys(text).map_err(|why| one_line(&why))?;
        // A file of the current layout is read as this type straight away: the upgrade's
        // detour through `serde_json::Value` costs several times the parse of a large file.
        // Anything else (an older layout, or not an export) takes the detour, which also says
        // why a file is not an export.
        let record = match serde_json::from_str::<Self>(text) {
            Ok(record) if record.schema_version == SCHEMA_VERSION => record,
            _ => {
                // Kernel Tuner's cache may be one a run left open: read as Kernel Tuner reads it.
                let value: serde_json::Value = match serde_json::from_str(text) {
                    Ok(value) => value,
                    Err(error) => t4::closed_cache(text)
                        .and_then(|closed| serde_json::from_str(&closed).ok())
                        .ok_or_else(|| not_an_export(error))?,
                };
                // A file of Kernel Tuner's holds only what it holds: it is read as such, not
                // checked as a sweep's.
                if t4::is_t4(&value) {
                    return t4::record_of(&value);
                }
                if t4::is_cache(&value) {
                    return t4::cache_record_of(&value);
                }
                let upgraded = upgrade::upgrade(value).map_err(|why| one_line(&why))?;
                let mut record: Self = serde_json::from_value(upgraded.value).map_err(not_an_export)?;
                record.origin =
                    Origin { schema_version: upgraded.from, derived: upgraded.derived, kernel_tuner: None };
                record
            }
        };
        check::check(&record).map_err(|why| one_line(&why))?;
        Ok(record)
    }

    /// The rows with a measurement (not failed, not pruned).
    pub fn measured_rows(&self) -> impl Iterator<Item = &RowRecord> {
        self.rows.iter().filter(|row| row.measured())
    }

    /// The fastest row as recorded ([`SweepRecord::fastest_threads_per_block`] and its axes),
    /// where it is a measured row.
    pub fn fastest(&self) -> Option<&RowRecord> {
        let threads = self.fastest_threads_per_block?;
        let block = self.fastest_block.unwrap_or(BlockShape::linear(threads));
        self.measured_rows().find(|row| {
            row.threads_per_block == threads && row.shape() == block && row.axes == self.fastest_axes
        })
    }

    /// What a pass covers: `3840 x 2160 frame`, or `1048576 values`.
    pub fn extent(&self) -> String {
        if self.origin.kernel_tuner.is_some() {
            return format!("work {}", t4::NOT_RECORDED);
        }
        match (&self.workload.items, self.width, self.height) {
            (Some(items), _, _) => format!("{} {}", items.count, items.noun),
            (None, Some(width), Some(height)) => format!("{width} x {height} frame"),
            _ => format!("{} pixels", self.pixels),
        }
    }

    /// What the file did not record, each in a few words, in the order of the fields.
    pub fn not_recorded(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.provenance.is_none() {
            missing.push("its provenance (command, date, driver, compilers)");
        }
        if self.shared_memory_per_block.is_none() {
            missing.push("the shared memory per block");
        }
        if self.head.is_none() {
            missing.push("the lines above its table (head)");
        }
        if self.summary.is_none() {
            missing.push("the lines below its table (summary)");
        }
        if self.rows.iter().any(|row| row.limiter.is_none()) {
            missing.push("its rows' limiters");
        }
        missing
    }

    /// What an older file lacks, as a sentence about `subject` ("This file", "OLD"): "This file
    /// (schema version 1) did not record X and Y; read as the tool worked then: A; B." `None`
    /// where it lacks nothing.
    pub fn lacking(&self, subject: &str) -> Option<String> {
        if let Some(file) = &self.origin.kernel_tuner {
            let mut missing = Vec::new();
            if self.device.name == t4::NOT_RECORDED {
                missing.push("GPU");
            }
            if self.workload.kernel == t4::NOT_RECORDED {
                missing.push("kernel");
            }
            missing.extend(["PTX", "work", "timing", "occupancy", "clocks", "energy", "provenance"]);
            return Some(format!(
                "{subject} is {file}: it records each configuration's samples and validity, \
                 not its {}.",
                or_list(&missing)
            ));
        }
        let missing = self.not_recorded();
        let derived = &self.origin.derived;
        if missing.is_empty() && derived.is_empty() {
            return None;
        }
        let mut text = format!("{subject} (schema version {})", self.origin.schema_version);
        if !missing.is_empty() {
            text += &format!(" did not record {}", and_list(&missing));
        }
        if !derived.is_empty() {
            text += if missing.is_empty() { " was " } else { "; " };
            text += &format!("read as the tool worked then: {}", derived.join("; "));
        }
        text.push('.');
        Some(text)
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[&str]) -> String {
    and_list(items)
        .rsplit_once(" and ")
        .map_or_else(|| and_list(items), |(rest, last)| format!("{rest} or {last}"))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The start of every refusal of a file that is not an export.
const NOT_AN_EXPORT: &str = "not a JSON export of a block-size sweep (--json, --format json)";

/// A time the export wrote as null (a configuration with no measurement) reads as NaN.
fn nan_if_null<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN))
}

/// A field that is there, null or not: `Some(None)` for null (absent is `None`, by `default`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A grid policy by its name: `one-wave`, `per-item`, `waves:K`.
fn grid_by_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<GridPolicy, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map_err(serde::de::Error::custom)
}

/// A search by its name: `exhaustive`, `race`.
fn search_by_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Search, D::Error> {
    let name = String::deserialize(deserializer)?;
    Search::from_name(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("search `{name}` is not exhaustive or race")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::sampling::timing::{L2Flush, NoiseStop};
    use serde_json::{Value, json};

    /// A PTX hash as every version wrote one.
    const SHA: &str = "0c6b50b2ecc5b680a9c217d17903d8d39082fd2605500534972ee53239105b8a";

    /// A row as version 3 writes it, at `threads` threads, its two samples 0.4 and 0.6 ms.
    fn row(threads: u32) -> Value {
        json!({
            "threads_per_block": threads, "warps_per_block": threads / 32, "idle_lanes": 0,
            "blocks_per_sm": 8, "warps_per_sm": 64, "occupancy_percent": 100.0, "grid_blocks": 1056,
            "median_ms": 0.5, "min_ms": 0.4, "max_ms": 0.6, "mad_ms": 0.1,
            "gigabytes_per_second": 1.5, "fraction_of_best": 1.0, "within_noise_of_best": false,
            "limiter": "warps", "timing_mode": "batch", "launches_per_sample": 10, "samples": 2,
            "stopped": "converged", "run_ms": [0.4, 0.6], "failed": null, "pruned": null
        })
    }

    /// A minimal document of version 3, of one row at 256 threads.
    fn version_3() -> Value {
        json!({
            "schema_version": 3,
            "provenance": {
                "command": "block-size --json s.json", "date": "2026-12-01T12:00:00Z", "gpu": "NVIDIA H200",
                "compute_capability": "9.0", "driver_release": "580.159.04", "cuda_driver_api": "13.0",
                "kernel": "cuda_builder", "ptx_sha256": SHA, "registers_per_thread": 16,
                "compiler": "cuda_builder", "runner": "block-size 0.1.0"
            },
            "device": crate::measure::gpu::mock::MockGpu::h200_like().limits,
            "kernel": "cuda_builder", "ptx_sha256": SHA,
            "workload": {"kernel": "grayscale", "bytes_per_pass": 1024.0, "bytes_counted": "moved per pass"},
            "width": 16, "height": 4, "pixels": 64,
            "timing": {
                "mode": "batch", "warmups": 3, "runs": 2, "launches_per_sample": 10, "l2_flush": "none",
                "stop": {"max_noise": 0.005, "max_time_per_row_s": 0.5, "max_runs": 10000}
            },
            "grid": "one-wave", "axes": [], "shared_memory_per_block": null,
            "head": ["GPU: NVIDIA H200 (compute capability 9.0)"],
            "rows": [row(256)],
            "suggestion": {"threads_per_block": 1024, "grid_blocks": 264},
            "fastest_threads_per_block": 256, "rows_near_best": 1, "search": "race",
            "model_check": "model with 16 registers/thread and 0 B static shared memory agrees at 1 of 1 rows",
            "summary": ["Fastest measured: 256 threads per block at 0.500 ms."],
            "failures": [], "ended_early": null
        })
    }

    /// Version 2 of the same: one tunable, no `axes`, no row's `pruned`; `search`, `ended_early`
    /// and `failed` not yet written.
    fn version_2() -> Value {
        let mut document = version_3();
        let object = document.as_object_mut().unwrap();
        object.insert("schema_version".into(), json!(2));
        object.insert("tunable".into(), json!("items/thr"));
        object.insert("fastest_tunable".into(), json!("4"));
        for key in ["axes", "search", "ended_early"] {
            object.remove(key);
        }
        let row = object["rows"][0].as_object_mut().unwrap();
        row.insert("tunable".into(), json!("4"));
        row.remove("failed");
        row.remove("pruned");
        document
    }

    /// The first version 1 of the same, as evidence/2026-11-30-h200-stats has it: no
    /// `schema_version`, `provenance`, `workload`, `grid`, `head`, `summary` or
    /// `shared_memory_per_block`; launch timing with `flush_l2`; rows without a limiter, timing
    /// or sample count.
    fn version_1() -> Value {
        let mut document = version_2();
        let object = document.as_object_mut().unwrap();
        for key in
            ["schema_version", "provenance", "workload", "grid", "head", "summary", "shared_memory_per_block"]
        {
            object.remove(key);
        }
        for key in ["tunable", "fastest_tunable"] {
            object.remove(key);
        }
        object.insert("timing".into(), json!({"warmups": 3, "runs": 2, "flush_l2": true}));
        let row = object["rows"][0].as_object_mut().unwrap();
        for key in ["tunable", "limiter", "timing_mode", "launches_per_sample", "samples", "stopped"] {
            row.remove(key);
        }
        document
    }

    fn parse(document: &Value) -> SweepRecord {
        SweepRecord::parse(&document.to_string()).unwrap_or_else(|why| panic!("{why}"))
    }

    #[test]
    fn version_3_reads_as_written() {
        let record = parse(&version_3());
        assert_eq!(
            record.origin,
            Origin { schema_version: 3, derived: Vec::new(), kernel_tuner: None },
            "nothing derived"
        );
        assert_eq!((record.objective, record.timing.energy_window), (Objective::Time, None));
        assert!(record.rows.iter().all(|row| row.sm_clock.is_none() && row.energy.is_none()));
        assert_eq!(record.search, Search::Race);
        assert_eq!(record.timing.stop, Some(NoiseStop::DEFAULT));
        assert_eq!(record.shared_memory_per_block, Some(None), "null: recorded, not one value");
        assert_eq!(record.rows[0].stopped, Some(Stopped::Converged));
        assert_eq!(record.not_recorded(), Vec::<&str>::new());
        assert_eq!(record.lacking("This file"), None);
        // Written again (as version 4), it reads the same.
        let again = parse(&serde_json::to_value(&record).unwrap());
        assert_eq!(again, SweepRecord { origin: Origin::default(), ..record });
    }

    #[test]
    fn version_2_upgrades_its_tunable_to_one_axis() {
        let record = parse(&version_2());
        assert_eq!(record.schema_version, SCHEMA_VERSION);
        assert_eq!(record.origin.schema_version, 2);
        assert_eq!(record.axes, ["items/thr"]);
        let four = AxisValues(vec![("items/thr".into(), "4".into())]);
        assert_eq!((&record.rows[0].axes, &record.fastest_axes), (&four, &four));
        assert_eq!(record.fastest().map(RowRecord::label).as_deref(), Some("256 threads, items/thr 4"));
        // Before --search every sweep was exhaustive; before failed rows and signals, a file
        // was a whole sweep.
        assert_eq!(record.search, Search::Exhaustive);
        assert_eq!(
            (&record.ended_early, &record.rows[0].failed, &record.rows[0].pruned),
            (&None, &None, &None)
        );
        assert_eq!(
            record.lacking("This file").as_deref(),
            Some(
                "This file (schema version 2) was read as the tool worked then: search: exhaustive (the only search before --search)."
            )
        );
        // Written again, it is a version 3 file that reads as the upgraded record.
        let again = parse(&serde_json::to_value(&record).unwrap());
        assert_eq!(again, SweepRecord { origin: Origin::default(), ..record });
    }

    #[test]
    fn version_1_upgrades_what_it_can_and_says_what_it_did_not_record() {
        let record = parse(&version_1());
        assert_eq!(record.origin.schema_version, 1);
        // Launch timing, one launch a sample, a fixed count; the flush as one field.
        assert_eq!(record.timing, Timing { stop: None, flush_l2: true, ..Timing::launch(3, 2) });
        assert_eq!(record.timing.l2_flush(), L2Flush::BeforeEachLaunch);
        let row = &record.rows[0];
        assert_eq!((row.timing_mode, row.launches_per_sample, row.samples), (TimingMode::Launch, 1, 2));
        assert_eq!((&row.limiter, row.stopped), (&None, None));
        assert_eq!(record.workload.kernel, "grayscale");
        assert_eq!(record.workload.bytes_per_pass, 16.0 * 64.0);
        assert_eq!((record.grid, record.search), (GridPolicy::OneWave, Search::Exhaustive));
        assert!(record.axes.is_empty() && record.fastest_axes.is_empty());
        assert_eq!((&record.provenance, &record.head, &record.summary), (&None, &None, &None));
        assert_eq!(record.shared_memory_per_block, None);
        assert_eq!(
            record.lacking("This file").unwrap(),
            "This file (schema version 1) did not record its provenance (command, date, driver, compilers), \
             the shared memory per block, the lines above its table (head), the lines below its table (summary) \
             and its rows' limiters; read as the tool worked then: timing: launch mode, one launch a sample, \
             a fixed count (the only timing before --timing); workload: grayscale, 16 B moved a pixel (the only \
             kernel before --kernel); grid: one-wave (the only grid before --grid); search: exhaustive (the only \
             search before --search)."
        );
        // The not-recorded states survive being written again.
        let again = parse(&serde_json::to_value(&record).unwrap());
        assert_eq!(again.not_recorded(), record.not_recorded());
    }

    #[test]
    fn a_later_version_1_file_had_its_timing_mode_and_a_tunable() {
        // Cold timing said flush_l2: false although it flushed, unless it kept the L2.
        for (cold_keeps_l2, flush) in [(false, L2Flush::BeforeEachLaunch), (true, L2Flush::None)] {
            let mut document = version_1();
            document["tunable"] = json!("tile");
            document["fastest_tunable"] = json!("2");
            document["timing"] = json!({"mode": "cold", "warmups": 0, "runs": 5, "launches_per_sample": 1,
                                        "flush_l2": false, "cold_keeps_l2": cold_keeps_l2, "stop": null});
            document["rows"][0]["tunable"] = json!("2");
            document["rows"][0]["limiter"] = json!("warps");
            let record = parse(&document);
            assert_eq!(record.timing.l2_flush(), flush);
            assert_eq!(record.timing.cold_keeps_l2, cold_keeps_l2);
            assert_eq!(
                (record.rows[0].timing_mode, record.rows[0].launches_per_sample),
                (TimingMode::Cold, 1)
            );
            assert_eq!(record.axes, ["tile"]);
            assert_eq!(record.fastest().map(RowRecord::label).as_deref(), Some("256 threads, tile 2"));
            assert!(
                !record.origin.derived.iter().any(|said| said.starts_with("timing")),
                "the mode was there"
            );
        }
    }

    #[test]
    fn what_is_not_an_export_is_said_in_one_line() {
        let newer = version_3().to_string().replace("\"schema_version\":3", "\"schema_version\":5");
        let hostile = version_3().to_string().replace("\"one-wave\"", "\"one\\nwave\"");
        let no_rows = version_3().to_string().replace(&row(256).to_string(), "");
        for (text, why) in [
            ("{", "not a JSON export of a block-size sweep (--json, --format json): EOF while parsing"),
            ("[1, 2]", "not a JSON export of a block-size sweep (--json, --format json): invalid type"),
            (
                "{\"rows\": []}",
                "not a JSON export of a block-size sweep (--json, --format json): missing field",
            ),
            (
                "{\"schema_version\": 0}",
                "not a JSON export of a block-size sweep (--json, --format json): schema_version 0 is not a version",
            ),
            (&newer, "schema version 5, newer than the 4 this block-size reads: update block-size"),
            (
                &hostile,
                "not a JSON export of a block-size sweep (--json, --format json): `one\\nwave` is not one-wave",
            ),
            (&no_rows, "the sweep has no rows"),
        ] {
            let error = SweepRecord::parse(text).unwrap_err();
            assert!(error.starts_with(why), "{error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
        let mut empty = version_3();
        empty["rows"][0]["run_ms"] = json!([]);
        assert_eq!(
            SweepRecord::parse(&empty.to_string()).unwrap_err(),
            "the row of 256 threads has no samples (run_ms)"
        );
        let missing = SweepRecord::read(Path::new("/no/such/file.json")).unwrap_err();
        assert_eq!(missing.exit_status(), exit::USAGE);
        assert!(missing.to_string().starts_with("cannot read result file /no/such/file.json: "), "{missing}");
        let endless = SweepRecord::read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(endless.to_string(), "result file /dev/zero is larger than 1 GiB: refused");
    }

    /// The refusal of `document` with `edit` made, which must be one line.
    fn refusal(edit: impl FnOnce(&mut Value)) -> String {
        let mut document = version_3();
        edit(&mut document);
        let error = SweepRecord::parse(&document.to_string()).expect_err("refused");
        assert_eq!(error.lines().count(), 1, "{error}");
        error
    }

    #[test]
    fn a_time_no_sweep_measures_is_refused_naming_the_row_and_the_field() {
        // What used to read: negative, zero, huge (1e308 as an f32 sample is infinite) and null
        // times, and a median that is not its samples'.
        for (sample, why) in [(-1.0, "run_ms[0] -1 ms"), (0.0, "run_ms[0] 0 ms")] {
            let error = refusal(|document| document["rows"][0]["run_ms"] = json!([sample, 0.6]));
            assert_eq!(error, format!("the row of 256 threads has {why}: a time must be finite and above 0"));
        }
        // 1e308 is out of an f32's range: read through the JSON (every version's way where the
        // straight read fails) it is infinite, which the check refuses.
        let huge = |mut document: Value| {
            document["rows"][0]["run_ms"] = json!([0.4, 1e308]);
            SweepRecord::parse(&document.to_string()).unwrap_err()
        };
        assert_eq!(
            huge(version_3()),
            "the row of 256 threads has run_ms[1] inf ms: a time must be finite and above 0"
        );
        assert_eq!(
            huge(version_2()),
            "the row of 256 threads, items/thr 4 has run_ms[1] inf ms: a time must be finite and above 0"
        );
        let error = refusal(|document| document["rows"][0]["median_ms"] = json!(null));
        assert_eq!(
            error,
            "the row of 256 threads has median_ms NaN where its samples give 0.5000000149011612"
        );
        let error = refusal(|document| document["rows"][0]["median_ms"] = json!(-0.072));
        assert_eq!(
            error,
            "the row of 256 threads has median_ms -0.072 where its samples give 0.5000000149011612"
        );
        let error = refusal(|document| document["rows"][0]["min_ms"] = json!(1e308));
        assert!(
            error.starts_with("the row of 256 threads has min_ms 1e308 where its samples give 0.4"),
            "{error}"
        );
        let error = refusal(|document| document["rows"][0]["samples"] = json!(7));
        assert_eq!(error, "the row of 256 threads has samples 7 where run_ms holds 2");
        let error = refusal(|document| document["rows"][0]["fraction_of_best"] = json!(-1.0));
        assert_eq!(error, "the row of 256 threads has fraction_of_best -1: it must be above 0, at most 1");
        let error = refusal(|document| document["rows"][0]["occupancy_percent"] = json!(null));
        assert_eq!(error, "the row of 256 threads has occupancy_percent NaN: it must be from 0 to 100");
        // JSON has no NaN: a string or a bare NaN is not a number to serde.
        let error = refusal(|document| document["rows"][0]["median_ms"] = json!("NaN"));
        assert!(error.starts_with(NOT_AN_EXPORT), "{error}");
        assert!(SweepRecord::parse(&version_3().to_string().replace("0.5", "NaN")).is_err());
    }

    #[test]
    fn a_row_without_a_measurement_has_no_samples_and_no_times() {
        let error = refusal(|document| document["rows"][0]["failed"] = json!("hung"));
        assert_eq!(
            error,
            "the row of 256 threads has 2 sample(s) (run_ms, samples 2) where it has no measurement (failed or pruned)"
        );
        let error = refusal(|document| {
            let row = &mut document["rows"][0];
            row["pruned"] = json!("beyond the block's registers");
            (row["run_ms"], row["samples"]) = (json!([]), json!(0));
        });
        assert_eq!(
            error,
            "the row of 256 threads has median_ms 0.5 where it has no measurement (failed or pruned): null"
        );
        // As a sweep writes one: no samples, null times; then the fastest row it names is gone.
        let error = refusal(|document| {
            let row = &mut document["rows"][0];
            row["failed"] = json!("hung");
            (row["run_ms"], row["samples"]) = (json!([]), json!(0));
            for field in
                ["median_ms", "min_ms", "max_ms", "mad_ms", "gigabytes_per_second", "fraction_of_best"]
            {
                row[field] = json!(null);
            }
        });
        assert_eq!(error, "rows_near_best is 1 where 0 row(s) were measured");
    }

    #[test]
    fn counts_and_sizes_that_disagree_are_refused() {
        for (edit, why) in [
            (
                json!({"warps_per_block": 9}),
                "the row of 256 threads has warps_per_block 9 where its block size gives 8",
            ),
            (
                json!({"idle_lanes": 3}),
                "the row of 256 threads has idle_lanes 3 where its block size gives 0",
            ),
            (
                json!({"warps_per_sm": 65}),
                "the row of 256 threads has warps_per_sm 65 where its block size gives 64",
            ),
            (
                json!({"threads_per_block": 0}),
                "the row of 0 threads has threads_per_block 0, not a block size",
            ),
            (
                json!({"threads_per_block": 4294967295u32}),
                "the row of 4294967295 threads has threads_per_block 4294967295, not a block size",
            ),
            (
                json!({"launches_per_sample": 0}),
                "the row of 256 threads has launches_per_sample 0: a sample holds at least one launch",
            ),
            (
                json!({"axes": {"tile": "4"}}),
                "the row of 256 threads, tile 4 has values on the axes [\"tile\"] where the sweep's are []",
            ),
        ] {
            let error = refusal(|document| {
                for (field, value) in edit.as_object().unwrap() {
                    document["rows"][0][field] = value.clone();
                }
            });
            assert_eq!(error, why);
        }
        let error = refusal(|document| document["rows"].as_array_mut().unwrap().push(row(256)));
        assert_eq!(error, "the row of 256 threads is there twice");
        let error = refusal(|document| document["pixels"] = json!(65));
        assert_eq!(error, "pixels is 65 where the frame is 16 x 4: they must agree");
        let error = refusal(|document| document["device"]["warp_size"] = json!(0));
        assert_eq!(error, "device.warp_size is 0: no device that ran a kernel has none");
        let error = refusal(|document| document["rows_near_best"] = json!(2));
        assert_eq!(error, "rows_near_best is 2 where 1 row(s) were measured");
        let error = refusal(|document| document["fastest_threads_per_block"] = json!(512));
        assert_eq!(error, "fastest_threads_per_block 512 (with its axes) names no measured row");
        let error = refusal(|document| document["timing"]["launches_per_sample"] = json!(0));
        assert_eq!(error, "timing.launches_per_sample is 0: a sample holds at least one launch");
        let error = refusal(|document| document["workload"]["bytes_per_pass"] = json!(-1.0));
        assert_eq!(error, "workload.bytes_per_pass is -1: it must be a finite count of bytes");
    }

    #[test]
    fn a_ptx_hash_is_64_hex_digits() {
        let error = refusal(|document| document["ptx_sha256"] = json!("é".repeat(17)));
        assert_eq!(error, format!("ptx_sha256 {} is not a SHA-256 (64 hex digits)", "é".repeat(17)));
        let error = refusal(|document| document["provenance"]["ptx_sha256"] = json!("ab12\n"));
        assert_eq!(error, "provenance.ptx_sha256 \"ab12\\n\" is not a SHA-256 (64 hex digits)");
        // Every version wrote one so: the evidence files (cli/tests/evidence.rs reads them all).
        let mut upper = version_3();
        upper["ptx_sha256"] = json!(SHA.to_uppercase());
        assert!(SweepRecord::parse(&upper.to_string()).is_ok());
    }

    #[test]
    fn a_file_of_the_current_layout_reads_the_same_by_either_path() {
        // The straight read of version 3 and the upgrade's path agree (version 2 goes the
        // upgrade's way; written again it is version 3 and goes straight).
        let record = parse(&version_2());
        let value = serde_json::to_value(&record).unwrap();
        let straight = parse(&value);
        let upgraded = upgrade::upgrade(value).unwrap();
        let detour: SweepRecord = serde_json::from_value(upgraded.value).unwrap();
        assert_eq!(straight, detour);
    }
}
