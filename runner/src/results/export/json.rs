//! JSON: the whole [`Record`], every timed launch included, for scripts.

use super::{Exporter, Record};
use anyhow::Result;

/// JSON: the whole record, every sample included.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn render(&self, record: &Record) -> Result<String> {
        let mut text = serde_json::to_string_pretty(record)?;
        text.push('\n');
        Ok(text)
    }
}
