//! Markdown: the table and the summary, ready to paste into a report. Every text of a record
//! that another machine or a user named (the GPU, the kernel, the axes and their values, a
//! reason, a failure) is [`text`]: on one line, its Markdown characters escaped, so that a GPU
//! named `H200\n# heading` or `a | b` is its name in the page, not a heading or a cell.

use super::{Exporter, sentences};
use crate::error::one_line;
use crate::model::grid::GridPolicy;
use crate::results::schema::SweepRecord;
use crate::results::table;
use anyhow::Result;
use std::fmt::Write as _;

/// Markdown: the table and the summary.
pub struct MarkdownExporter;

/// `value` as Markdown text within a line: one line (control characters escaped as `\n`, the
/// line and paragraph separators as `\u{2028}`), every character that could open emphasis, a
/// code span, a link, a table cell or a heading escaped with a backslash, and a `<` that could
/// open an HTML tag or comment (before a letter, `/`, `!` or `?`; `<=` stays as it is).
fn text(value: &str) -> String {
    let line = one_line(value);
    let mut escaped = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let opens_tag =
            c == '<' && chars.peek().is_some_and(|next| next.is_alphabetic() || "/!?".contains(*next));
        match c {
            '\\' | '`' | '*' | '_' | '|' | '[' | ']' | '#' | '~' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '<' if opens_tag => escaped.push_str("\\<"),
            '\u{2028}' | '\u{2029}' => escaped.push_str(&c.escape_unicode().to_string()),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// `value` as a Markdown code span: one line, between as many backticks as it needs (one more
/// than its longest run of them), padded where it starts or ends with one.
fn code(value: &str) -> String {
    let value = one_line(value);
    let longest = value.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if value.starts_with('`') || value.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{value}{pad}{fence}")
}

impl Exporter for MarkdownExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        let mut out = head(record)?;
        rows(record, &mut out)?;
        out += "\n";
        sentences_below(record, &mut out)?;
        Ok(out)
    }
}

/// The lines above the table: the device, the work, the timing and the kernel, and what the
/// workload's GB/s count.
fn head(record: &SweepRecord) -> Result<String> {
    let device = &record.device;
    let mut out = format!(
        "**{}** (compute capability {}.{}, {} SMs), {}, {}{}; kernel {} (PTX sha256 {})\n\n",
        text(&device.name),
        device.compute_capability.0,
        device.compute_capability.1,
        device.multiprocessors,
        text(&record.extent()),
        table::timing_clause(record.timing),
        match record.grid {
            GridPolicy::OneWave => String::new(),
            other => format!(", grid: {}", text(&other.to_string())),
        },
        code(&record.kernel),
        code(&record.ptx_sha256),
    );
    if let Some(detail) = &record.workload.detail {
        writeln!(out, "{}; GB/s counts the bytes {}.\n", text(detail), text(&record.workload.bytes_counted))?;
    }
    Ok(out)
}

/// The table: its heading, its rule and a line a row (a pruned row's reason in its limiter).
fn rows(record: &SweepRecord, out: &mut String) -> Result<()> {
    // A `runs` column where the noise-driven stop gave rows different sample counts.
    let runs = record.rows.windows(2).any(|pair| pair[0].samples != pair[1].samples);
    let (runs_head, runs_rule) = if runs { (" runs |", "--:|") } else { ("", "") };
    // The axes first, where the sweep has them.
    // Then the block's shape, where a row's is not in x alone.
    let shaped = record.rows.iter().any(|row| row.block.is_some());
    let mut tunable_head: String = record.axes.iter().map(|name| format!("| {} ", text(name))).collect();
    if shaped {
        tunable_head += "| block ";
    }
    let tunable_rule = "|--:".repeat(record.axes.len() + usize::from(shaped));
    // `--counters`' columns before the limiter, where the sweep read them.
    let counter_columns = if record.counters.is_some() { &table::COUNTER_COLUMNS[..] } else { &[] };
    let counters_head: String =
        counter_columns.iter().map(|column| format!(" {} |", column.heading)).collect();
    let counters_rule = "--:|".repeat(counter_columns.len());
    writeln!(
        out,
        "{tunable_head}| thr/blk | warps | idle | blk/SM | warps/SM | occ | grid | ms | GB/s | of best | min ms | max ms | MAD ms |{runs_head}{counters_head} limiter |"
    )?;
    writeln!(
        out,
        "{tunable_rule}|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|{runs_rule}{counters_rule}:--|"
    )?;
    for row in &record.rows {
        let mut runs_cell = if runs { format!(" {} |", row.samples) } else { String::new() };
        if let Some(run) = &record.counters {
            let cells = match row.failed.is_some() || row.pruned.is_some() {
                true => vec!["-".to_string(); counter_columns.len()],
                false => table::counter_cells(run, row.counters.as_ref()),
            };
            runs_cell.extend(cells.iter().map(|cell| format!(" {cell} |")));
        }
        let mut tunable_cell: String = row.axes.values().map(|value| format!("| {} ", text(value))).collect();
        if shaped {
            tunable_cell += &format!("| {} ", row.shape());
        }
        // A pruned row: not launched, its reason where the limiter is.
        if let Some(reason) = &row.pruned {
            writeln!(
                out,
                "{tunable_cell}| {} | {} | {} | - | - | - | - | pruned | - | - | - | - | - |{runs_cell} cannot launch: {} |",
                row.threads_per_block,
                row.warps_per_block,
                row.idle_lanes,
                text(reason),
            )?;
            continue;
        }
        writeln!(
            out,
            "{tunable_cell}| {} | {} | {} | {} | {} | {:.0}% | {} | {:.3} | {:.1} | {:.2}{} | {:.4} | {:.4} | {:.4} |{runs_cell} {} |",
            row.threads_per_block,
            row.warps_per_block,
            row.idle_lanes,
            row.blocks_per_sm,
            row.warps_per_sm,
            row.occupancy_percent,
            row.grid_shape(),
            row.median_ms,
            row.gigabytes_per_second,
            row.fraction_of_best,
            if row.within_noise_of_best { "\\*" } else { "" },
            row.min_ms,
            row.max_ms,
            row.mad_ms,
            text(row.limiter.as_deref().unwrap_or("not recorded")),
        )?;
    }
    Ok(())
}

/// The sentences below the table: the suggestion, the fastest row, the near-best, the stop, the
/// pruned, the counters', the occupancy model's and the failed checks.
fn sentences_below(record: &SweepRecord, out: &mut String) -> Result<()> {
    writeln!(out, "{}", text(&sentences::suggestion(record)))?;
    if let Some(fastest) = sentences::fastest(record) {
        writeln!(out, "{}", text(&fastest))?;
    }
    if let Some(near_best) = sentences::near_best(record) {
        writeln!(out, "{} \\* marks rows within the measured noise of it.", text(&near_best))?;
    }
    if let Some(stop) = sentences::stop(record) {
        writeln!(out, "{}", text(&stop))?;
    }
    if let Some(pruned) = sentences::pruned(record) {
        writeln!(out, "{}", text(&pruned))?;
    }
    // The counters' sentences, as the summary recorded them: what read them, what bound
    // the best row, and each row bound otherwise (indented there, a list item here).
    let mut counters = false;
    for line in record.summary.iter().flatten() {
        counters = line.starts_with("Counters:")
            || line.starts_with("Bound:")
            || (counters && line.starts_with("  "));
        if counters {
            match line.strip_prefix("  ") {
                Some(row) => writeln!(out, "- {}", text(row))?,
                None => writeln!(out, "{}", text(line))?,
            }
        }
    }
    writeln!(out, "Occupancy: {}.", text(&record.model_check))?;
    if !record.failures.is_empty() {
        writeln!(out, "\n**{} check(s) failed: this table is not a measurement.**\n", record.failures.len())?;
        for failure in &record.failures {
            writeln!(out, "- {}", text(&failure.to_string()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{code, text};

    #[test]
    fn outside_text_stays_text_on_its_line() {
        assert_eq!(text("NVIDIA H200"), "NVIDIA H200");
        assert_eq!(text("H200\n# heading\n| a | b |"), "H200\\\\n\\# heading\\\\n\\| a \\| b \\|");
        assert_eq!(text("<script>alert(1)</script> <= 5"), "\\<script>alert(1)\\</script> <= 5");
        assert_eq!(
            text("*x* _y_ [l](u) `c` ~~s~~ a\\b"),
            "\\*x\\* \\_y\\_ \\[l\\](u) \\`c\\` \\~\\~s\\~\\~ a\\\\b"
        );
        assert_eq!(text("a\u{2028}b"), "a\\u{2028}b");
        assert_eq!(code("cuda_builder"), "`cuda_builder`");
        assert_eq!(code("a`b``c"), "```a`b``c```");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("k\nl"), "`k\\nl`");
    }
}
