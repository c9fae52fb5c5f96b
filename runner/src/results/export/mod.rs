/*!
Exports of a finished sweep: JSON for scripts, CSV for spreadsheets, Markdown for reports, HTML
for a browser, T4 as Kernel Tuner writes it.

Each format is one module implementing [`Exporter`] over the same [`SweepRecord`] (the
schema's type, [`crate::results::schema`]), so the formats cannot disagree about what a row
holds, and a record read back from a file renders as the record of the sweep did.
*/

mod csv;
pub(crate) mod html;
mod json;
mod markdown;
mod sentences;
pub(crate) mod t4;

use crate::measure::record::provenance::Provenance;
use crate::results::schema::SweepRecord;
use crate::search::sweep::Sweep;
use anyhow::Result;

pub use self::csv::CsvExporter;
pub use self::html::HtmlExporter;
pub use self::json::JsonExporter;
pub use self::markdown::MarkdownExporter;
pub use self::t4::T4Exporter;

/// One export format.
pub trait Exporter {
    /// The file's text.
    fn render(&self, record: &SweepRecord) -> Result<String>;
}

/// The formats `--format` offers besides the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON: provenance, every row, every sample.
    Json,
    /// CSV: one line per row.
    Csv,
    /// Markdown: the table and its summary.
    Markdown,
    /// HTML: one self-contained page with the table, the plot, the provenance, the summary and
    /// an occupancy explorer.
    Html,
    /// T4, the open autotuning results schema Kernel Tuner writes: each row's
    /// configuration, samples and validity (docs/kernel-tuner.md).
    T4,
}

impl Format {
    /// The sweep's option that writes this export to a file of its own.
    pub(crate) fn option(self) -> &'static str {
        match self {
            Self::Json => "--json",
            Self::Csv => "--csv",
            Self::Markdown => "--markdown",
            Self::Html => "--html",
            Self::T4 => "--t4",
        }
    }

    /// The exporter of this format.
    pub(crate) fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Self::Json => Box::new(JsonExporter),
            Self::Csv => Box::new(CsvExporter),
            Self::Markdown => Box::new(MarkdownExporter),
            Self::Html => Box::new(HtmlExporter),
            Self::T4 => Box::new(T4Exporter),
        }
    }
}

/// Renders `sweep` in `format`.
pub fn render(sweep: &Sweep, provenance: Provenance, format: Format) -> Result<String> {
    format.exporter().render(&SweepRecord::of(sweep, provenance))
}
