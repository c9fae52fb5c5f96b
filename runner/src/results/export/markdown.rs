//! Markdown: the table and the summary, ready to paste into a report.

use super::{Exporter, sentences};
use crate::model::grid::GridPolicy;
use crate::results::schema::SweepRecord;
use crate::results::table;
use anyhow::Result;
use std::fmt::Write as _;

/// Markdown: the table and the summary.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        let device = &record.device;
        let mut text = format!(
            "**{}** (compute capability {}.{}, {} SMs), {}, {}{}; kernel `{}` (PTX sha256 `{}`)\n\n",
            device.name,
            device.compute_capability.0,
            device.compute_capability.1,
            device.multiprocessors,
            record.extent(),
            table::timing_clause(record.timing),
            match record.grid {
                GridPolicy::OneWave => String::new(),
                other => format!(", grid: {other}"),
            },
            record.kernel,
            record.ptx_sha256,
        );
        if let Some(detail) = &record.workload.detail {
            writeln!(text, "{detail}; GB/s counts the bytes {}.\n", record.workload.bytes_counted)?;
        }
        // A `runs` column where the noise-driven stop gave rows different sample counts.
        let runs = record.rows.windows(2).any(|pair| pair[0].samples != pair[1].samples);
        let (runs_head, runs_rule) = if runs { (" runs |", "--:|") } else { ("", "") };
        // The axes first, where the sweep has them.
        // Then the block's shape, where a row's is not in x alone.
        let shaped = record.rows.iter().any(|row| row.block.is_some());
        let mut tunable_head: String = record.axes.iter().map(|name| format!("| {name} ")).collect();
        if shaped {
            tunable_head += "| block ";
        }
        let tunable_rule = "|--:".repeat(record.axes.len() + usize::from(shaped));
        writeln!(
            text,
            "{tunable_head}| thr/blk | warps | idle | blk/SM | warps/SM | occ | grid | ms | GB/s | of best | min ms | max ms | MAD ms |{runs_head} limiter |"
        )?;
        writeln!(text, "{tunable_rule}|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|{runs_rule}:--|")?;
        for row in &record.rows {
            let runs_cell = if runs { format!(" {} |", row.samples) } else { String::new() };
            let mut tunable_cell: String = row.axes.values().map(|value| format!("| {value} ")).collect();
            if shaped {
                tunable_cell += &format!("| {} ", row.shape());
            }
            // A pruned row: not launched, its reason where the limiter is.
            if let Some(reason) = &row.pruned {
                writeln!(
                    text,
                    "{tunable_cell}| {} | {} | {} | - | - | - | - | pruned | - | - | - | - | - |{runs_cell} cannot launch: {reason} |",
                    row.threads_per_block, row.warps_per_block, row.idle_lanes,
                )?;
                continue;
            }
            writeln!(
                text,
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
                row.limiter.as_deref().unwrap_or("not recorded"),
            )?;
        }
        text += "\n";
        writeln!(text, "{}", sentences::suggestion(record))?;
        if let Some(fastest) = sentences::fastest(record) {
            writeln!(text, "{fastest}")?;
        }
        if let Some(near_best) = sentences::near_best(record) {
            writeln!(text, "{near_best} \\* marks rows within the measured noise of it.")?;
        }
        if let Some(stop) = sentences::stop(record) {
            writeln!(text, "{stop}")?;
        }
        if let Some(pruned) = sentences::pruned(record) {
            writeln!(text, "{pruned}")?;
        }
        writeln!(text, "Occupancy: {}.", record.model_check)?;
        if !record.failures.is_empty() {
            writeln!(
                text,
                "\n**{} check(s) failed: this table is not a measurement.**\n",
                record.failures.len()
            )?;
            for failure in &record.failures {
                writeln!(text, "- {failure}")?;
            }
        }
        Ok(text)
    }
}
