//! CSV: one line per block size with every per-row figure, for spreadsheets.

use super::{Exporter, Record, RowRecord};
use anyhow::Result;

/// CSV: one line per row, every per-row figure.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn render(&self, record: &Record) -> Result<String> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in &record.rows {
            // The per-launch list does not fit a flat row; JSON carries it.
            writer.serialize(RowRecord { run_ms: Vec::new(), ..row.clone() })?;
        }
        Ok(String::from_utf8(writer.into_inner()?)?)
    }
}
