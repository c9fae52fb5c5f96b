//! `block-size`: validates the command line, answers `occupancy` itself (no GPU needed),
//! and for a sweep makes sure an NVIDIA driver is there, then hands over to
//! `block-size-cuda`, which links the driver.
//!
//! Two binaries because cust links `libcuda.so.1` directly: a program that links it cannot
//! even start on a machine without the driver, where it should instead say so and exit 3.

use block_size_runner::app::{self, exit};
use block_size_runner::cli::Request;
use block_size_runner::cmd::occupancy;
use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

const WORKER: &str = "block-size-cuda";

fn main() {
    let args: Vec<OsString> = std::env::args_os().collect();
    let code = match run(&args) {
        Ok(()) => exit::SUCCESS,
        Err(stop) => {
            if !stop.message.is_empty() {
                eprintln!("Error: {}", stop.message);
            }
            stop.code
        }
    };
    std::process::exit(code);
}

fn run(args: &[OsString]) -> Result<(), app::Stop> {
    // The occupancy calculator needs no GPU: answer it here, driver or not.
    if let Request::Occupancy(options) = app::parse_or_stop(args)? {
        print!("{}", occupancy::render(&occupancy::run(&options)));
        return Ok(());
    }
    // SAFETY: loading the driver library runs its initialisers, as starting the worker would.
    if let Err(error) = unsafe { libloading::Library::new("libcuda.so.1") } {
        return Err(app::Stop {
            code: exit::NO_DEVICE,
            message: format!("no NVIDIA driver: {error}; this program needs an NVIDIA GPU and its driver"),
        });
    }
    let worker = std::env::current_exe().map(|exe| exe.with_file_name(WORKER)).map_err(|error| {
        app::Stop { code: exit::FAILED, message: format!("cannot locate {WORKER}: {error}") }
    })?;
    let error = std::process::Command::new(&worker).arg0(&args[0]).args(&args[1..]).exec();
    Err(app::Stop { code: exit::FAILED, message: format!("cannot start {}: {error}", worker.display()) })
}
