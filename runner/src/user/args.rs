//! [`SweepArgs`]: the sweep's common options as clap arguments, for a program of your own to
//! flatten into its command line, so that it takes them as `block-size` does.

use super::Options;
use crate::cmd::device::{Stop, exit};
use crate::cmd::{BlockSizesArgs, Given, TimingArgs, output_folders_exist, unique_block_sizes};
use crate::export::Format;
use crate::grid::GridPolicy;
use clap::{Args, Parser, ValueEnum};
use std::path::PathBuf;

/// What `--format` takes: the table, or an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The table with its header and summary, as `block-size` prints it.
    Table,
    /// The table and summary in Markdown.
    Markdown,
    /// Everything, every sample included, as JSON.
    Json,
    /// One line per row.
    Csv,
}

impl OutputFormat {
    /// The export format, or `None` for the table.
    pub fn export(self) -> Option<Format> {
        match self {
            Self::Table => None,
            Self::Markdown => Some(Format::Markdown),
            Self::Json => Some(Format::Json),
            Self::Csv => Some(Format::Csv),
        }
    }
}

/// The options of a sweep, as `block-size` takes them: `--block-sizes`, the timing options
/// (`--timing`, `--runs`, `--warmups`, ...), `--device`, `--grid`, `--stats`, `--format`,
/// `--output`, `--plot` and `--provenance`. Flatten it into your program's clap parser with
/// `#[command(flatten)]`, then [`SweepArgs::options`].
#[derive(Args, Debug, Clone, PartialEq)]
pub struct SweepArgs {
    /// `--block-sizes`, as the sweep's.
    #[command(flatten)]
    pub block_sizes: BlockSizesArgs,

    /// The timing options, as the sweep's.
    #[command(flatten)]
    pub timing: TimingArgs,

    /// CUDA device ordinal
    #[arg(long, value_name = "INDEX", default_value_t = 0)]
    pub device: u32,

    /// Blocks each row launches: one-wave (blk/SM x SMs), per-item (one thread per item:
    /// ceil(items / threads)) or waves:K (K full waves); never more than one thread per item
    #[arg(long, value_name = "POLICY", value_parser = crate::grid::parse, default_value = "one-wave")]
    pub grid: GridPolicy,

    /// Add each row's min, max and median absolute deviation (ms) to the table
    #[arg(long)]
    pub stats: bool,

    /// table, markdown, json (every sample) or csv (a line per row)
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    pub format: OutputFormat,

    /// Write the table or export to FILE instead of standard output
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Plot GB/s and occupancy against block size as SVG
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Print what was measured with what (PTX sha256, driver, command, date) first
    #[arg(long)]
    pub provenance: bool,
}

/// The defaults, parsed from an empty command line.
#[derive(Parser)]
struct Defaults {
    #[command(flatten)]
    sweep: SweepArgs,
}

impl SweepArgs {
    /// Every option at its default, as a command line without any gives them.
    pub fn defaults() -> Self {
        Defaults::try_parse_from(["sweep"]).expect("the defaults parse").sweep
    }

    /// The options, once every check that needs no device holds; a [`Stop`] with exit status
    /// 2 (bad input) and a one-line message where one does not.
    pub fn options(&self) -> Result<Options, Stop> {
        let usage = |message: String| Stop::new(exit::USAGE, message);
        let block_sizes = unique_block_sizes(&self.block_sizes.block_sizes).map_err(usage)?;
        let timing = self.timing.timing(Given(None)).map_err(usage)?;
        output_folders_exist(self.output.iter().chain(&self.plot)).map_err(usage)?;
        Ok(Options {
            device: self.device,
            block_sizes,
            timing,
            grid: self.grid,
            stats: self.stats,
            format: self.format.export(),
            output: self.output.clone(),
            plot: self.plot.clone(),
            provenance: self.provenance,
            command: std::env::args_os().collect(),
        })
    }
}
