//! Markdown: the table and the summary, ready to paste into a report.

use super::{Exporter, Record};
use anyhow::Result;
use std::fmt::Write as _;

pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn render(&self, record: &Record) -> Result<String> {
        let device = &record.device;
        let mut text = format!(
            "**{}** (compute capability {}.{}, {} SMs), {} x {} frame, median of {} runs after {} warm-ups{}; \
             kernel `{}` (PTX sha256 `{}`)\n\n",
            device.name,
            device.compute_capability.0,
            device.compute_capability.1,
            device.multiprocessors,
            record.width,
            record.height,
            record.timing.runs,
            record.timing.warmups,
            if record.timing.flush_l2 { ", L2 flushed before each run" } else { "" },
            record.kernel,
            record.ptx_sha256,
        );
        if let Some(detail) = &record.workload.detail {
            writeln!(text, "{detail}; GB/s counts the bytes {}.\n", record.workload.bytes_counted)?;
        }
        text += "| thr/blk | warps | idle | blk/SM | warps/SM | occ | grid | ms | GB/s | of best | min ms | max ms | MAD ms | limiter |\n";
        text += "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:--|\n";
        for row in &record.rows {
            writeln!(
                text,
                "| {} | {} | {} | {} | {} | {:.0}% | {} | {:.3} | {:.1} | {:.2}{} | {:.4} | {:.4} | {:.4} | {} |",
                row.threads_per_block,
                row.warps_per_block,
                row.idle_lanes,
                row.blocks_per_sm,
                row.warps_per_sm,
                row.occupancy_percent,
                row.grid_blocks,
                row.median_ms,
                row.gigabytes_per_second,
                row.fraction_of_best,
                if row.within_noise_of_best { "\\*" } else { "" },
                row.min_ms,
                row.max_ms,
                row.mad_ms,
                row.limiter,
            )?;
        }
        text += "\n";
        writeln!(
            text,
            "cuOccupancyMaxPotentialBlockSize suggests {} threads per block and a grid of {} blocks.",
            record.suggestion.threads_per_block, record.suggestion.grid_blocks
        )?;
        if let Some(fastest) =
            record.rows.iter().find(|row| Some(row.threads_per_block) == record.fastest_threads_per_block)
        {
            writeln!(
                text,
                "Fastest measured: {} threads per block at {:.3} ms.",
                fastest.threads_per_block, fastest.median_ms
            )?;
        }
        writeln!(
            text,
            "{} of {} configurations reach at least 95 percent of that row. \\* marks rows within the measured noise of it.",
            record.rows_near_best,
            record.rows.len()
        )?;
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
