/*!
The program: parse the command line ([`crate::cli`]), hand the request to the library, print,
and choose the exit status. Used by the `block-size-cuda` binary, which `block-size` starts
once it has found a driver; tests run it through [`run_with`] on the library's `MockDriver`.
*/

use crate::cli::{self, CliError, Request};
use crate::cmd::new;
use block_size_runner::{Console, Driver, Error, exit};
use std::ffi::OsString;
use std::io::Write;

/// Parses the command line, or says how to stop: help and version print and exit 0, anything
/// else is a one-line usage error (exit 2).
pub fn parse_or_stop(args: &[OsString]) -> Result<Request, Error> {
    cli::parse(args).map_err(|error| match error {
        CliError::Info(info) => {
            let _ = info.print();
            Error::new(exit::SUCCESS, String::new())
        }
        CliError::Usage(error) => error,
    })
}

/// The `block-size-cuda` program: [`run_with`] on `driver`, an error printed as one `Error: `
/// line on `console`'s stderr; returns the exit status.
pub fn main_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> i32 {
    run_with(driver, args, console).unwrap_or_else(|error| {
        let message = error.to_string();
        if !message.is_empty() {
            let _ = writeln!(console.err, "Error: {message}");
        }
        error.exit_status()
    })
}

/// Runs what the command line asks on `driver`, printing to `console`. An `Error` is the
/// caller's to print, as `Error: ` and its message on one line.
pub fn run_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> Result<i32, Error> {
    match parse_or_stop(args)? {
        Request::Occupancy(request) => {
            print_to(&mut console.out, &request.exec()?);
            Ok(exit::SUCCESS)
        }
        Request::New(request) => {
            let created = new::exec(&request)?;
            print_to(&mut console.out, &created.stdout);
            print_to(&mut console.err, &created.stderr);
            Ok(exit::SUCCESS)
        }
        Request::Diff(request) => request.exec(console),
        Request::Merge(request) => request.exec(console),
        Request::Report(request) => {
            request.exec()?;
            Ok(exit::SUCCESS)
        }
        Request::Compare(request) => request.exec(driver, console),
        Request::Tail(request) => request.exec(driver, console),
        Request::Variants(request) => request.exec(driver, console),
        Request::Sweep(request) => request.exec(driver, console),
    }
}

/// Writes `text` to `stream` and flushes it; a closed stream is not this program's failure.
fn print_to(stream: &mut dyn Write, text: &str) {
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}
