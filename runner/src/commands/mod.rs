/*!
What `block-size` runs besides the sweep of a kernel: the GPU-free subcommands (`diff`,
`merge`, `occupancy`, `report`) as functions of plain values (`occupancy` of its options as
`block-size` takes them, [`OccupancyArgs`]), checked here, not by a command-line parser; and the
supervisor of a program in two binaries. The sweep, `compare`, `tail` and `variants` of any
kernel, their options ([`crate::SweepArgs`] and its siblings, in `options`), and the launcher of
a program in two binaries, are at the crate root.
*/

pub(crate) mod compare;
pub(crate) mod counters;
pub(crate) mod diff;
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzzing;
pub(crate) mod launch;
pub(crate) mod merge;
pub(crate) mod occupancy;
pub(crate) mod options;
pub(crate) mod report;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod sweep;
pub(crate) mod tail;
pub(crate) mod variants;

pub use self::launch::driver_loads;
pub use self::options::OccupancyArgs;
pub use crate::results::diff::DEFAULT_THRESHOLD;

use crate::commands::options::SweepArgs;
use crate::error::{Console, Error};
use std::ffi::OsString;
use std::path::Path;

/// The supervisor of a sweep in worker processes: runs `worker` with `args` (its command line,
/// program name first) until a worker finishes, a fresh one after each that a faulting or hung
/// configuration ended, journaled to the sweep's `--journal` where `sweep` names one; `Ok`
/// carries the run's exit status. `block-size` supervises `block-size-cuda` so;
/// [`crate::launch`] does the same for a program of your own.
pub fn supervise(worker: &Path, args: &[OsString], sweep: &SweepArgs) -> Result<i32, Error> {
    crate::measure::supervision::supervise::supervise(worker, args, sweep.journal())
}

/// `block-size diff OLD NEW`, which needs no GPU: two sweeps' JSON exports (of any schema
/// version this tool wrote) compared configuration by configuration, SAME, FASTER, SLOWER or
/// UNCLEAR by a bootstrap interval of the ratio of medians against `threshold` (a fraction
/// above 0 and below 1; [`DEFAULT_THRESHOLD`]). Files of different GPUs, kernels, PTX or work
/// are refused unless `allow_different`. `Ok` carries the exit status: 0, or 1 with
/// `fail_if_slower` where a configuration is SLOWER.
pub fn diff(
    old: &Path,
    new: &Path,
    threshold: f64,
    fail_if_slower: bool,
    allow_different: bool,
    console: &mut Console,
) -> Result<i32, Error> {
    let request = self::diff::DiffRequest {
        old: old.to_path_buf(),
        new: new.to_path_buf(),
        threshold,
        fail_if_slower,
        allow_different,
    };
    request.validate()?;
    self::diff::exec(&request, console)
}

/// What `block-size merge` writes besides its tables: each file where given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeOutputs {
    /// `--json`: the merged result (one GPU model: a sweep's JSON export, which `diff`,
    /// `report` and `merge` read; several: a JSON array of them).
    pub json: Option<std::path::PathBuf>,
    /// `--emit-rust`: the winners' Rust source, a module per GPU model, its JSON beside it.
    pub emit_rust: Option<std::path::PathBuf>,
    /// `--html`: one page of every GPU model's result.
    pub html: Option<std::path::PathBuf>,
    /// `--stats`: the min, max and MAD columns in the tables.
    pub stats: bool,
    /// `--force`: let `--emit-rust` replace a file it did not write.
    pub force: bool,
}

/// `block-size merge`, which needs no GPU: the JSON exports `inputs` (whole sweeps, or every
/// shard of one, `--shard I/N`, from any machines) of one kernel, PTX, axes, work, timing and
/// grid, merged into one result per GPU model; a table each on `console`, and the files of
/// `outputs`. A file that is not an export, is older than `merge`, or does not merge (another
/// kernel, other axes or PTX, a shard missing or twice, two results for one GPU model) is one
/// line, exit 2. `Ok` carries the exit status: 0, or 1 where a check failed in any part.
pub fn merge(
    inputs: &[std::path::PathBuf],
    outputs: &MergeOutputs,
    console: &mut Console,
) -> Result<i32, Error> {
    let request = self::merge::MergeRequest {
        inputs: inputs.to_vec(),
        json: outputs.json.clone(),
        emit_rust: outputs.emit_rust.clone(),
        html: outputs.html.clone(),
        stats: outputs.stats,
        force: outputs.force,
    };
    self::merge::exec(&request, console)
}

/// `block-size occupancy`, which needs no GPU: the calculator's tables for the preset GPUs
/// `options` name (`--gpu`, or several side by side with `--compare-gpus`) and a kernel of
/// `--regs` registers per thread (0 to 255) and `--smem` bytes of shared memory per block, at
/// each of `--block-sizes` (1 to 1024), or at each of `--block-shapes` (`32x8`, `2d`) instead,
/// residency from their threads (one line, exit 2, for a shape past every device's bounds or
/// given twice).
pub fn occupancy(options: &OccupancyArgs) -> Result<String, Error> {
    self::occupancy::exec(&options.request())
}

/// `block-size report`, which needs no GPU: the HTML report of a sweep's JSON export `input`
/// (any schema version this tool wrote), one self-contained page written to `html`.
pub fn report(input: &Path, html: &Path) -> Result<(), Error> {
    self::report::exec(&self::report::ReportRequest { input: input.to_path_buf(), html: html.to_path_buf() })
}
