//! `block-size report RESULT.json --html FILE`: the HTML report of a sweep's JSON export, no
//! GPU needed.

use block_size_runner::{Error, commands};
use clap::Args;
use std::path::PathBuf;

// The options of `block-size report`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Writes the HTML report of a sweep from its JSON export (--json FILE): the table, the plot, the provenance, the summary and an occupancy explorer, in one self-contained page; no GPU needed"
)]
#[cfg_attr(doc, doc = "The options of `block-size report`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct ReportCommand {
    /// A sweep's JSON export (--json FILE, or --format json), schema version 2 or 3
    #[arg(value_name = "RESULT.json")]
    pub input: PathBuf,

    /// The page to write (its folder must exist)
    #[arg(long, value_name = "FILE.html", required = true)]
    pub html: PathBuf,
}

impl ReportCommand {
    /// Writes the page.
    pub fn exec(&self) -> Result<(), Error> {
        commands::report(&self.input, &self.html)
    }
}
