/*!
Hardware counters for each row (`--counters`), read outside the timed samples: after a sweep is
timed, a [`CounterSource`] reads each measured row's counters on a replay of its launch, so
that the times the table shows are those of a run no profiler touched.

The source is the driver's ([`crate::measure::gpu::backend::DeviceSource::counter_source`]):
Nsight Compute ([`ncu`]) for the CUDA driver, scripted readings for the mock. Nsight Compute
replays by running this program again under `ncu` with [`REPLAY`] in its environment: that
process launches each configuration of the same sweep once, unchecked and untimed, and writes
the configurations it launched, in order ([`write_launched`]), so that the `n`th kernel `ncu`
profiled is known to be the `n`th configuration launched.
*/

pub mod ncu;

use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::Counters;
use std::path::{Path, PathBuf};

/// The environment variable that makes a sweep a replay: `ORDINAL:PATH`, the device to launch
/// on and the file to list the launched configurations in.
pub const REPLAY: &str = "BLOCK_SIZE_COUNTERS_REPLAY";

/// What a replay was told: its device and where it lists what it launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayOrder {
    /// The device to launch on (one device, whatever `--device` says).
    pub device: u32,
    /// Where the launched configurations go, one line each ([`write_launched`]).
    pub launched: PathBuf,
}

impl ReplayOrder {
    /// The value of [`REPLAY`], where it is set and reads as `ORDINAL:PATH`.
    pub fn parse(text: &str) -> Option<Self> {
        let (device, path) = text.split_once(':')?;
        Some(Self { device: device.parse().ok()?, launched: PathBuf::from(path) })
    }

    /// The value of [`REPLAY`] that says this order.
    pub fn value(&self) -> std::ffi::OsString {
        let mut value = std::ffi::OsString::from(format!("{}:", self.device));
        value.push(self.launched.as_os_str());
        value
    }
}

/// One configuration launched: its label (`256 threads`, `block 32x8, items/thr=4`), block and
/// grid, as a row says them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    /// The row's configuration label ([`crate::model::axis_values::configuration_label`]).
    pub label: String,
    /// Its block.
    pub block: BlockShape,
    /// Its grid.
    pub grid: GridShape,
}

/// Writes the configurations a replay launched, in order: a line each, `label<TAB>block<TAB>grid`.
pub fn write_launched(path: &Path, launched: &[Launched]) -> std::io::Result<()> {
    let text: String = launched
        .iter()
        .map(|launch| format!("{}\t{}\t{}\n", launch.label, launch.block, launch.grid))
        .collect();
    std::fs::write(path, text)
}

/// Reads what [`write_launched`] wrote; a line it cannot read is an error.
pub fn read_launched(path: &Path) -> Result<Vec<Launched>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("the replay's list of launches: {error}"))?;
    text.lines()
        .map(|line| {
            let mut fields = line.split('\t');
            let (Some(label), Some(block), Some(grid), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(format!(
                    "the replay's list of launches has a line of other than three fields: {line:?}"
                ));
            };
            Ok(Launched {
                label: label.to_string(),
                block: block
                    .parse::<BlockShape>()
                    .map_err(|why| format!("the replay's list of launches: {why}"))?,
                grid: grid
                    .parse::<GridShape>()
                    .map_err(|why| format!("the replay's list of launches: {why}"))?,
            })
        })
        .collect()
}

/// The rows a profiler is asked for: on which device, and which measured configurations.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterRequest {
    /// The device the rows were measured on.
    pub device: u32,
    /// The measured rows, in order (failed and pruned rows are not asked for).
    pub rows: Vec<Launched>,
}

/// What a profiler read: what it is, and each asked row's counters, in the order asked
/// (`None`: that row was not in the replay).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterReading {
    /// The profiler and its version ("Nsight Compute 2025.3.1.0").
    pub profiler: String,
    /// Each row's counters, as [`CounterRequest::rows`].
    pub rows: Vec<Option<Counters>>,
}

/// What reads a sweep's rows' counters outside its timed samples.
pub trait CounterSource {
    /// Each of `request`'s rows' counters; `Err`: why there are none (no profiler, no
    /// permission, a replay that did not match), one line.
    fn read(&self, request: &CounterRequest) -> Result<CounterReading, String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_order_reads_back_as_written() {
        let order = ReplayOrder { device: 3, launched: PathBuf::from("/tmp/a:b/launched") };
        assert_eq!(ReplayOrder::parse(order.value().to_str().unwrap()), Some(order));
        assert_eq!(ReplayOrder::parse("x:/tmp/launched"), None);
        assert_eq!(ReplayOrder::parse("/tmp/launched"), None);
    }

    #[test]
    fn the_launched_list_reads_back_as_written() {
        let path = std::env::temp_dir().join(format!("block-size-launched-{}", std::process::id()));
        let launched = vec![
            Launched {
                label: "256 threads".into(),
                block: BlockShape::linear(256),
                grid: GridShape::linear(1056),
            },
            Launched {
                label: "block 32x8, items/thr=4".into(),
                block: "32x8".parse().unwrap(),
                grid: "120x270".parse().unwrap(),
            },
        ];
        write_launched(&path, &launched).unwrap();
        assert_eq!(read_launched(&path), Ok(launched));
        std::fs::write(&path, "256\t256\n").unwrap();
        assert!(read_launched(&path).unwrap_err().contains("three fields"));
        std::fs::remove_file(&path).unwrap();
    }
}
