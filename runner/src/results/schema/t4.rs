/*!
A T4 results file (the open autotuning results schema, <https://github.com/odgaard/TuningSchema>,
as Kernel Tuner's `store_output_file` writes it, and as `--format t4` does) read as a
[`SweepRecord`], for `block-size diff` and `block-size report` (docs/kernel-tuner.md).

What T4 says becomes the record's rows: the block from `block_size_x`, `_y` and `_z` (a missing
`_y` or `_z` is 1), every other parameter of `configuration` an axis, the samples from
`times.runtimes` (else the `time` measurement as one sample), an `invalidity` other than
`correct` a failed row (`compile`, `runtime`, `timeout`, `correctness`) or a pruned one
(`constraints`), with the invalidity as its reason. What T4 does not say is not invented: the
record's origin marks it as a T4 file ([`Origin::kernel_tuner`]), its GPU, kernel, PTX, work and timing
read as "not recorded", and its occupancy, device limits, clocks, energy and provenance are
absent; the fields of [`SweepRecord`] and [`RowRecord`] that must hold a number for those hold
zero, and nothing renders them for a T4 record (`diff` says "not recorded", `report` draws the
T4 page, `merge` refuses the file).

Kernel Tuner's cache (`tune_kernel(cache=FILE)`: `device_name`, `kernel_name`,
`tune_params_keys` and one entry a configuration under `cache`) reads the same way, each entry
as the T4 result Kernel Tuner would write of it ([`is_cache`], [`cache_record_of`]): its
parameters the configuration, `times` the samples (else `time`), an error string Kernel Tuner
puts in place of a time (`InvalidConfig`, `CompilationFailedConfig`, `RuntimeFailedConfig`,
`ErrorConfig`) the invalidity, and the device and kernel names it records kept. A cache a run
left open (its entries end in a comma, its last two braces missing) is closed as Kernel Tuner
closes one ([`closed_cache`]).
*/

use super::{Origin, PassRecord, RowRecord, SCHEMA_VERSION, SweepRecord};
use crate::error::one_line;
use crate::measure::sampling::timing::{Timing, TimingMode};
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::{BlockShape, MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK};
use crate::model::grid::GridPolicy;
use crate::model::limits::{DeviceLimits, Suggestion};
use crate::model::objective::Objective;
use crate::model::stats::RunStats;
use crate::search::strategy::Search;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// What a field T4 does not carry reads as.
pub(crate) const NOT_RECORDED: &str = "not recorded";

/// The key of the object `--format t4` adds to a T4 file's `metadata`: the GPU, the kernel and
/// each axis's name beside its identifier, so that block-size's own T4 file reads back with
/// its axes' names. A file of Kernel Tuner has none.
pub(crate) const BLOCK_SIZE_METADATA: &str = "block_size";

/// The block's parameters, in x, y and z.
pub(crate) const BLOCK_PARAMETERS: [&str; 3] = ["block_size_x", "block_size_y", "block_size_z"];

/// Whether `value` is a T4 document (a results file or a metadata file): an object whose
/// `schema_version` is a string (block-size's own JSON has a number there) with `results` or
/// `metadata` and no `rows` (block-size's has them).
pub(super) fn is_t4(value: &Value) -> bool {
    value.get("schema_version").is_some_and(Value::is_string)
        && (value.get("results").is_some() || value.get("metadata").is_some())
        && value.get("rows").is_none()
}

/// Whether `value` is Kernel Tuner's cache: an object with `device_name`, `tune_params_keys`
/// and a `cache` object.
pub(super) fn is_cache(value: &Value) -> bool {
    value.get("device_name").is_some()
        && value.get("tune_params_keys").is_some_and(Value::is_array)
        && value.get("cache").is_some_and(Value::is_object)
}

/// `text` closed as Kernel Tuner closes a cache a run left open (`util.correct_open_cache`: a
/// trailing comma dropped, the last two braces added), where it looks like one: `None` where it
/// does not name `tune_params_keys`, or already ends in its braces.
pub(super) fn closed_cache(text: &str) -> Option<String> {
    let text = text.trim_end();
    if !text.contains("\"tune_params_keys\"") || text.ends_with("}\n}") || text.ends_with("}}}") {
        return None;
    }
    Some(format!("{}}}\n}}", text.strip_suffix(',').unwrap_or(text)))
}

/// The record of Kernel Tuner's cache `value` ([`is_cache`]); `Err` is one line.
pub(super) fn cache_record_of(value: &Value) -> Result<SweepRecord, String> {
    cache(value).map_err(|why| one_line(&format!("a Kernel Tuner cache file: {why}")))
}

/// Kernel Tuner's error strings (`util.ErrorConfig` and its kinds) and the invalidity T4 gives
/// each.
const CACHE_ERRORS: [(&str, &str); 4] = [
    ("InvalidConfig", "constraints"),
    ("CompilationFailedConfig", "compile"),
    ("RuntimeFailedConfig", "runtime"),
    ("ErrorConfig", "runtime"),
];

/// The invalidity T4 gives the configuration of a cache entry that holds Kernel Tuner's error
/// string in place of a time (under `__error__`, or, as older versions stored it, in the
/// objective's place), `Ok(None)` for a measured one; `Err` for an `__error__` that is none of
/// Kernel Tuner's kinds, which no version of it writes and which is no measurement either.
fn cache_invalidity(name: &str, entry: &Map<String, Value>) -> Result<Option<&'static str>, String> {
    let kind =
        |text: &str| CACHE_ERRORS.iter().find(|(error, _)| *error == text).map(|(_, invalidity)| *invalidity);
    if let Some(error) = entry.get("__error__") {
        return error.as_str().and_then(kind).map(Some).ok_or_else(|| {
            let names: Vec<&str> = CACHE_ERRORS.iter().map(|(error, _)| *error).collect();
            format!(
                "the cache entry {} has __error__ {}, not one of Kernel Tuner's ({})",
                quoted(name),
                quoted(&error.to_string()),
                names.join(", ")
            )
        });
    }
    Ok(entry.values().filter_map(Value::as_str).find_map(kind))
}

/// Whether the cache key `name` ("128,2,4") is the entry's values of `keys` joined by commas,
/// as Kernel Tuner makes it (`",".join(str(value))`): a number as a number (Python writes
/// `1e-05` where JSON may write `1e-5`), a boolean as Python's `True`.
fn key_agrees(name: &str, keys: &[&str], configuration: &Map<String, Value>) -> bool {
    let parts: Vec<&str> = name.split(',').collect();
    parts.len() == keys.len()
        && keys.iter().zip(parts).all(|(key, part)| match &configuration[*key] {
            Value::Number(number) => {
                number.to_string() == part
                    || (part.parse::<f64>().ok()).zip(number.as_f64()).is_some_and(|(a, b)| a == b)
            }
            Value::Bool(flag) => part.eq_ignore_ascii_case(&flag.to_string()),
            Value::String(text) => text == part,
            _ => false,
        })
}

/// At most 80 characters of `text`, one line, marked where cut: what a message quotes of a file.
fn quoted(text: &str) -> String {
    format!("{:?}", crate::error::cut_for_quoting(text))
}

fn cache(value: &Value) -> Result<SweepRecord, String> {
    let keys: Vec<&str> = value["tune_params_keys"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|key| key.as_str().ok_or_else(|| format!("tune_params_keys holds {key}, not a name")))
        .collect::<Result<_, _>>()?;
    let entries = value["cache"].as_object().ok_or("its `cache` is not an object")?;
    let mut names = Vec::with_capacity(entries.len());
    let mut results = Vec::with_capacity(entries.len());
    for (name, entry) in entries {
        let entry = entry.as_object().ok_or_else(|| format!("the cache entry {name:?} is not an object"))?;
        let mut configuration = Map::new();
        for &key in &keys {
            let value = entry.get(key).ok_or_else(|| format!("the cache entry {name:?} has no {key}"))?;
            configuration.insert(key.to_string(), value.clone());
        }
        if !key_agrees(name, &keys, &configuration) {
            return Err(format!(
                "the cache entry {} holds the configuration {}: Kernel Tuner keys an entry by its values of tune_params_keys, joined by commas",
                quoted(name),
                quoted(&keys.iter().map(|key| configuration[*key].to_string()).collect::<Vec<_>>().join(","))
            ));
        }
        let invalidity = cache_invalidity(name, entry)?;
        let mut result = serde_json::json!({
            "configuration": configuration,
            "invalidity": invalidity.unwrap_or("correct"),
        });
        if invalidity.is_none() {
            if let Some(times) = entry.get("times") {
                result["times"] = serde_json::json!({ "runtimes": times });
            }
            if let Some(time) = entry.get("time") {
                result["measurements"] = serde_json::json!([{ "name": "time", "value": time, "unit": "ms" }]);
            }
        }
        names.push(name.as_str());
        results.push(result);
    }
    let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or(NOT_RECORDED);
    let document = serde_json::json!({
        "schema_version": "1.0.0",
        "metadata": {
            "timeunit": "milliseconds",
            BLOCK_SIZE_METADATA: { "gpu": text("device_name"), "kernel": text("kernel_name") },
        },
        "results": results,
    });
    // A result of the cache is named by its key, as the file names it.
    let mut record = read_named(&document, &|index| format!("the cache entry {:?}", names[index]))?;
    record.origin.kernel_tuner = Some("a Kernel Tuner cache file".into());
    Ok(record)
}

/// The record of the T4 document `value` ([`is_t4`]); `Err` is one line.
pub(super) fn record_of(value: &Value) -> Result<SweepRecord, String> {
    read(value).map_err(|why| one_line(&format!("a T4 results file (Kernel Tuner): {why}")))
}

fn read(value: &Value) -> Result<SweepRecord, String> {
    read_named(value, &|index| format!("results[{index}]"))
}

/// [`read`], result `index` named `name_of_result(index)` in what it says of one.
fn read_named(value: &Value, name_of_result: &dyn Fn(usize) -> String) -> Result<SweepRecord, String> {
    let version = value["schema_version"].as_str().unwrap_or_default();
    if version.split('.').next() != Some("1") {
        return Err(format!("T4 schema version {version:?}: block-size reads version 1.x.y"));
    }
    let Some(results) = value.get("results") else {
        if value.get("metadata").is_some() {
            return Err(
                "this is a T4 metadata file (store_metadata_file), not a results file (store_output_file)"
                    .into(),
            );
        }
        return Err("it has no `results`".into());
    };
    let results = results.as_array().ok_or("its `results` is not an array")?;
    let metadata = value.get("metadata");
    if let Some(unit) = metadata.and_then(|metadata| metadata.get("timeunit"))
        && unit.as_str() != Some("milliseconds")
    {
        return Err(format!("metadata.timeunit is {unit}, not \"milliseconds\""));
    }
    let ours = metadata.and_then(|metadata| metadata.get(BLOCK_SIZE_METADATA));
    let said = |key: &str| {
        ours.and_then(|ours| ours.get(key))
            .and_then(Value::as_str)
            .map_or(NOT_RECORDED, |text| text)
            .to_string()
    };
    // Each axis's name where block-size wrote the file: [identifier, name] pairs in the axes'
    // order.
    let named: Vec<(String, String)> = ours
        .and_then(|ours| ours.get("axes"))
        .and_then(Value::as_array)
        .map(|pairs| {
            pairs
                .iter()
                .filter_map(|pair| {
                    Some((pair.get(0)?.as_str()?.to_string(), pair.get(1)?.as_str()?.to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    let name_of = |identifier: &str| -> String {
        named
            .iter()
            .find(|(id, _)| id == identifier)
            .map_or(identifier, |(_, name)| name.as_str())
            .to_string()
    };

    // The axes: every parameter that is not the block's, in the order block-size named them,
    // then as the first result that has each lists it.
    let mut identifiers: Vec<String> = named.iter().map(|(identifier, _)| identifier.clone()).collect();
    for result in results {
        if let Some(configuration) = result.get("configuration").and_then(Value::as_object) {
            for key in configuration.keys() {
                if !BLOCK_PARAMETERS.contains(&key.as_str()) && !identifiers.contains(key) {
                    identifiers.push(key.clone());
                }
            }
        }
    }
    let axes: Vec<String> = identifiers.iter().map(|identifier| name_of(identifier)).collect();

    let mut rows = Vec::with_capacity(results.len());
    let mut seen = HashSet::new();
    for (index, result) in results.iter().enumerate() {
        let row = row_of(name_of_result(index), result, &identifiers, &name_of)?;
        // A search's trace may visit a configuration again (Kernel Tuner returns it from its
        // cache): the first visit is the row.
        if seen.insert((row.shape(), row.axes.clone())) {
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return Err("it has no results".into());
    }
    Ok(t4_record(version, said("gpu"), said("kernel"), axes, rows))
}

/// The record a T4 file's `rows` make, of `version`, on `gpu` (its name), of `kernel`, over
/// `axes`: the fastest and near-best rows marked, what the file does not say not recorded.
fn t4_record(
    version: &str,
    gpu: String,
    kernel: String,
    axes: Vec<String>,
    mut rows: Vec<RowRecord>,
) -> SweepRecord {
    best(&mut rows);
    let fastest =
        rows.iter().filter(|row| row.measured()).min_by(|a, b| a.median_ms.total_cmp(&b.median_ms)).cloned();
    let measured = rows.iter().filter(|row| row.measured()).count();
    let rows_near_best = rows.iter().filter(|row| row.measured() && row.fraction_of_best >= 0.95).count();
    SweepRecord {
        schema_version: SCHEMA_VERSION,
        provenance: None,
        device: DeviceLimits { name: gpu, ..unknown_device() },
        kernel: NOT_RECORDED.into(),
        ptx_sha256: NOT_RECORDED.into(),
        workload: PassRecord {
            kernel,
            bytes_per_pass: 0.0,
            bytes_counted: NOT_RECORDED.into(),
            detail: None,
            items: None,
        },
        width: None,
        height: None,
        pixels: 0,
        timing: Timing::fixed(TimingMode::Launch, 0, 0),
        grid: GridPolicy::OneWave,
        axes,
        shared_memory_per_block: None,
        head: None,
        suggestion: Suggestion { threads_per_block: 0, grid_blocks: 0 },
        fastest_threads_per_block: fastest.as_ref().map(|row| row.threads_per_block),
        fastest_block: fastest.as_ref().and_then(|row| row.block),
        fastest_axes: fastest.map(|row| row.axes).unwrap_or_default(),
        rows_near_best: if measured > 0 { rows_near_best } else { 0 },
        rows,
        search: Search::Exhaustive,
        objective: Objective::Time,
        model_check: NOT_RECORDED.into(),
        summary: None,
        occupancy_model: None,
        shard: None,
        wall_time: None,
        counters: None,
        merged_from: Vec::new(),
        failures: Vec::new(),
        ended_early: None,
        origin: Origin {
            kernel_tuner: Some(format!("a T4 results file (schema {version})")),
            ..Origin::default()
        },
    }
}

/// A device of which nothing is known: zero throughout, "not recorded" by name.
fn unknown_device() -> DeviceLimits {
    DeviceLimits {
        ordinal: 0,
        name: NOT_RECORDED.into(),
        compute_capability: (0, 0),
        multiprocessors: 0,
        max_threads_per_sm: 0,
        warp_size: 0,
        max_blocks_per_sm: 0,
        max_threads_per_block: 0,
        registers_per_sm: 0,
        max_registers_per_block: 0,
        shared_memory_per_sm: 0,
        max_shared_memory_per_block: 0,
        reserved_shared_memory_per_block: 0,
        l2_cache_bytes: 0,
        max_block_dimensions: [0; 3],
        max_grid_dimensions: [0; 3],
    }
}

/// Each measured row's fastest median over its own.
fn best(rows: &mut [RowRecord]) {
    let best =
        rows.iter().filter(|row| row.measured()).map(|row| row.median_ms).fold(f64::INFINITY, f64::min);
    for row in rows.iter_mut().filter(|row| row.measured()) {
        row.fraction_of_best = best / row.median_ms;
    }
}

/// A parameter's value as an axis value: a string as it is, a number or a boolean as JSON
/// writes it.
fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The row of the result called `at` in what is said of it.
fn row_of(
    at: String,
    result: &Value,
    identifiers: &[String],
    name_of: &dyn Fn(&str) -> String,
) -> Result<RowRecord, String> {
    let result = result.as_object().ok_or_else(|| format!("{at} is not an object"))?;
    let configuration: &Map<String, Value> = result
        .get("configuration")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{at} has no configuration object"))?;
    let (block, threads_per_block) = block_of(&at, configuration)?;
    let mut axes = Vec::with_capacity(identifiers.len());
    for identifier in identifiers {
        let value = configuration
            .get(identifier)
            .ok_or_else(|| format!("{at} has no {identifier} where other results have it"))?;
        let text = value_text(value)
            .ok_or_else(|| format!("{at} has {identifier} {value}: not a number, string or boolean"))?;
        axes.push((name_of(identifier), text));
    }
    let invalidity = result
        .get("invalidity")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at} has no invalidity (a string)"))?;
    let (failed, pruned) = outcome_of(&at, result, invalidity)?;
    // A block that ran (a time, or an output to check) is one a CUDA GPU launches; one beyond
    // that is a constraint a tuner ruled out, or a failure, never a measurement.
    let ran = pruned.is_none() && (failed.is_none() || invalidity == "correctness");
    let fits = threads_per_block <= MAX_THREADS_PER_BLOCK
        && [block.x, block.y, block.z].iter().zip(MAX_BLOCK_DIMENSIONS).all(|(side, most)| *side <= most);
    if ran && !fits {
        return Err(format!(
            "{at} is {invalidity} with a block of {block}: no CUDA GPU launches a block of more than {MAX_THREADS_PER_BLOCK} threads, or of more than {}x{}x{}",
            MAX_BLOCK_DIMENSIONS[0], MAX_BLOCK_DIMENSIONS[1], MAX_BLOCK_DIMENSIONS[2]
        ));
    }
    let run_ms = if failed.is_none() && pruned.is_none() { samples(&at, result)? } else { Vec::new() };
    let stats = RunStats::of(&run_ms);
    Ok(RowRecord {
        axes: AxisValues(axes),
        threads_per_block,
        block: Some(block).filter(|block| !block.is_linear()),
        warps_per_block: 0,
        idle_lanes: 0,
        blocks_per_sm: 0,
        warps_per_sm: 0,
        occupancy_percent: f64::NAN,
        grid_blocks: 0,
        grid: None,
        dynamic_shared_memory: None,
        median_ms: stats.median,
        min_ms: stats.min,
        max_ms: stats.max,
        mad_ms: stats.mad,
        gigabytes_per_second: f64::NAN,
        fraction_of_best: f64::NAN,
        within_noise_of_best: false,
        limiter: None,
        timing_mode: TimingMode::Launch,
        launches_per_sample: 1,
        samples: run_ms.len(),
        stopped: None,
        run_ms,
        failed,
        pruned,
        sm_clock: None,
        energy: None,
        counters: None,
    })
}

/// The block of a result's `configuration` (`block_size_x`, and `_y`, `_z` where given), and its
/// threads.
fn block_of(at: &str, configuration: &Map<String, Value>) -> Result<(BlockShape, u32), String> {
    let dimension = |axis: usize| -> Result<Option<u32>, String> {
        let key = BLOCK_PARAMETERS[axis];
        match configuration.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|value| u32::try_from(value).ok())
                .filter(|&value| value > 0)
                .map(Some)
                .ok_or_else(|| format!("{at} has {key} {value}: not a block size (a whole number above 0)")),
        }
    };
    let x = dimension(0)?.ok_or_else(|| {
        format!(
            "{at} has no block_size_x in its configuration: block-size reads a tuning of the block size, named block_size_x (and block_size_y, block_size_z)"
        )
    })?;
    let block = BlockShape { x, y: dimension(1)?.unwrap_or(1), z: dimension(2)?.unwrap_or(1) };
    let threads = block.x.checked_mul(block.y).and_then(|xy| xy.checked_mul(block.z));
    let threads_per_block =
        threads.ok_or_else(|| format!("{at} has a block of {block}: over 2^32 threads"))?;
    Ok((block, threads_per_block))
}

/// Whether a result failed or was ruled out, from its T4 `invalidity` (and block-size's
/// `reason` beside it): (failed, pruned), each with its reason.
fn outcome_of(
    at: &str,
    result: &Map<String, Value>,
    invalidity: &str,
) -> Result<(Option<String>, Option<String>), String> {
    // A reason block-size wrote beside the invalidity, else the invalidity in words.
    let reason = |words: &str| {
        result.get("reason").and_then(Value::as_str).map_or_else(
            || format!("T4 invalidity `{invalidity}`: {words}"),
            |reason| format!("{reason} (T4 invalidity `{invalidity}`)"),
        )
    };
    Ok(match invalidity {
        "correct" => (None, None),
        "constraints" => (None, Some(reason("ruled out by the tuner's restrictions"))),
        "compile" => (Some(reason("did not compile")), None),
        "runtime" => (Some(reason("failed at run time")), None),
        "timeout" => (Some(reason("timed out")), None),
        "correctness" => (Some(reason("wrong output")), None),
        other => {
            return Err(format!(
                "{at} has invalidity {other:?}, not one of T4's (correct, compile, runtime, timeout, correctness, constraints)"
            ));
        }
    })
}

/// A correct result's samples in ms: `times.runtimes`, else its `time` measurement as one.
fn samples(at: &str, result: &Map<String, Value>) -> Result<Vec<f32>, String> {
    let time = |what: String, value: &Value| -> Result<f32, String> {
        value.as_f64().map(|ms| ms as f32).filter(|ms| ms.is_finite() && *ms > 0.0).ok_or_else(|| {
            format!("{at} has {what} {value}: a time must be a number of ms, finite and above 0")
        })
    };
    let runtimes = result.get("times").and_then(|times| times.get("runtimes"));
    if let Some(runtimes) =
        runtimes.filter(|runtimes| runtimes.as_array().is_none_or(|list| !list.is_empty()))
    {
        let list =
            runtimes.as_array().ok_or_else(|| format!("{at} has times.runtimes {runtimes}: not an array"))?;
        return list
            .iter()
            .enumerate()
            .map(|(index, value)| time(format!("times.runtimes[{index}]"), value))
            .collect();
    }
    let measurement = result.get("measurements").and_then(Value::as_array).and_then(|measurements| {
        measurements
            .iter()
            .find(|measurement| measurement.get("name").and_then(Value::as_str) == Some("time"))
    });
    let Some(measurement) = measurement else {
        return Err(format!("{at} is correct but has neither times.runtimes nor a `time` measurement"));
    };
    match measurement.get("unit").and_then(Value::as_str) {
        None | Some("ms") => {}
        Some(unit) => return Err(format!("{at} has its `time` measurement in {unit:?}, not \"ms\"")),
    }
    Ok(vec![time("the `time` measurement".into(), measurement.get("value").unwrap_or(&Value::Null))?])
}
