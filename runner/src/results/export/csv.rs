//! CSV: one line per configuration with every per-row figure, a column per axis first, for
//! spreadsheets.

use super::Exporter;
use crate::results::schema::{RowRecord, SweepRecord};
use anyhow::Result;

/// CSV: one line per row, every per-row figure.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        // The per-row figures, with no axis and no samples (the per-launch list does not fit a
        // flat row; JSON carries it).
        let mut flat = csv::Writer::from_writer(Vec::new());
        for row in &record.rows {
            flat.serialize(RowRecord { run_ms: Vec::new(), axes: Default::default(), ..row.clone() })?;
        }
        let flat = flat.into_inner()?;
        // Then a column per axis in front, named for it.
        let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(&flat[..]);
        let mut writer = csv::Writer::from_writer(Vec::new());
        for (index, line) in reader.records().enumerate() {
            let line = line?;
            let axes: Vec<&str> = match index.checked_sub(1) {
                None => record.axes.iter().map(String::as_str).collect(),
                Some(row) => {
                    let values = &record.rows[row].axes;
                    record.axes.iter().map(|name| values.get(name).unwrap_or_default()).collect()
                }
            };
            writer.write_record(axes.into_iter().chain(line.iter()))?;
        }
        Ok(String::from_utf8(writer.into_inner()?)?)
    }
}
