/*!
What a record read from a file must hold before anything believes it ([`check`]): a file is
outside input, and a number no sweep could have written (a negative or zero time, a NaN, a
sample count that is not the samples', a warp count that is not the block size's) is refused
in one line naming the row and the field, rather than shown as "13 FASTER" at ratio -1.000.

JSON has no NaN: a NaN reaches the reader as `null` (where a time of a row without a
measurement is written so), as a number too large for the type (`1e308` read as an `f32`
sample is infinite) or not at all (strings and `NaN` are refused by serde). So every time is
checked finite and above zero where the row was measured, and null where it was not.
*/

use super::{RowRecord, SweepRecord};
use crate::error::shown;
use crate::model::objective::Objective;
use crate::model::occupancy::{WARP_SIZE, idle_lanes, warps_per_block};
use crate::model::stats::RunStats;
use rayon::prelude::*;
use std::collections::HashSet;

/// How far a recorded statistic may sit from the one its samples give, relative to it: the
/// writer computes them from the very samples (`RunStats::of`), so they agree to the bit; the
/// margin is for a file written by another tool's float printing.
const STATISTIC_TOLERANCE: f64 = 1e-6;

/// `record` as read from a file, refused in one line where it holds what no sweep writes.
pub(super) fn check(record: &SweepRecord) -> Result<(), String> {
    if record.rows.is_empty() {
        return Err("the sweep has no rows".to_string());
    }
    sha256("ptx_sha256", &record.ptx_sha256)?;
    if let Some(provenance) = &record.provenance {
        sha256("provenance.ptx_sha256", &provenance.ptx_sha256)?;
    }
    device(record)?;
    if let (Some(width), Some(height)) = (record.width, record.height)
        && u64::from(width) * u64::from(height) != record.pixels
    {
        return Err(format!(
            "pixels is {} where the frame is {width} x {height}: they must agree",
            record.pixels
        ));
    }
    let bytes = record.workload.bytes_per_pass;
    if !(bytes.is_finite() && bytes >= 0.0) {
        return Err(format!(
            "workload.bytes_per_pass is {}: it must be a finite count of bytes",
            number(bytes)
        ));
    }
    if record.timing.launches_per_sample == 0 {
        return Err("timing.launches_per_sample is 0: a sample holds at least one launch".to_string());
    }
    let mut seen = HashSet::new();
    if let Some(row) =
        record.rows.iter().find(|row| !seen.insert((&row.axes, row.threads_per_block, row.shape())))
    {
        return Err(format!("the row of {} is there twice", shown(row.label())));
    }
    // The rows in parallel (a row's statistics sort its samples), the first bad one said.
    if let Some(why) = record.rows.par_iter().find_map_first(|row| {
        self::row(record, row).err().map(|why| format!("the row of {} {why}", shown(row.label())))
    }) {
        return Err(why);
    }
    let measured = record.measured_rows().count();
    if record.rows_near_best > measured {
        return Err(format!(
            "rows_near_best is {} where {measured} row(s) were measured",
            record.rows_near_best
        ));
    }
    if let Some(threads) = record.fastest_threads_per_block
        && record.fastest().is_none()
    {
        return Err(format!("fastest_threads_per_block {threads} (with its axes) names no measured row"));
    }
    Ok(())
}

/// A SHA-256 as every version wrote it: 64 hex digits.
fn sha256(field: &str, value: &str) -> Result<(), String> {
    if value.len() == 64 && value.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Ok(());
    }
    Err(format!("{field} {} is not a SHA-256 (64 hex digits)", quoted(value)))
}

/// The first 80 characters of `value`, [`shown`], marked where cut.
fn quoted(value: &str) -> String {
    shown(crate::error::cut_for_quoting(value))
}

/// `value` as a message shows it: `0.5`, `-1`, `NaN`, `inf`, and `1e308` rather than its 309
/// digits; an `f32` sample as one (`0.99`, not the `f64` it widens to).
fn number<T: Into<f64> + Copy + std::fmt::Display + std::fmt::LowerExp>(value: T) -> String {
    let wide: f64 = value.into();
    if wide.is_finite() && wide != 0.0 && !(1e-6..1e16).contains(&wide.abs()) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// The device's limits that the occupancy model and the page divide by, or count in: none of
/// them is zero on a device that ran a kernel.
fn device(record: &SweepRecord) -> Result<(), String> {
    let device = &record.device;
    for (field, value) in [
        ("multiprocessors", device.multiprocessors),
        ("max_threads_per_sm", device.max_threads_per_sm),
        ("warp_size", device.warp_size),
        ("max_blocks_per_sm", device.max_blocks_per_sm),
        ("max_threads_per_block", device.max_threads_per_block),
        ("registers_per_sm", device.registers_per_sm),
        ("max_registers_per_block", device.max_registers_per_block),
    ] {
        if value == 0 {
            return Err(format!("device.{field} is 0: no device that ran a kernel has none"));
        }
    }
    Ok(())
}

/// One row: its shape, then its times (a measured row's from its samples, none for a row that
/// failed or was pruned). `Err` finishes "the row of 256 threads ...".
fn row(record: &SweepRecord, row: &RowRecord) -> Result<(), String> {
    row_shape(record, row)?;
    let times = [
        ("median_ms", row.median_ms),
        ("min_ms", row.min_ms),
        ("max_ms", row.max_ms),
        ("mad_ms", row.mad_ms),
    ];
    if !row.measured() {
        return unmeasured_row(row, &times);
    }
    row_samples(record, row, &times)?;
    row_figures(record, row)
}

/// A row's block and grid, its axes and the counts its block size gives.
fn row_shape(record: &SweepRecord, row: &RowRecord) -> Result<(), String> {
    let threads = row.threads_per_block;
    // Above the last whole warp of a u32 no warp count is defined (nor any device's block).
    if threads == 0 || threads > u32::MAX / WARP_SIZE * WARP_SIZE {
        return Err(format!("has threads_per_block {threads}, not a block size"));
    }
    if let Some(block) = row.block {
        if block.is_linear() {
            return Err(format!(
                "has block {block}, a block in x alone, which a run writes as threads_per_block alone"
            ));
        }
        if block.threads() != threads {
            return Err(format!(
                "has block {block} beside threads_per_block {threads}, not a shape of that many threads"
            ));
        }
    }
    if let Some(grid) = row.grid {
        if grid.is_linear() {
            return Err(format!(
                "has grid {grid}, a grid in x alone, which a run writes as grid_blocks alone"
            ));
        }
        if grid.blocks() != u64::from(row.grid_blocks) {
            return Err(format!(
                "has grid {grid} beside grid_blocks {}, not a shape of that many blocks",
                row.grid_blocks
            ));
        }
    }
    let names: Vec<&str> = row.axes.0.iter().map(|(name, _)| name.as_str()).collect();
    if names != record.axes.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(format!("has values on the axes {names:?} where the sweep's are {:?}", record.axes));
    }
    let expected = [
        ("warps_per_block", row.warps_per_block, Some(warps_per_block(threads))),
        ("idle_lanes", row.idle_lanes, Some(idle_lanes(threads))),
        ("warps_per_sm", row.warps_per_sm, row.blocks_per_sm.checked_mul(row.warps_per_block)),
    ];
    for (field, value, expected) in expected {
        if Some(value) != expected {
            return Err(match expected {
                Some(expected) => format!("has {field} {value} where its block size gives {expected}"),
                None => format!("has {field} {value}, beyond any count"),
            });
        }
    }
    if row.launches_per_sample == 0 {
        return Err("has launches_per_sample 0: a sample holds at least one launch".to_string());
    }
    Ok(())
}

/// A failed or pruned row: neither samples nor times.
fn unmeasured_row(row: &RowRecord, times: &[(&str, f64); 4]) -> Result<(), String> {
    if row.failed.is_some() && row.pruned.is_some() {
        return Err("both failed and was pruned: a pruned row is never launched".to_string());
    }
    if !row.run_ms.is_empty() || row.samples != 0 {
        return Err(format!(
            "has {} sample(s) (run_ms, samples {}) where it has no measurement (failed or pruned)",
            row.run_ms.len(),
            row.samples
        ));
    }
    if let Some((field, value)) = times.iter().find(|(_, value)| !value.is_nan()) {
        return Err(format!(
            "has {field} {} where it has no measurement (failed or pruned): null",
            number(*value)
        ));
    }
    Ok(())
}

/// A measured row's samples, and its statistics as its samples give them.
fn row_samples(record: &SweepRecord, row: &RowRecord, times: &[(&str, f64); 4]) -> Result<(), String> {
    let threads = row.threads_per_block;
    if row.run_ms.is_empty() {
        return Err("has no samples (run_ms)".to_string());
    }
    if row.samples != row.run_ms.len() {
        return Err(format!("has samples {} where run_ms holds {}", row.samples, row.run_ms.len()));
    }
    if let Some((index, sample)) =
        row.run_ms.iter().enumerate().find(|(_, sample)| !(sample.is_finite() && **sample > 0.0))
    {
        return Err(format!("has run_ms[{index}] {} ms: a time must be finite and above 0", number(*sample)));
    }
    if threads > record.device.max_threads_per_block {
        return Err(format!(
            "was measured beyond the device's {} threads per block",
            record.device.max_threads_per_block
        ));
    }
    let stats = RunStats::of(&row.run_ms);
    let from_samples = [stats.median, stats.min, stats.max, stats.mad];
    for ((field, value), expected) in times.iter().zip(from_samples) {
        let margin = STATISTIC_TOLERANCE * (expected.abs() + stats.median);
        let agrees = (value - expected).abs() <= margin;
        if !agrees {
            return Err(format!(
                "has {field} {} where its samples give {}",
                number(*value),
                number(expected)
            ));
        }
    }
    Ok(())
}

/// A measured row's figures in their ranges, its energy and its clock.
fn row_figures(record: &SweepRecord, row: &RowRecord) -> Result<(), String> {
    let checks = [
        ("occupancy_percent", row.occupancy_percent, 0.0, 100.0, "from 0 to 100"),
        ("gigabytes_per_second", row.gigabytes_per_second, 0.0, f64::MAX, "finite, 0 or more"),
        // The fastest row's median over this one's.
        (
            "fraction_of_best",
            row.fraction_of_best,
            f64::MIN_POSITIVE,
            1.0 + STATISTIC_TOLERANCE,
            "above 0, at most 1",
        ),
    ];
    // Under an energy objective a row without an energy reading is not ranked.
    let unranked =
        record.objective != Objective::Time && row.energy.is_none() && row.fraction_of_best.is_nan();
    for (field, value, low, high, range) in checks {
        let allowed = (low..=high).contains(&value) || (unranked && field == "fraction_of_best");
        if !allowed {
            return Err(format!("has {field} {}: it must be {range}", number(value)));
        }
    }
    if let Some(energy) = &row.energy {
        for (field, value) in [
            ("joules_per_pass", energy.joules_per_pass),
            ("watts", energy.watts),
            ("window_s", energy.window_s),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("has energy.{field} {}: it must be finite and above 0", number(value)));
            }
        }
    }
    if let Some(clock) = &row.sm_clock
        && clock.min_mhz > clock.median_mhz
    {
        return Err(format!(
            "has sm_clock.min_mhz {} above its median_mhz {}",
            clock.min_mhz, clock.median_mhz
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_value_is_quoted_cut_and_on_one_line() {
        assert_eq!(super::quoted("ab12"), "ab12");
        let long = "é".repeat(100) + "\n";
        let quoted = super::quoted(&long);
        assert!(quoted.ends_with("...") && quoted.chars().filter(|&c| c == 'é').count() == 80);
        assert_eq!(super::quoted("a\nb"), "\"a\\nb\"");
    }
}
