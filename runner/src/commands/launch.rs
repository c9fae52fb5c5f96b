/*!
A program in two binaries, so that it starts anywhere: a launcher that links no driver, and a
worker beside it that does. cust links `libcuda.so.1` directly, so a program that links it
cannot even start where no NVIDIA driver is installed (the loader stops it, exit 127, before
`main`); a launcher parses its command line (its `--help` prints anywhere), checks that the
driver library loads (else one `Error:` line, exit 3) and runs the worker with the same command
line in a supervised process ([`crate::measure::supervision::supervise`]): a kernel that poisons the GPU
context or hangs then costs a worker, not the sweep. `block-size` is such a launcher over
`block-size-cuda`; [`launch`] is the same for a program of your own.
*/

use crate::commands::options::SweepArgs;
use crate::error::{Error, exit, shown};
use crate::measure::supervision::supervise;
use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;

/// The driver library every CUDA program loads.
const DRIVER_LIBRARY: &str = "libcuda.so.1";

/// Whether this machine's NVIDIA driver library loads: `Err` with the one line a program
/// without one says (exit 3).
pub fn driver_loads() -> Result<(), Error> {
    // SAFETY: loading the driver library runs its initialisers, as starting the worker would.
    match unsafe { libloading::Library::new(DRIVER_LIBRARY) } {
        Ok(_) => Ok(()),
        Err(error) => Err(Error::new(
            exit::NO_DEVICE,
            format!("no NVIDIA driver: {error}; this program needs an NVIDIA GPU and its driver"),
        )),
    }
}

/// The program `worker` in this program's folder.
pub(crate) fn worker_beside(worker: &str) -> Result<PathBuf, Error> {
    std::env::current_exe()
        .map(|exe| exe.with_file_name(worker))
        .map_err(|error| Error::new(exit::FAILED, format!("cannot locate {worker}: {error}")))
}

/// The launcher's part: checks that the driver loads, then runs `worker` (a binary in this
/// program's folder, which links the driver and runs the command on [`crate::CudaDriver`]) with
/// this process's command line. A sweep (`sweep`, its options as this process read them) runs
/// as a supervised worker until one finishes, journaled to its `--journal` where given: a
/// configuration that faults or hangs costs a worker, and a fresh one measures the rest.
/// Anything else (`None`: `compare`, `tail`, `variants`) runs the worker in this process's
/// place, so that a fault or a hang ends it with its own line, as `block-size`'s do. Returns the
/// exit status to end with; an error is printed as one `Error:` line on standard error.
///
/// ```no_run
/// // src/main.rs of a program `mine` whose worker is src/bin/mine-cuda.rs.
/// # struct Cli { compare: bool, sweep: block_size_runner::SweepArgs }
/// # fn parse() -> Cli { Cli { compare: false, sweep: Default::default() } }
/// let cli = parse(); // clap: --help prints here, with no driver needed
/// let sweep = (!cli.compare).then_some(&cli.sweep);
/// std::process::exit(block_size_runner::launch("mine-cuda", sweep));
/// ```
pub fn launch(worker: &str, sweep: Option<&SweepArgs>) -> i32 {
    let args: Vec<OsString> = std::env::args_os().collect();
    let ran = driver_loads().and_then(|()| worker_beside(worker)).and_then(|program| {
        if !program.is_file() {
            return Err(Error::new(
                exit::FAILED,
                format!("cannot start {}: no such program beside this one (build it too)", shown(&program)),
            ));
        }
        if let Some(sweep) = sweep {
            return supervise::supervise(&program, &args, sweep.journal());
        }
        let error = std::process::Command::new(&program).arg0(&args[0]).args(&args[1..]).exec();
        Err(Error::new(exit::FAILED, format!("cannot start {}: {error}", shown(&program))))
    });
    ran.unwrap_or_else(|error| {
        if !error.message().is_empty() {
            eprintln!("Error: {error}");
        }
        error.exit_status()
    })
}
