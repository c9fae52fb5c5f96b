/*!
`block-size diff OLD.json NEW.json`: two sweeps' JSON exports, configuration by configuration
(matched by block size, and by their values on the axes where there are axes), each labelled SAME,
FASTER, SLOWER or UNCLEAR by the rule of [`crate::results::diff`], with the ratio of medians and its
interval; then one summary line. No GPU.

Two files of different GPUs, kernels (or a kernel's parameters), PTX or work are refused with
one line (exit 2) unless [`DiffRequest::allow_different`]; a driver, timing or grid that
differs is said in a `Note:` line, and so is what a file of an older schema version did not
record ([`SweepRecord::lacking`]). A configuration that failed in either file has no
measurement to judge and is listed as such. A file that is not an export, or whose run failed
a check, is one line, exit 2. Either file may be a T4 results file (Kernel Tuner's, or `--format
t4`'s): what it does not record is not compared (docs/kernel-tuner.md).
*/

use crate::error::{Console, Error, exit, one_line, shown};
use crate::measure::sampling::timing::Timing;
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::BlockShape;
use crate::model::counters::Counters;
use crate::results::diff::{self, CONFIDENCE, DEFAULT_THRESHOLD, RESAMPLES, Verdict};
use crate::results::schema::t4::NOT_RECORDED;
use crate::results::schema::{RowRecord, SweepRecord};
use crate::results::table::render_columns;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// What `block-size diff` is asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DiffRequest {
    /// The baseline's JSON export.
    pub old: PathBuf,
    /// The JSON export judged against it.
    pub new: PathBuf,
    /// `--threshold`: how far from 1 the ratio of medians may be and still be SAME, a
    /// fraction above 0 and below 1 (0.02).
    pub threshold: f64,
    /// `--fail-if-slower`: exit 1 where any configuration is SLOWER.
    pub fail_if_slower: bool,
    /// `--allow-different`: compare files of different GPUs, kernels, PTX or work.
    pub allow_different: bool,
}

impl Default for DiffRequest {
    fn default() -> Self {
        Self {
            old: PathBuf::new(),
            new: PathBuf::new(),
            threshold: DEFAULT_THRESHOLD,
            fail_if_slower: false,
            allow_different: false,
        }
    }
}

impl DiffRequest {
    /// Every check that needs no file, the first failing one as one line (exit 2).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        if !(self.threshold > 0.0 && self.threshold < 1.0) {
            return Err(Error::new(
                exit::USAGE,
                format!(
                    "--threshold must be a fraction above 0 and below 1 (0.02 is 2 percent), not {}",
                    self.threshold
                ),
            ));
        }
        Ok(())
    }
}

/// One configuration of the two files.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    /// Its values on the axes, where the sweeps have axes.
    pub axes: AxisValues,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Its block: its block size in x alone, or a shape (a 1-D row of an older file is its
    /// block size in x alone, so it meets the same row of a newer one).
    pub block: BlockShape,
    /// The verdict with its numbers, where both files measured the configuration.
    pub judged: Option<diff::Judged>,
    /// Why it is not judged, where it is not.
    pub unjudged: Option<Unjudged>,
    /// OLD's and NEW's joules a pass, where both read the configuration's energy: one window
    /// a file, so a ratio and no interval.
    pub energy: Option<(f64, f64)>,
    /// OLD's and NEW's hardware counters, where both read the configuration's (`--counters`):
    /// one replay a file, so no interval and no verdict.
    pub counters: Option<(Counters, Counters)>,
}

/// Why a configuration is not judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unjudged {
    /// Only OLD has it.
    OnlyInOld,
    /// Only NEW has it.
    OnlyInNew,
    /// It failed (a launch fault, a hang) in OLD, NEW or both: no measurement there.
    Failed(&'static str),
}

impl Unjudged {
    /// Why, in the verdict column's words: `only in OLD`, `failed in NEW`.
    fn words(self) -> String {
        match self {
            Self::OnlyInOld => "only in OLD".to_string(),
            Self::OnlyInNew => "only in NEW".to_string(),
            Self::Failed(which) => format!("failed in {which}"),
        }
    }
}

/// The comparison of two records.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileDiff {
    /// What differs between the files that makes them different measurements.
    pub differences: Vec<String>,
    /// What differs that does not (driver, timing, grid).
    pub notes: Vec<String>,
    /// OLD's configurations in its order, then those only NEW has.
    pub lines: Vec<Line>,
}

impl FileDiff {
    /// How many configurations got each verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.lines.iter().filter(|line| line.judged.is_some_and(|judged| judged.verdict == verdict)).count()
    }
}

/// A row's configuration: its values on the axes, the block size and the block's shape.
fn axes(row: &RowRecord) -> (&AxisValues, u32, BlockShape) {
    (&row.axes, row.threads_per_block, row.shape())
}

/// The rows of `record` that were launched: a pruned configuration has nothing to compare.
fn launched(record: &SweepRecord) -> Vec<&RowRecord> {
    record.rows.iter().filter(|row| row.pruned.is_none()).collect()
}

/// The timing in a few words: `batch, 10 launch(es) a sample, L2 flush none, noise-driven stop`.
fn timing_words(timing: &Timing) -> String {
    let stop = if timing.stop.is_none() { "fixed count" } else { "noise-driven stop" };
    let grown = if timing.may_grow() { " or more" } else { "" };
    format!(
        "{}, {}{grown} launch(es) a sample, L2 flush {}, {stop}",
        timing.mode,
        timing.launches_per_sample,
        timing.l2_flush().name()
    )
}

/// The first `count` characters of a hash.
fn short(sha: &str, count: usize) -> String {
    sha.chars().take(count).collect()
}

/// One row's samples, as the statistics take them.
fn samples(row: &RowRecord) -> Vec<f64> {
    row.run_ms.iter().map(|&ms| f64::from(ms)).collect()
}

/// Compares NEW with OLD at `threshold`.
pub(crate) fn diff_records<'a>(old: &'a SweepRecord, new: &'a SweepRecord, threshold: f64) -> FileDiff {
    let (differences, notes) = measurement_differences(old, new);
    // A pruned configuration was not launched in that file: nothing to compare. One that
    // failed was launched but has no samples: listed, not judged.
    let (old_rows, new_rows) = (launched(old), launched(new));
    // Each file's configurations by their values: a lookup, not a search of the other file's
    // rows for each row (quadratic in a file of many rows). The first of a configuration wins,
    // as a search would find it (the reader refuses a file that has one twice).
    let index = |rows: &[&'a RowRecord]| {
        let mut index = HashMap::with_capacity(rows.len());
        for &row in rows {
            index.entry(axes(row)).or_insert(row);
        }
        index
    };
    let (old_index, new_index) = (index(&old_rows), index(&new_rows));
    let unjudged = |old: Option<&RowRecord>, new: Option<&RowRecord>| match (old, new) {
        (Some(old), Some(new)) if !old.measured() && !new.measured() => Unjudged::Failed("both"),
        (Some(old), _) if !old.measured() => Unjudged::Failed("OLD"),
        (_, Some(new)) if !new.measured() => Unjudged::Failed("NEW"),
        (_, None) => Unjudged::OnlyInOld,
        _ => Unjudged::OnlyInNew,
    };
    // Each configuration's bootstrap is seeded by its own label, so they run in parallel and
    // give what they give one after the other.
    let mut lines: Vec<Line> = old_rows
        .par_iter()
        .map(|&row| {
            let other = new_index.get(&axes(row)).copied();
            let judged = other
                .filter(|other| row.measured() && other.measured())
                .map(|other| diff::judge(&samples(row), &samples(other), threshold, &row.label()));
            let energy = other.and_then(|other| match (&row.energy, &other.energy) {
                (Some(old), Some(new)) => Some((old.joules_per_pass, new.joules_per_pass)),
                _ => None,
            });
            let counters = other.and_then(|other| row.counters.zip(other.counters));
            Line {
                axes: row.axes.clone(),
                threads_per_block: row.threads_per_block,
                block: row.shape(),
                unjudged: judged.is_none().then(|| unjudged(Some(row), other)),
                judged,
                energy,
                counters,
            }
        })
        .collect();
    for &row in new_rows.iter().filter(|row| !old_index.contains_key(&axes(row))) {
        lines.push(Line {
            axes: row.axes.clone(),
            threads_per_block: row.threads_per_block,
            block: row.shape(),
            judged: None,
            unjudged: Some(unjudged(None, Some(row))),
            energy: None,
            counters: None,
        });
    }
    FileDiff { differences, notes, lines }
}

/// How the two files' measurements differ (GPU, kernel, the sweep's settings, axes), and the
/// notes on what either did not record.
fn measurement_differences(old: &SweepRecord, new: &SweepRecord) -> (Vec<String>, Vec<String>) {
    let mut differences = Vec::new();
    let mut notes = Vec::new();
    let differ = |what: &str, old: String, new: String, into: &mut Vec<String>| {
        if old != new {
            into.push(format!("{what}: {old} vs {new}"));
        }
    };
    // A T4 file records neither its kernel's PTX nor its work, driver, timing, grid or clocks
    // (nor, from Kernel Tuner, its GPU and kernel): what either file did not record is not
    // compared, and the files' `Note:` lines say so.
    let t4 = old.origin.kernel_tuner.is_some() || new.origin.kernel_tuner.is_some();
    let known = |old: &str, new: &str| old != NOT_RECORDED && new != NOT_RECORDED;
    if known(&old.device.name, &new.device.name) {
        differ("GPU", old.device.name.clone(), new.device.name.clone(), &mut differences);
    }
    let kernel = |record: &SweepRecord| {
        let detail =
            record.workload.detail.as_deref().map_or_else(String::new, |detail| format!(" ({detail})"));
        format!("{} from {}{detail}", record.workload.kernel, record.kernel)
    };
    if t4 {
        if known(&old.workload.kernel, &new.workload.kernel) {
            differ("kernel", old.workload.kernel.clone(), new.workload.kernel.clone(), &mut differences);
        }
    } else {
        differ("kernel", kernel(old), kernel(new), &mut differences);
    }
    if !t4 {
        sweep_differences(old, new, &mut differences, &mut notes);
    }
    differ("axes", old.axes.join(", "), new.axes.join(", "), &mut differences);
    (differences, notes)
}

/// What two block-size sweeps' files say that a T4 file does not: the PTX and the work (which
/// make them different measurements), the driver, the timing, the grid and the clocks (notes).
fn sweep_differences(
    old: &SweepRecord,
    new: &SweepRecord,
    differences: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    let differ = |what: &str, old: String, new: String, into: &mut Vec<String>| {
        if old != new {
            into.push(format!("{what}: {old} vs {new}"));
        }
    };
    if old.ptx_sha256 != new.ptx_sha256 {
        let (old_sha, new_sha) = (short(&old.ptx_sha256, 12), short(&new.ptx_sha256, 12));
        differ("PTX sha256", format!("{old_sha}..."), format!("{new_sha}..."), differences);
    }
    let work =
        |record: &SweepRecord| format!("{}, {} B a pass", record.extent(), record.workload.bytes_per_pass);
    differ("work", work(old), work(new), differences);
    let driver = |record: &SweepRecord| {
        let provenance = record.provenance.as_ref();
        let release = provenance
            .and_then(|provenance| provenance.driver_release.clone())
            .unwrap_or_else(|| "release unknown".to_string());
        let api = provenance.map_or_else(|| "?".to_string(), |provenance| provenance.cuda_driver_api.clone());
        format!("{release} (CUDA {api})")
    };
    differ("driver", driver(old), driver(new), notes);
    differ("timing", timing_words(&old.timing), timing_words(&new.timing), notes);
    differ("grid", old.grid.name(), new.grid.name(), notes);
    // A verdict may come from the clock rather than the code: say where the clocks differ.
    let clocks = |record: &SweepRecord| {
        let mut medians: Vec<u32> = record
            .rows
            .iter()
            .filter_map(|row| row.sm_clock.as_ref().map(|clock| clock.median_mhz))
            .collect();
        medians.sort_unstable();
        let throttled: u32 = record
            .rows
            .iter()
            .filter_map(|row| row.sm_clock.as_ref())
            .map(|clock| clock.throttled_samples)
            .sum();
        match (medians.first(), medians.last()) {
            (Some(low), Some(high)) if low == high => format!("{low} MHz, {throttled} sample(s) throttled"),
            (Some(low), Some(high)) => format!("{low} to {high} MHz, {throttled} sample(s) throttled"),
            _ => "not read".to_string(),
        }
    };
    differ("SM clock", clocks(old), clocks(new), notes);
}

/// What the files' runs failed, as a refusal: their rows are not a measurement.
fn failed_checks(record: &SweepRecord, path: &std::path::Path) -> Result<(), Error> {
    match record.failures.len() {
        0 => Ok(()),
        count => Err(Error::new(
            exit::USAGE,
            format!(
                "{}: {count} check(s) failed in that run, so its rows are not a measurement",
                shown(path)
            ),
        )),
    }
}

/// Reads the axes of a Kernel Tuner file as the other file's where the T4 mapping makes them
/// one (`crate::results::export::t4::identifier`: block-size writes its axis `items/thr` as
/// the parameter `items_per_thread`): an axis of the Kernel Tuner file that the other file
/// lacks takes the name of the one axis of the other file, absent from the Kernel Tuner file,
/// whose identifier it is; where both then have the same axes, the Kernel Tuner file takes the
/// other's order. Nothing happens where both files or neither are Kernel Tuner's. Returns each
/// rename in words, for a `Note:` line.
fn align_axes(old: &mut SweepRecord, new: &mut SweepRecord) -> Vec<String> {
    let (tuner, other) = match (old.origin.kernel_tuner.is_some(), new.origin.kernel_tuner.is_some()) {
        (true, false) => (old, &*new),
        (false, true) => (new, &*old),
        _ => return Vec::new(),
    };
    let mut renames: Vec<(String, String)> = Vec::new();
    for name in &tuner.axes {
        if other.axes.contains(name) {
            continue;
        }
        let theirs: Vec<&String> = other
            .axes
            .iter()
            .filter(|theirs| {
                !tuner.axes.contains(theirs) && crate::results::export::t4::identifier(theirs) == *name
            })
            .collect();
        if let [theirs] = theirs[..] {
            renames.push((name.clone(), theirs.clone()));
        }
    }
    if renames.is_empty() {
        return Vec::new();
    }
    let renamed = |name: &str| {
        renames.iter().find(|(from, _)| from == name).map_or_else(|| name.to_string(), |(_, to)| to.clone())
    };
    let mut axes: Vec<String> = tuner.axes.iter().map(|name| renamed(name)).collect();
    let mut sorted = axes.clone();
    sorted.sort();
    let mut theirs = other.axes.clone();
    theirs.sort();
    if sorted == theirs {
        axes = other.axes.clone();
    }
    for row in &mut tuner.rows {
        let values: Vec<(String, String)> =
            row.axes.0.iter().map(|(name, value)| (renamed(name), value.clone())).collect();
        row.axes = AxisValues(
            axes.iter()
                .filter_map(|name| values.iter().find(|(theirs, _)| theirs == name).cloned())
                .collect(),
        );
    }
    tuner.axes = axes;
    renames
        .iter()
        .map(|(from, to)| {
            format!(
                "the Kernel Tuner file's parameter `{from}` is read as the axis `{to}` (docs/kernel-tuner.md)"
            )
        })
        .collect()
}

/// `block-size diff`: prints the comparison; `Ok` carries 0, or 1 with
/// [`DiffRequest::fail_if_slower`] where a configuration is SLOWER.
pub(crate) fn exec(request: &DiffRequest, console: &mut Console) -> Result<i32, Error> {
    request.validate()?;
    let (mut old, mut new) = (SweepRecord::read(&request.old)?, SweepRecord::read(&request.new)?);
    failed_checks(&old, &request.old)?;
    failed_checks(&new, &request.new)?;
    let renamed = align_axes(&mut old, &mut new);
    let mut comparison = diff_records(&old, &new, request.threshold);
    comparison.notes.extend(renamed);
    if !comparison.differences.is_empty() && !request.allow_different {
        return Err(Error::new(
            exit::USAGE,
            one_line(&format!(
                "{} and {} are not the same measurement ({}); give --allow-different to compare them anyway",
                shown(&request.old),
                shown(&request.new),
                comparison.differences.join("; ")
            )),
        ));
    }
    if comparison.lines.iter().all(|line| line.judged.is_none()) {
        return Err(Error::new(
            exit::USAGE,
            format!("{} and {} have no configuration in common", shown(&request.old), shown(&request.new)),
        ));
    }
    console.out(&render(request, &old, &new, &comparison));
    let slower = comparison.count(Verdict::Slower) > 0;
    Ok(if slower && request.fail_if_slower { exit::FAILED } else { exit::SUCCESS })
}

/// The comparison as `block-size diff` prints it.
pub(crate) fn render(
    request: &DiffRequest,
    old: &SweepRecord,
    new: &SweepRecord,
    comparison: &FileDiff,
) -> String {
    preamble(request, old, new, comparison)
        + &lines_table(old, comparison)
        + &counts_line(comparison, request.threshold)
}

/// The lines above the table: each file described, the notes, the rule.
fn preamble(request: &DiffRequest, old: &SweepRecord, new: &SweepRecord, comparison: &FileDiff) -> String {
    let describe = |label: &str, path: &std::path::Path, record: &SweepRecord| {
        if let Some(file) = &record.origin.kernel_tuner {
            return format!(
                "{label}: {} ({file}; GPU {}, kernel {})\n",
                path.display(),
                record.device.name,
                record.workload.kernel
            );
        }
        format!(
            "{label}: {} ({}, {} {}, PTX {}, {}; {})\n",
            path.display(),
            record.device.name,
            record.workload.kernel,
            record.kernel,
            short(&record.ptx_sha256, 12),
            record.extent(),
            record.provenance.as_ref().map_or("date unknown", |provenance| provenance.date.as_str()),
        )
    };
    let mut text = describe("OLD", &request.old, old) + &describe("NEW", &request.new, new);
    for lacking in [old.lacking("OLD"), new.lacking("NEW")].into_iter().flatten() {
        text += &format!("Note: {lacking}\n");
    }
    for difference in &comparison.differences {
        text += &format!("Note: not the same measurement (--allow-different): {difference}\n");
    }
    for note in &comparison.notes {
        text += &format!("Note: {note}\n");
    }
    let t = request.threshold;
    text += &format!(
        "Rule: ratio = median of NEW's samples / median of OLD's; {:.0}% bootstrap interval ({RESAMPLES} resamples, seeded); \
         SLOWER if it lies above {}, FASTER below {}, SAME within [{}, {}], else UNCLEAR.\n\n",
        CONFIDENCE * 100.0,
        bound(1.0 + t),
        bound(1.0 - t),
        bound(1.0 - t),
        bound(1.0 + t)
    );
    text
}

/// Which of the optional columns the table shows.
#[derive(Clone, Copy)]
struct DiffColumns {
    /// A block column: some configuration's block is a shape.
    shaped: bool,
    /// Both files' energy.
    energy: bool,
    /// Both files' counters.
    counters: bool,
}

/// The table, a line a configuration, and the footnotes of its energy and counters columns.
fn lines_table(old: &SweepRecord, comparison: &FileDiff) -> String {
    let mut heading: Vec<String> = Vec::new();
    heading.extend(old.axes.iter().cloned());
    heading.push("thr/blk".to_string());
    // A block column where a configuration's block is a shape: 1-D diffs read as before.
    let shaped = comparison.lines.iter().any(|line| !line.block.is_linear());
    if shaped {
        heading.push("block".to_string());
    }
    heading.extend(["old ms", "new ms", "ratio", "95% interval", "verdict"].map(String::from));
    let energy = comparison.lines.iter().any(|line| line.energy.is_some());
    if energy {
        heading.extend(["old mJ", "new mJ", "mJ ratio"].map(String::from));
    }
    // Where both files read counters: what moved, old to new (DRAM rate, achieved occupancy,
    // warp efficiency, memory stalls).
    let counters = comparison.lines.iter().any(|line| line.counters.is_some());
    if counters {
        heading.extend(["DRAM GB/s", "occ achv", "warp eff", "mem stall"].map(String::from));
    }
    let mut records = vec![heading];
    let columns = DiffColumns { shaped, energy, counters };
    records.extend(comparison.lines.iter().map(|line| line_record(&old.axes, line, columns)));
    let mut text = render_columns(records);
    if energy {
        text += "mJ ratio: NEW's joules a pass over OLD's, from one energy window a configuration in each file: no interval, no verdict.\n";
    }
    if counters {
        text += "Counters: OLD's reading > NEW's, from one replay a configuration in each file (--counters): no interval, no verdict.\n";
    }
    text
}

/// One configuration's cells: its axes and block, the medians, the ratio, its interval and
/// verdict (or why none), and where shown the energy and the counters, old to new.
fn line_record(axes: &[String], line: &Line, columns: DiffColumns) -> Vec<String> {
    let DiffColumns { shaped, energy, counters } = columns;
    let mut record = Vec::new();
    for name in axes {
        record.push(line.axes.get(name).unwrap_or_default().to_string());
    }
    record.push(line.threads_per_block.to_string());
    if shaped {
        record.push(line.block.to_string());
    }
    match (&line.judged, line.unjudged) {
        (Some(judged), _) => record.extend([
            format!("{:.4}", judged.old_median),
            format!("{:.4}", judged.new_median),
            format!("{:.3}", judged.ratio),
            format!("{:.3}-{:.3}", judged.low, judged.high),
            judged.verdict.to_string(),
        ]),
        (None, why) => {
            record.extend(["-", "-", "-", "-"].map(String::from));
            record.push(why.map_or_else(|| "not judged".to_string(), Unjudged::words));
        }
    }
    if energy {
        match line.energy {
            Some((old, new)) => {
                record.extend([
                    format!("{:.3}", old * 1e3),
                    format!("{:.3}", new * 1e3),
                    format!("{:.3}", new / old),
                ]);
            }
            None => record.extend(["-", "-", "-"].map(String::from)),
        }
    }
    if counters {
        match &line.counters {
            Some((old, new)) => {
                let moved = |old: Option<f64>, new: Option<f64>, scale: f64, decimals: usize| match (old, new)
                {
                    (Some(old), Some(new)) => {
                        format!("{:.decimals$}>{:.decimals$}", old * scale, new * scale)
                    }
                    _ => "n/a".to_string(),
                };
                record.extend([
                    moved(old.dram_bytes_per_second, new.dram_bytes_per_second, 1e-9, 0),
                    moved(old.achieved_occupancy_percent, new.achieved_occupancy_percent, 1.0, 0),
                    moved(old.warp_efficiency_percent, new.warp_efficiency_percent, 1.0, 0),
                    moved(old.memory_stalls_per_issue, new.memory_stalls_per_issue, 1.0, 1),
                ]);
            }
            None => record.extend(["-", "-", "-", "-"].map(String::from)),
        }
    }
    record
}

/// The count of each verdict, and of the configurations not judged.
fn counts_line(comparison: &FileDiff, t: f64) -> String {
    let judged = comparison.lines.iter().filter(|line| line.judged.is_some()).count();
    let counts: Vec<String> =
        Verdict::ALL.iter().map(|&verdict| format!("{} {verdict}", comparison.count(verdict))).collect();
    let only_in_one = comparison
        .lines
        .iter()
        .filter(|line| matches!(line.unjudged, Some(Unjudged::OnlyInOld | Unjudged::OnlyInNew)))
        .count();
    let failed =
        comparison.lines.iter().filter(|line| matches!(line.unjudged, Some(Unjudged::Failed(_)))).count();
    format!(
        "\n{judged} configurations compared: {} (threshold {}%){}{}.\n",
        counts.join(", "),
        trim(t * 100.0),
        if only_in_one > 0 { format!("; {only_in_one} in one file only") } else { String::new() },
        if failed > 0 {
            format!("; {failed} failed in a file, with no measurement to judge")
        } else {
            String::new()
        },
    )
}

/// A bound of the band: 1.02, 0.98, 1.005.
fn bound(value: f64) -> String {
    trim(value)
}

/// At most four decimals, no trailing zeros.
fn trim(value: f64) -> String {
    let text = format!("{value:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kernel Tuner's cache of the T4 fixtures (block_size_x, block_size_y, items_per_thread).
    fn kernel_tuner() -> SweepRecord {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tests/t4/kernel-tuner.cache.json");
        SweepRecord::read(&path).unwrap()
    }

    /// The same results as a file of block-size's own, its axis named `items/thr`.
    fn block_size_of(record: &SweepRecord) -> SweepRecord {
        let mut ours = record.clone();
        ours.origin.kernel_tuner = None;
        ours.axes = vec!["items/thr".into()];
        for row in &mut ours.rows {
            row.axes =
                AxisValues(row.axes.0.iter().map(|(_, value)| ("items/thr".into(), value.clone())).collect());
        }
        ours
    }

    #[test]
    fn a_kernel_tuner_parameter_is_read_as_the_axis_whose_identifier_it_is() {
        let mut tuner = kernel_tuner();
        assert_eq!(tuner.axes, ["items_per_thread"]);
        let mut ours = block_size_of(&tuner);
        // Unaligned, the files share no configuration and differ in their axes.
        let apart = diff_records(&tuner, &ours, DEFAULT_THRESHOLD);
        assert!(apart.lines.iter().all(|line| line.judged.is_none()));
        assert!(
            apart.differences.iter().any(|difference| difference.starts_with("axes")),
            "{:?}",
            apart.differences
        );
        let notes = align_axes(&mut tuner, &mut ours);
        assert_eq!(
            notes,
            [
                "the Kernel Tuner file's parameter `items_per_thread` is read as the axis `items/thr` (docs/kernel-tuner.md)"
            ]
        );
        assert_eq!(tuner.axes, ["items/thr"]);
        let together = diff_records(&ours, &tuner, DEFAULT_THRESHOLD);
        assert!(together.differences.is_empty(), "{:?}", together.differences);
        // Every configuration judged, as where the Kernel Tuner file is diffed with itself.
        let judged = |diff: &FileDiff| diff.lines.iter().filter(|line| line.judged.is_some()).count();
        let itself = kernel_tuner();
        assert_eq!(judged(&together), judged(&diff_records(&itself, &itself, DEFAULT_THRESHOLD)));
        assert_eq!(judged(&together), 4);
        // Either way round; and nothing where both files are Kernel Tuner's or neither is.
        let (mut tuner, mut ours) = (kernel_tuner(), block_size_of(&kernel_tuner()));
        assert_eq!(align_axes(&mut ours, &mut tuner).len(), 1);
        let (mut one, mut two) = (kernel_tuner(), kernel_tuner());
        assert!(align_axes(&mut one, &mut two).is_empty());
        let (mut one, mut two) = (block_size_of(&kernel_tuner()), block_size_of(&kernel_tuner()));
        assert!(align_axes(&mut one, &mut two).is_empty());
    }

    #[test]
    fn a_parameter_that_maps_to_no_axis_or_to_two_stays_as_it_is() {
        let mut tuner = kernel_tuner();
        let mut ours = block_size_of(&tuner);
        ours.axes = vec!["waves".into()];
        assert!(align_axes(&mut tuner, &mut ours).is_empty());
        assert_eq!(tuner.axes, ["items_per_thread"]);
        // Two axes whose identifier is `items_per_thread`: ambiguous, left alone.
        ours.axes = vec!["items/thr".into(), "items per thread".into()];
        assert!(align_axes(&mut tuner, &mut ours).is_empty());
    }
}
