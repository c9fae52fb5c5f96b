/*!
The upgrade of an export's JSON from the version it was written in to the current one, a step
per version ([`version_1_to_2`], [`version_2_to_3`]), on the JSON itself before it is read as
[`SweepRecord`](super::SweepRecord). A step renames and derives; a field nothing can derive
stays absent, which the record reads as "not recorded".

What the steps derive, and why it is what the file would have said:

- a version 1 timing without `mode` is launch mode, one launch a sample, a fixed count: before
  `--timing` every sample was one launch between its own CUDA events;
- `flush_l2` and `cold_keeps_l2` become `l2_flush`, from what the run did (cold timing flushed
  unless it kept the L2, whatever `flush_l2` said);
- no `workload`: grayscale, 16 bytes moved a pixel (three planes read, one written), the only
  kernel before `--kernel`;
- no `grid`: one wave, the only grid before `--grid`;
- a row without `timing_mode`, `launches_per_sample` or `samples`: the sweep's timing and its
  own `run_ms`;
- version 2's `tunable`, `fastest_tunable` and a row's `tunable`: one axis, version 3's `axes`,
  `fastest_axes` and a row's `axes`;
- no `search`: exhaustive, the only search before `--search`.

Left to serde's reading of an absent `Option` as `None`, which is what those files mean: no
`ended_early`, no row's `failed` or `pruned` (before them a signal or a launch fault ended the
run without a file, and every configuration was launched), no row's `stopped` (a fixed count);
before version 4 no `objective` (time), no `timing.energy_window_s` (no energy), no row's
`sm_clock` or `energy` (not read).
*/

use super::{NOT_AN_EXPORT, SCHEMA_VERSION};
use serde_json::{Map, Value, json};

/// Said where a version 1 timing had no mode.
const LAUNCH_TIMING: &str =
    "timing: launch mode, one launch a sample, a fixed count (the only timing before --timing)";
/// Said where a file had no workload.
const GRAYSCALE: &str = "workload: grayscale, 16 B moved a pixel (the only kernel before --kernel)";
/// Said where a file had no grid.
const ONE_WAVE: &str = "grid: one-wave (the only grid before --grid)";
/// Said where a file had no search.
const EXHAUSTIVE: &str = "search: exhaustive (the only search before --search)";

/// An export's JSON in the current layout, the version it was written in, and what the steps
/// derived, in words.
#[derive(Debug)]
pub(super) struct Upgraded {
    /// The JSON, its `schema_version` the current one.
    pub value: Value,
    /// The version the file said (1 where it said none).
    pub from: u32,
    /// What was derived: [`LAUNCH_TIMING`], [`GRAYSCALE`], ...
    pub derived: Vec<&'static str>,
}

/// Upgrades `value` to [`SCHEMA_VERSION`]; `Err` for a version newer than that or not a
/// version at all. Anything but an object is handed on as it is, for serde to say what it is.
pub(super) fn upgrade(mut value: Value) -> Result<Upgraded, String> {
    let Some(object) = value.as_object_mut() else {
        return Ok(Upgraded { value, from: SCHEMA_VERSION, derived: Vec::new() });
    };
    let from = match object.get("schema_version") {
        None => 1,
        Some(version) => version
            .as_u64()
            .and_then(|version| u32::try_from(version).ok())
            .filter(|&version| version >= 1)
            .ok_or_else(|| format!("{NOT_AN_EXPORT}: schema_version {version} is not a version"))?,
    };
    if from > SCHEMA_VERSION {
        return Err(format!(
            "schema version {from}, newer than the {SCHEMA_VERSION} this block-size reads: update block-size"
        ));
    }
    let mut derived = Vec::new();
    if from < 2 {
        version_1_to_2(object, &mut derived);
    }
    if from < 3 {
        version_2_to_3(object, &mut derived);
    }
    // Version 3 to 4 adds what a version 3 file cannot hold (graph timing, an objective other
    // than time, a row's clock and energy) and changes nothing it holds: no step.
    object.insert("schema_version".to_string(), json!(SCHEMA_VERSION));
    Ok(Upgraded { value, from, derived })
}

/// Version 1 to 2: `l2_flush` for `flush_l2` and `cold_keeps_l2`, and what the first version 1
/// files did not have yet (timing mode, workload, grid, the rows' timing and sample count).
fn version_1_to_2(object: &mut Map<String, Value>, derived: &mut Vec<&'static str>) {
    if let Some(Value::Object(timing)) = object.get_mut("timing")
        && !timing.contains_key("l2_flush")
    {
        if !timing.contains_key("mode") {
            timing.insert("mode".to_string(), json!("launch"));
            timing.insert("launches_per_sample".to_string(), json!(1));
            derived.push(LAUNCH_TIMING);
        }
        let flag =
            |timing: &mut Map<String, Value>, key: &str| timing.remove(key).and_then(|value| value.as_bool());
        let flush_l2 = flag(timing, "flush_l2").unwrap_or(false);
        let cold_keeps_l2 = flag(timing, "cold_keeps_l2").unwrap_or(false);
        let mode = timing.get("mode").and_then(Value::as_str).unwrap_or_default();
        // As Timing::l2_flush: cold timing flushed unless it kept the L2.
        let flushes = (mode == "cold" && !cold_keeps_l2) || flush_l2;
        let l2_flush = match mode {
            _ if !flushes => "none",
            "batch" => "before_each_batch",
            _ => "before_each_launch",
        };
        timing.insert("l2_flush".to_string(), json!(l2_flush));
    }
    if !object.contains_key("workload")
        && let Some(pixels) = object.get("pixels").and_then(Value::as_u64)
    {
        let workload = json!({
            "kernel": "grayscale",
            "bytes_per_pass": 16.0 * pixels as f64,
            "bytes_counted": "moved per pass",
        });
        object.insert("workload".to_string(), workload);
        derived.push(GRAYSCALE);
    }
    if !object.contains_key("grid") {
        object.insert("grid".to_string(), json!("one-wave"));
        derived.push(ONE_WAVE);
    }
    let timing = object.get("timing").cloned().unwrap_or(Value::Null);
    let mode = timing.get("mode").cloned().unwrap_or(Value::Null);
    // A sample is a batch's launches in batch mode, one launch otherwise.
    let launches = match mode.as_str() {
        Some("batch") => timing.get("launches_per_sample").cloned().unwrap_or(Value::Null),
        _ => json!(1),
    };
    for row in rows(object) {
        row.entry("timing_mode").or_insert_with(|| mode.clone());
        row.entry("launches_per_sample").or_insert_with(|| launches.clone());
        if !row.contains_key("samples") {
            let samples = row.get("run_ms").and_then(Value::as_array).map_or(0, Vec::len);
            row.insert("samples".to_string(), json!(samples));
        }
    }
}

/// Version 2 to 3: version 2's one tunable as one axis, and a search where the file has none.
fn version_2_to_3(object: &mut Map<String, Value>, derived: &mut Vec<&'static str>) {
    let name = object.remove("tunable").and_then(|name| name.as_str().map(str::to_string));
    let fastest = object.remove("fastest_tunable");
    match &name {
        Some(name) => {
            object.insert("axes".to_string(), json!([name]));
            if let Some(Value::String(value)) = fastest {
                object.insert("fastest_axes".to_string(), json!({ name.as_str(): value }));
            }
        }
        None => {
            object.entry("axes").or_insert_with(|| json!([]));
        }
    }
    for row in rows(object) {
        if let (Some(name), Some(Value::String(value))) = (&name, row.remove("tunable")) {
            row.insert("axes".to_string(), json!({ name.as_str(): value }));
        }
    }
    if !object.contains_key("search") {
        object.insert("search".to_string(), json!("exhaustive"));
        derived.push(EXHAUSTIVE);
    }
}

/// The row objects of `object`'s `rows`, where it has them.
fn rows(object: &mut Map<String, Value>) -> impl Iterator<Item = &mut Map<String, Value>> {
    object
        .get_mut("rows")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}
