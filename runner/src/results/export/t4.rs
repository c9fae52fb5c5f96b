/*!
T4: the open autotuning results schema (<https://github.com/odgaard/TuningSchema>, version
1.0.0), the results file Kernel Tuner writes (`store_output_file`); docs/kernel-tuner.md
says what maps and what does not.

Each row is one result: `configuration` holds `block_size_x`, `_y`, `_z` (the row's block) and
each axis's value under an identifier ([`identifier`]: `items/thr` is `items_per_thread`, `grid
policy` is `grid`, its policy's text kept), `times.runtimes` its samples in ms, `measurements`
its median as `time` in ms (and with `--counters` each counter read, under the CSV export's
name), `invalidity` `correct`, `runtime` (a failed row), `constraints` (a
pruned row) or `correctness` (a row whose output was wrong; `correctness` 0 there, 1 elsewhere),
and `objectives` `["time"]`. What block-size does not know per row is left out, not invented: no
`timestamp`, no `times.compilation`, `framework`, `search_algorithm` or `validation`. The
document's `metadata` says `timeunit: milliseconds`, as Kernel Tuner's does, and under
`block_size` the GPU, the kernel and each axis's name beside its identifier, so the file reads
back (`crate::results::schema::t4`) with the axes' own names.
*/

use super::Exporter;
use crate::model::block_shape::BlockShape;
use crate::results::schema::t4::{BLOCK_PARAMETERS, BLOCK_SIZE_METADATA};
use crate::results::schema::{RowRecord, SweepRecord};
use crate::results::table;
use anyhow::Result;
use serde_json::{Map, Value, json};

/// T4: one result per row, its samples and validity.
pub struct T4Exporter;

/// The T4 schema version written.
const T4_VERSION: &str = "1.0.0";

impl Exporter for T4Exporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        let identifiers = identifiers(&record.axes);
        let results: Vec<Value> = record.rows.iter().map(|row| result(record, row, &identifiers)).collect();
        let named: Vec<Value> = identifiers
            .iter()
            .zip(&record.axes)
            .map(|(identifier, name)| json!([identifier, name]))
            .collect();
        let document = json!({
            "schema_version": T4_VERSION,
            "results": results,
            "metadata": {
                "timeunit": "milliseconds",
                BLOCK_SIZE_METADATA: {
                    "gpu": record.device.name,
                    "kernel": record.workload.kernel,
                    "axes": named,
                },
            },
        });
        let mut text = serde_json::to_string_pretty(&document)?;
        text.push('\n');
        Ok(text)
    }
}

/// An axis's name as a T4 parameter, an identifier: `items/thr` is `items_per_thread`, `grid
/// policy` is `grid`; otherwise `/` is `_per_`, every other character that is not a letter, a
/// digit or `_` is `_`, and a leading digit gets a `_` in front.
pub(crate) fn identifier(name: &str) -> String {
    match name {
        "items/thr" => return "items_per_thread".into(),
        "grid policy" => return "grid".into(),
        _ => {}
    }
    let mut text = String::with_capacity(name.len());
    for character in name.trim().chars() {
        match character {
            '/' => {
                while text.ends_with('_') {
                    text.pop();
                }
                text.push_str("_per_");
            }
            c if c.is_ascii_alphanumeric() || c == '_' => text.push(c),
            _ if text.ends_with('_') => {}
            _ => text.push('_'),
        }
    }
    if text.is_empty() || text.starts_with(|c: char| c.is_ascii_digit()) {
        text.insert(0, '_');
    }
    text
}

/// Each axis's identifier, one that is neither a block parameter nor an earlier axis's (a
/// clash gets `_2`, `_3`, ...).
fn identifiers(axes: &[String]) -> Vec<String> {
    let mut taken: Vec<String> = BLOCK_PARAMETERS.iter().map(|name| name.to_string()).collect();
    let mut identifiers = Vec::with_capacity(axes.len());
    for name in axes {
        let base = identifier(name);
        let mut candidate = base.clone();
        let mut count = 1;
        while taken.contains(&candidate) {
            count += 1;
            candidate = format!("{base}_{count}");
        }
        taken.push(candidate.clone());
        identifiers.push(candidate);
    }
    identifiers
}

/// An axis value as JSON: a whole number or a finite number as a number (Kernel Tuner's
/// parameters are), anything else (`waves:2`, an entry's name) as its text.
fn value(text: &str) -> Value {
    // Only where the number reads back as the same text: `04`, `0.50` and `1e3` stay text.
    if let Ok(whole) = text.parse::<i64>()
        && whole.to_string() == text
    {
        return json!(whole);
    }
    match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
        Some(number) if number.to_string() == text => Value::Number(number),
        _ => json!(text),
    }
}

/// The prefix of a wrong output's failure at `block` and `axes`, as the sweep words it.
fn wrong_output_prefix(row: &RowRecord) -> String {
    let wrong = format!("wrong output at {}:", row.shape().in_words());
    if row.axes.is_empty() { wrong } else { format!("{}: {wrong}", row.axes) }
}

/// Whether a check of `record` says `row`'s output was wrong.
fn wrong_output(record: &SweepRecord, row: &RowRecord) -> bool {
    let prefix = wrong_output_prefix(row);
    record.failures.iter().any(|failure| failure.starts_with(&prefix))
}

/// The T4 result of `row`.
fn result(record: &SweepRecord, row: &RowRecord, identifiers: &[String]) -> Value {
    let BlockShape { x, y, z } = row.shape();
    let mut configuration = Map::new();
    for (name, dimension) in BLOCK_PARAMETERS.iter().zip([x, y, z]) {
        configuration.insert(name.to_string(), json!(dimension));
    }
    for (identifier, name) in identifiers.iter().zip(&record.axes) {
        configuration.insert(identifier.clone(), value(row.axes.get(name).unwrap_or_default()));
    }
    let wrong = wrong_output(record, row);
    let (invalidity, reason) = match (&row.failed, &row.pruned) {
        (Some(failed), _) => ("runtime", Some(failed.clone())),
        (None, Some(pruned)) => ("constraints", Some(pruned.clone())),
        (None, None) if wrong => ("correctness", Some("wrong output".to_string())),
        (None, None) => ("correct", None),
    };
    let mut result = Map::new();
    result.insert("configuration".into(), Value::Object(configuration));
    // Each sample as the JSON export writes it, its shortest decimal (0.0784, not the f32's
    // 0.07840000092983246 as an f64), which reads back as the same f32.
    let runtimes: Vec<f64> = row.run_ms.iter().map(|ms| ms.to_string().parse().unwrap_or(f64::NAN)).collect();
    result.insert("times".into(), json!({ "runtimes": runtimes }));
    result.insert("invalidity".into(), json!(invalidity));
    if let Some(reason) = reason {
        result.insert("reason".into(), json!(reason));
    }
    result.insert("correctness".into(), json!(if wrong { 0 } else { 1 }));
    let mut measurements = Vec::new();
    if row.median_ms.is_finite() {
        measurements.push(json!({ "name": "time", "value": row.median_ms, "unit": "ms" }));
    }
    // `--counters`: each counter read, under the CSV export's name.
    if let (Some(run), Some(counters)) = (&record.counters, &row.counters) {
        for column in &table::COUNTER_COLUMNS {
            if let Some(value) = (column.value)(run, counters) {
                measurements.push(json!({ "name": column.csv, "value": value, "unit": column.unit }));
            }
        }
    }
    result.insert("measurements".into(), Value::Array(measurements));
    result.insert("objectives".into(), json!(["time"]));
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_names_become_identifiers() {
        for (name, expected) in [
            ("items/thr", "items_per_thread"),
            ("grid policy", "grid"),
            ("grid", "grid"),
            ("vector width", "vector_width"),
            ("bins", "bins"),
            ("2d tile", "_2d_tile"),
            ("a / b", "a_per_b"),
            ("", "_"),
        ] {
            assert_eq!(identifier(name), expected, "{name}");
        }
        assert_eq!(
            identifiers(&["block_size_x".into(), "tile".into(), "tile!".into()]),
            ["block_size_x_2", "tile", "tile_"]
        );
        assert_eq!(identifiers(&["a b".into(), "a_b".into()]), ["a_b", "a_b_2"]);
    }

    #[test]
    fn values_are_numbers_where_they_are_numbers() {
        assert_eq!(value("4"), json!(4));
        assert_eq!(value("0.5"), json!(0.5));
        assert_eq!(value("waves:2"), json!("waves:2"));
        assert_eq!(value("one-wave"), json!("one-wave"));
        assert_eq!(value("inf"), json!("inf"));
        assert_eq!(value("1e3"), json!("1e3"));
        assert_eq!((value("04"), value("0.50")), (json!("04"), json!("0.50")));
    }
}
