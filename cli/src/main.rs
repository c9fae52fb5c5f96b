//! `block-size`: validates the command line, answers `occupancy` and `new` itself (no GPU
//! needed), and for a sweep makes sure an NVIDIA driver is there, then hands over to
//! `block-size-cuda`, which links the driver.
//!
//! Two binaries because cust links `libcuda.so.1` directly: a program that links it cannot
//! even start on a machine without the driver, where it should instead say so and exit 3.

use block_size_cli::app;
use block_size_cli::cli::Request;
use block_size_cli::cmd::new;
use block_size_runner::{Error, commands, exit, with_stdio};
use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

const WORKER: &str = "block-size-cuda";

fn main() {
    let args: Vec<OsString> = std::env::args_os().collect();
    let code = match run(&args) {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            if !error.message().is_empty() {
                eprintln!("Error: {error}");
            }
            error.exit_status()
        }
    };
    std::process::exit(code);
}

/// Ends the process with `status` where a command that needs no GPU returned one.
fn exit_with(status: Result<i32, Error>) -> Result<(), Error> {
    match status? {
        exit::SUCCESS => Ok(()),
        code => std::process::exit(code),
    }
}

fn run(args: &[OsString]) -> Result<(), Error> {
    // The occupancy calculator, `diff`, `report` and `new` need no GPU: answer them here, driver
    // or not.
    match app::parse_or_stop(args)? {
        Request::Occupancy(request) => {
            print!("{}", commands::occupancy(&request)?);
            return Ok(());
        }
        Request::New(request) => {
            let created = new::exec(&request)?;
            print!("{}", created.stdout);
            eprint!("{}", created.stderr);
            return Ok(());
        }
        Request::Diff(request) => return exit_with(with_stdio(|console| commands::diff(&request, console))),
        Request::Report(request) => return commands::report(&request),
        _ => {}
    }
    // SAFETY: loading the driver library runs its initialisers, as starting the worker would.
    if let Err(error) = unsafe { libloading::Library::new("libcuda.so.1") } {
        return Err(Error::new(
            exit::NO_DEVICE,
            format!("no NVIDIA driver: {error}; this program needs an NVIDIA GPU and its driver"),
        ));
    }
    let worker = std::env::current_exe()
        .map(|exe| exe.with_file_name(WORKER))
        .map_err(|error| Error::new(exit::FAILED, format!("cannot locate {WORKER}: {error}")))?;
    let error = std::process::Command::new(&worker).arg0(&args[0]).args(&args[1..]).exec();
    Err(Error::new(exit::FAILED, format!("cannot start {}: {error}", worker.display())))
}
