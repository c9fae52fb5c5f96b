//! JSON: the whole [`SweepRecord`], every timed launch included, for scripts.

use super::Exporter;
use crate::results::schema::SweepRecord;
use anyhow::Result;

/// JSON: the whole record, every sample included.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        let mut text = serde_json::to_string_pretty(record)?;
        text.push('\n');
        Ok(text)
    }
}
