//! `block-size merge FILE...`: result files of one sweep from many machines (whole sweeps, or
//! the shards of `--shard I/N`) into one result per GPU model, no GPU needed.

use block_size_runner::commands::{self, MergeOutputs};
use block_size_runner::{Console, Error};
use clap::Args;
use std::path::PathBuf;

// The options of `block-size merge`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Merges the JSON exports of one sweep from many machines (whole sweeps, or every shard of --shard I/N) into one result per GPU model: a table each, one JSON, one --emit-rust file with a module per GPU model, one HTML page; no GPU needed",
    after_help = "Rule: the files must be of one kernel, PTX, axes, work, timing and grid. A GPU model \
        (name and compute capability) has one whole sweep, or every shard 1..N of one sweep, each once, \
        on one driver; the shards' rows are dealt back into the unsplit sweep's order (configuration k \
        is shard k mod N + 1's).\n\nExit status: 0 every check held; 1 a check failed in some part, or \
        a file could not be written; 2 bad input: a file that is not a sweep's JSON export or is older \
        than merge, files of different kernels, axes, PTX, work, timing or grid, a shard missing or \
        given twice, two results for one GPU model, a part that ended early."
)]
#[cfg_attr(doc, doc = "The options of `block-size merge`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct MergeCommand {
    /// The sweeps' or shards' JSON exports (--json FILE), in any order
    #[arg(value_name = "RESULT.json", required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,

    /// Write the merged result as JSON: for one GPU model a sweep's export (diff, report and merge
    /// read it), for several a JSON array of them
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write each GPU model's winner as Rust source to FILE (a module per model and
    /// config_for(device name, compute capability)), its JSON to FILE.json
    #[arg(long, value_name = "FILE.rs")]
    pub emit_rust: Option<PathBuf>,

    /// Write one HTML page of every GPU model's result
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,

    /// Add each row's min, max and median absolute deviation (ms) to the tables
    #[arg(long)]
    pub stats: bool,

    /// Let --emit-rust replace a file it did not write
    #[arg(long)]
    pub force: bool,
}

impl MergeCommand {
    /// Merges, prints the tables and writes the files; the exit status.
    pub fn exec(&self, console: &mut Console) -> Result<i32, Error> {
        let outputs = MergeOutputs {
            json: self.json.clone(),
            emit_rust: self.emit_rust.clone(),
            html: self.html.clone(),
            stats: self.stats,
            force: self.force,
        };
        commands::merge(&self.inputs, &outputs, console)
    }
}
