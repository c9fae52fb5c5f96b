/*!
The results layer: what a sweep measured, rendered and read back, with no GPU. The schema of
a sweep's JSON export, the one type every output renders from, written, read back and upgraded
from every version (`schema`, at the bottom; `from_sweep` makes it of a sweep), the text tables
(`table`), the exports (`export`: JSON, CSV, Markdown, HTML), two exports compared (`diff`),
the SVG plot (`plot`), and the winners as Rust source (`emit`).

Below, the types a [`Sweep`](crate::Sweep) is made of: its rows, their statistics, the device,
the checks.
*/

pub(crate) mod diff;
pub(crate) mod emit;
pub(crate) mod export;
pub(crate) mod from_sweep;
pub(crate) mod plot;
pub(crate) mod schema;
pub(crate) mod table;

pub use crate::model::mismatch::Mismatch;

pub use crate::measure::provenance::Provenance;
pub use crate::measure::timing::{L2Flush, NoiseStop, Stopped, Timing};
pub use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
pub use crate::model::pass::{Items, Pass};
pub use crate::model::sm::Limiter;
pub use crate::model::stats::RunStats;
pub use crate::search::sweep::{CheckFailure, ModelCheck, Row};
