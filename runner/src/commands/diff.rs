/*!
`block-size diff OLD.json NEW.json`: two sweeps' JSON exports, configuration by configuration
(matched by block size, and by their values on the axes where there are axes), each labelled SAME,
FASTER, SLOWER or UNCLEAR by the rule of [`crate::results::diff`], with the ratio of medians and its
interval; then one summary line. No GPU.

Two files of different GPUs, kernels (or a kernel's parameters), PTX or work are refused with
one line (exit 2) unless [`DiffRequest::allow_different`]; a driver, timing or grid that
differs is said in a `Note:` line. A file that is not an export, or whose run failed a check,
is one line, exit 2.
*/

use crate::error::{Console, Error, exit};
use crate::model::axis_values::AxisValues;
use crate::results::diff::{self, CONFIDENCE, DEFAULT_THRESHOLD, RESAMPLES, Verdict};
use crate::results::document::{Document, Row};
use crate::results::table::render_columns;
use std::path::PathBuf;

/// What `block-size diff` is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRequest {
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
    pub fn validate(&self) -> Result<(), Error> {
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
    /// The verdict with its numbers, where both files have the configuration.
    pub judged: Option<diff::Judged>,
    /// Which file alone has it, where only one does.
    pub only_in: Option<&'static str>,
}

/// The comparison of two documents.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Comparison {
    /// What differs between the files that makes them different measurements.
    pub differences: Vec<String>,
    /// What differs that does not (driver, timing, grid).
    pub notes: Vec<String>,
    /// OLD's configurations in its order, then those only NEW has.
    pub lines: Vec<Line>,
}

impl Comparison {
    /// How many configurations got each verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.lines.iter().filter(|line| line.judged.is_some_and(|judged| judged.verdict == verdict)).count()
    }
}

/// A row's configuration: its values on the axes and the block size.
fn axes(row: &Row) -> (&AxisValues, u32) {
    (&row.axes, row.threads_per_block)
}

/// The rows of `document` that were launched: a pruned configuration has nothing to compare.
fn launched(document: &Document) -> Vec<&Row> {
    document.rows.iter().filter(|row| row.pruned.is_none()).collect()
}

/// Compares NEW with OLD at `threshold`.
pub(crate) fn compare(old: &Document, new: &Document, threshold: f64) -> Comparison {
    let mut differences = Vec::new();
    let mut notes = Vec::new();
    let differ = |what: &str, old: String, new: String, into: &mut Vec<String>| {
        if old != new {
            into.push(format!("{what}: {old} vs {new}"));
        }
    };
    differ("GPU", old.device.name.clone(), new.device.name.clone(), &mut differences);
    let kernel = |document: &Document| {
        let detail =
            document.workload().detail.as_deref().map_or_else(String::new, |detail| format!(" ({detail})"));
        format!("{} from {}{detail}", document.workload().kernel, document.kernel)
    };
    differ("kernel", kernel(old), kernel(new), &mut differences);
    let short = |sha: &str| format!("{}...", &sha[..sha.len().min(12)]);
    if old.ptx_sha256 != new.ptx_sha256 {
        differ("PTX sha256", short(&old.ptx_sha256), short(&new.ptx_sha256), &mut differences);
    }
    let work = |document: &Document| {
        format!("{}, {} B a pass", document.extent(), document.workload().bytes_per_pass)
    };
    differ("work", work(old), work(new), &mut differences);
    let driver = |document: &Document| {
        let release = document.provenance("driver_release").unwrap_or_else(|| "release unknown".to_string());
        let api = document.provenance("cuda_driver_api").unwrap_or_else(|| "?".to_string());
        format!("{release} (CUDA {api})")
    };
    differ("driver", driver(old), driver(new), &mut notes);
    differ("timing", old.timing_words(), new.timing_words(), &mut notes);
    differ("grid", old.grid.clone(), new.grid.clone(), &mut notes);
    differ("axes", old.axes.join(", "), new.axes.join(", "), &mut differences);

    // A pruned configuration was not launched in that file: nothing to compare.
    let (old_rows, new_rows) = (launched(old), launched(new));
    let mut lines = Vec::new();
    for &row in &old_rows {
        let judged = new_rows
            .iter()
            .find(|other| axes(other) == axes(row))
            .map(|other| diff::judge(&row.run_ms, &other.run_ms, threshold, &old.label(row)));
        lines.push(Line {
            axes: row.axes.clone(),
            threads_per_block: row.threads_per_block,
            only_in: judged.is_none().then_some("OLD"),
            judged,
        });
    }
    for row in new_rows.iter().filter(|row| !old_rows.iter().any(|other| axes(other) == axes(row))) {
        lines.push(Line {
            axes: row.axes.clone(),
            threads_per_block: row.threads_per_block,
            judged: None,
            only_in: Some("NEW"),
        });
    }
    Comparison { differences, notes, lines }
}

/// What the files' runs failed, as a refusal: their rows are not a measurement.
fn failed_checks(document: &Document, path: &std::path::Path) -> Result<(), Error> {
    match document.failures.len() {
        0 => Ok(()),
        count => Err(Error::new(
            exit::USAGE,
            format!(
                "{}: {count} check(s) failed in that run, so its rows are not a measurement",
                path.display()
            ),
        )),
    }
}

/// `block-size diff`: prints the comparison; `Ok` carries 0, or 1 with
/// [`DiffRequest::fail_if_slower`] where a configuration is SLOWER.
pub(crate) fn exec(request: &DiffRequest, console: &mut Console) -> Result<i32, Error> {
    request.validate()?;
    let (old, new) = (Document::read(&request.old)?, Document::read(&request.new)?);
    failed_checks(&old, &request.old)?;
    failed_checks(&new, &request.new)?;
    let comparison = compare(&old, &new, request.threshold);
    if !comparison.differences.is_empty() && !request.allow_different {
        return Err(Error::new(
            exit::USAGE,
            format!(
                "{} and {} are not the same measurement ({}); give --allow-different to compare them anyway",
                request.old.display(),
                request.new.display(),
                comparison.differences.join("; ")
            ),
        ));
    }
    if comparison.lines.iter().all(|line| line.judged.is_none()) {
        return Err(Error::new(
            exit::USAGE,
            format!(
                "{} and {} have no configuration in common",
                request.old.display(),
                request.new.display()
            ),
        ));
    }
    console.out(&render(request, &old, &new, &comparison));
    let slower = comparison.count(Verdict::Slower) > 0;
    Ok(if slower && request.fail_if_slower { exit::FAILED } else { exit::SUCCESS })
}

/// The comparison as `block-size diff` prints it.
pub(crate) fn render(
    request: &DiffRequest,
    old: &Document,
    new: &Document,
    comparison: &Comparison,
) -> String {
    let describe = |label: &str, path: &std::path::Path, document: &Document| {
        format!(
            "{label}: {} ({}, {} {}, PTX {}, {}; {})\n",
            path.display(),
            document.device.name,
            document.workload().kernel,
            document.kernel,
            &document.ptx_sha256[..document.ptx_sha256.len().min(12)],
            document.extent(),
            document.provenance("date").unwrap_or_else(|| "date unknown".to_string()),
        )
    };
    let mut text = describe("OLD", &request.old, old) + &describe("NEW", &request.new, new);
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

    let mut heading: Vec<String> = Vec::new();
    heading.extend(old.axes.iter().cloned());
    heading.extend(["thr/blk", "old ms", "new ms", "ratio", "95% interval", "verdict"].map(String::from));
    let mut records = vec![heading];
    for line in &comparison.lines {
        let mut record = Vec::new();
        for name in &old.axes {
            record.push(line.axes.get(name).unwrap_or_default().to_string());
        }
        record.push(line.threads_per_block.to_string());
        match (&line.judged, line.only_in) {
            (Some(judged), _) => record.extend([
                format!("{:.4}", judged.old_median),
                format!("{:.4}", judged.new_median),
                format!("{:.3}", judged.ratio),
                format!("{:.3}-{:.3}", judged.low, judged.high),
                judged.verdict.to_string(),
            ]),
            (None, only) => {
                let only = only.unwrap_or("one file");
                record.extend(["-", "-", "-", "-"].map(String::from));
                record.push(format!("only in {only}"));
            }
        }
        records.push(record);
    }
    text += &render_columns(records);
    let judged = comparison.lines.iter().filter(|line| line.judged.is_some()).count();
    let counts: Vec<String> =
        Verdict::ALL.iter().map(|&verdict| format!("{} {verdict}", comparison.count(verdict))).collect();
    let unmatched = comparison.lines.len() - judged;
    text += &format!(
        "\n{judged} configurations compared: {} (threshold {}%){}.\n",
        counts.join(", "),
        trim(t * 100.0),
        if unmatched > 0 { format!("; {unmatched} in one file only") } else { String::new() }
    );
    text
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
