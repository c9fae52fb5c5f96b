/*!
What `block-size` runs besides the sweep of a kernel: the GPU-free subcommands as typed requests
(plain structs, validated here, not by a command-line parser) with their entry points, and the
defaults of the options they and the sweep share. The `block-size` CLI parses its command line
into these; the sweep, `compare`, `tail` and `variants` of any kernel, and the launcher of a
program in two binaries, are at the crate root.
*/

pub(crate) mod compare;
pub(crate) mod diff;
pub(crate) mod launch;
pub(crate) mod occupancy;
pub(crate) mod report;
pub(crate) mod settings;
pub(crate) mod sweep;
pub(crate) mod tail;
pub(crate) mod variants;

pub use self::compare::DEFAULT_ROUNDS;
pub use self::diff::DiffRequest;
pub use self::launch::{driver_loads, worker_beside};
pub use self::occupancy::{OccupancyRequest, presets};
pub use self::report::ReportRequest;
pub use self::settings::{DEFAULT_MAX_NOISE, DEFAULT_MAX_TIME_PER_ROW, DEFAULT_MIN_RUNS, DEFAULT_WARMUPS};
pub use self::tail::DEFAULT_WAVES;
pub use self::variants::VARIANT_BLOCK_SIZES;
pub use crate::measure::supervise::supervise;
pub use crate::measure::timing::{DEFAULT_BATCH_LAUNCHES, DEFAULT_RUNS};
pub use crate::model::sm::DEFAULT_REGISTERS;
pub use crate::results::diff::{CONFIDENCE, DEFAULT_THRESHOLD, RESAMPLES, Verdict};

/// `block-size diff`, which needs no GPU: two sweeps' JSON exports compared configuration
/// by configuration. `Ok` carries the exit status: 0, or 1 with
/// [`DiffRequest::fail_if_slower`] where a configuration is SLOWER.
pub fn diff(request: &DiffRequest, console: &mut crate::error::Console) -> Result<i32, crate::error::Error> {
    self::diff::exec(request, console)
}

/// `block-size occupancy`, which needs no GPU: the calculator's tables.
pub fn occupancy(request: &OccupancyRequest) -> Result<String, crate::error::Error> {
    self::occupancy::exec(request)
}

/// `block-size report`, which needs no GPU: the HTML report of a sweep's JSON export,
/// written to [`ReportRequest::html`].
pub fn report(request: &ReportRequest) -> Result<(), crate::error::Error> {
    self::report::exec(request)
}
