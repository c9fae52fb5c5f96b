/*!
The results layer: what a sweep measured, rendered and read back, with no GPU. The text tables
(`table`), the exports (`export`: JSON, CSV, Markdown, HTML), a JSON export read back
(`document`) and two compared (`diff`), the SVG plot (`plot`), and the winners as Rust source
(`emit`).

Below, the types a [`Sweep`](crate::Sweep) is made of: its rows, their statistics, the device,
the checks.
*/

pub(crate) mod diff;
pub(crate) mod document;
pub(crate) mod emit;
pub(crate) mod export;
pub(crate) mod plot;
pub(crate) mod table;

pub use crate::model::mismatch::Mismatch;

pub use crate::measure::provenance::Provenance;
pub use crate::measure::timing::{L2Flush, NoiseStop, Stopped, Timing};
pub use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
pub use crate::model::pass::{Items, Pass};
pub use crate::model::sm::Limiter;
pub use crate::model::stats::RunStats;
pub use crate::search::sweep::{CheckFailure, ModelCheck, Row};
