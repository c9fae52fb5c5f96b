//! CSV: one line per configuration with every per-row figure, a column per axis first, for
//! spreadsheets.

use super::Exporter;
use crate::results::schema::{RowRecord, SweepRecord};
use crate::results::table;
use anyhow::Result;

/// CSV: one line per row, every per-row figure.
pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        // The per-row figures, with no axis and no samples (the per-launch list does not fit a
        // flat row; JSON carries it).
        let mut flat = csv::Writer::from_writer(Vec::new());
        for row in &record.rows {
            flat.serialize(RowRecord {
                run_ms: Vec::new(),
                axes: Default::default(),
                block: None,
                grid: None,
                sm_clock: None,
                energy: None,
                counters: None,
                ..row.clone()
            })?;
        }
        let flat = flat.into_inner()?;
        // Then a column per axis in front, named for it, and the sensors' columns behind where
        // any row has them (empty in a row without).
        let clocks = record.rows.iter().any(|row| row.sm_clock.is_some());
        let shaped = record.rows.iter().any(|row| row.block.is_some() || row.grid.is_some());
        let energy = record.rows.iter().any(|row| row.energy.is_some());
        let sensors = |row: Option<&RowRecord>| sensor_cells(record, row, clocks, energy);
        let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(&flat[..]);
        let mut writer = csv::Writer::from_writer(Vec::new());
        for (index, line) in reader.records().enumerate() {
            let line = line?;
            let row = index.checked_sub(1).map(|row| &record.rows[row]);
            let mut axes: Vec<String> = match row {
                None => record.axes.clone(),
                Some(row) => record
                    .axes
                    .iter()
                    .map(|name| row.axes.get(name).unwrap_or_default().to_string())
                    .collect(),
            };
            // The block and the grid as shapes, in front of the per-row figures, where a row
            // has a shape other than in x alone.
            if shaped {
                axes.extend(match row {
                    None => ["block".to_string(), "grid".to_string()],
                    Some(row) => [row.shape().to_string(), row.grid_shape().to_string()],
                });
            }
            let sensors = sensors(row);
            writer.write_record(
                axes.iter().map(String::as_str).chain(line.iter()).chain(sensors.iter().map(String::as_str)),
            )?;
        }
        Ok(String::from_utf8(writer.into_inner()?)?)
    }
}

/// The cells behind a row's per-row figures (`row`; `None`: the heading's): the SM clock's
/// where `clocks`, the energy's where `energy`, and `--counters`' where the sweep read them, each
/// empty in a row without its reading.
fn sensor_cells(record: &SweepRecord, row: Option<&RowRecord>, clocks: bool, energy: bool) -> Vec<String> {
    let mut cells = Vec::new();
    if clocks {
        let clock = row.and_then(|row| row.sm_clock.as_ref());
        cells.extend(match (row, clock) {
            (None, _) => ["sm_clock_mhz", "sm_clock_min_mhz", "throttled_samples"].map(String::from).to_vec(),
            (Some(_), Some(clock)) => {
                vec![
                    clock.median_mhz.to_string(),
                    clock.min_mhz.to_string(),
                    clock.throttled_samples.to_string(),
                ]
            }
            (Some(_), None) => vec![String::new(); 3],
        });
    }
    if energy {
        let reading = row.and_then(|row| row.energy.as_ref());
        cells.extend(match (row, reading) {
            (None, _) => ["joules_per_pass", "watts"].map(String::from).to_vec(),
            (Some(_), Some(energy)) => {
                vec![energy.joules_per_pass.to_string(), energy.watts.to_string()]
            }
            (Some(_), None) => vec![String::new(); 2],
        });
    }
    // `--counters`' columns, declared once with the table's, each value unrounded.
    if let Some(run) = &record.counters {
        let columns = table::COUNTER_COLUMNS.iter();
        cells.extend(match row {
            None => columns.map(|column| column.csv.to_string()).collect::<Vec<_>>(),
            Some(row) => columns
                .map(|column| {
                    row.counters
                        .as_ref()
                        .and_then(|counters| (column.value)(run, counters))
                        .map_or(String::new(), |value| value.to_string())
                })
                .collect(),
        });
    }
    cells
}
