/*!
The program: parse the command line ([`crate::cli`]), hand it to its subcommand
([`crate::cmd`]), print, and choose the exit status. Used by the `block-size-cuda` binary,
which `block-size` starts once it has found a driver; tests run it through [`run_with`] on
the mock backend's `MockDriver`.
*/

use crate::backend::Driver;
use crate::cli::{self, CliError, Request};
use crate::cmd::{compare, occupancy, sweep, tail, variants};
use crate::cuda::CudaDriver;
use std::ffi::OsString;

pub use crate::cmd::device::{Console, Stop, exit};

/// Parses the command line, or says how to stop: help and version print and exit 0,
/// anything else is a one-line usage error.
pub fn parse_or_stop(args: &[OsString]) -> Result<Request, Stop> {
    cli::parse(args).map_err(|error| match error {
        CliError::Info(info) => {
            let _ = info.print();
            Stop::new(exit::SUCCESS, String::new())
        }
        CliError::Usage(message) => Stop::new(exit::USAGE, message),
    })
}

/// Runs what the command line asks on the CUDA driver, printing to standard output and
/// error; `Ok` carries the exit status of a run that reached its table.
pub fn run(args: &[OsString]) -> Result<i32, Stop> {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    run_with(&CudaDriver, args, &mut Console { out: &mut out, err: &mut err })
}

/// The `block-size-cuda` program: [`run_with`] on `driver`, a stop printed as one
/// `Error: ` line on `console`'s stderr; returns the exit status.
pub fn main_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> i32 {
    run_with(driver, args, console).unwrap_or_else(|stop| {
        if !stop.message.is_empty() {
            console.err(&format!("Error: {}\n", stop.message));
        }
        stop.code
    })
}

/// Runs what the command line asks on `driver`, printing to `console`. A `Stop` is the
/// caller's to print, as `Error: ` and its message on one line.
pub fn run_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> Result<i32, Stop> {
    match parse_or_stop(args)? {
        Request::Occupancy(options) => {
            console.out(&occupancy::render(&occupancy::run(&options)));
            Ok(exit::SUCCESS)
        }
        Request::Compare(options) => compare::exec(driver, &options, args, console),
        Request::Tail(options) => tail::exec(driver, &options, args, console),
        Request::Variants(options) => variants::exec(driver, &options, args, console),
        Request::Sweep(options) => sweep::exec(driver, &options, args, console),
    }
}
