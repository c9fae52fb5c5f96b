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
        Ok(code) => code,
        Err(error) => {
            let message = error.to_string();
            if !message.is_empty() {
                eprintln!("Error: {message}");
            }
            error.exit_status()
        }
    };
    std::process::exit(code);
}

/// The worker program for tests: a stand-in for `block-size-cuda` (which links the driver), run
/// in its place without looking for a driver. Never set outside the repository's tests.
const TEST_WORKER: &str = "BLOCK_SIZE_TEST_WORKER";

fn run(args: &[OsString]) -> Result<i32, Error> {
    // The occupancy calculator, `diff`, `merge`, `report` and `new` need no GPU: answer them here, driver
    // or not.
    match app::parse_or_stop(args)? {
        Request::Occupancy(request) => {
            print!("{}", request.exec()?);
            return Ok(exit::SUCCESS);
        }
        Request::New(request) => {
            let created = new::exec(&request)?;
            print!("{}", created.stdout);
            eprint!("{}", created.stderr);
            return Ok(exit::SUCCESS);
        }
        Request::Sweep(request) => {
            // The sweep runs in supervised workers: a configuration that faults or hangs costs a
            // worker, journaled, and a fresh one measures the rest.
            let worker = worker()?;
            return commands::supervise(&worker, args, &request.options);
        }
        Request::Diff(request) => return with_stdio(|console| request.exec(console)),
        Request::Merge(request) => return with_stdio(|console| request.exec(console)),
        Request::Report(request) => return request.exec().map(|()| exit::SUCCESS),
        _ => {}
    }
    let worker = worker()?;
    let error = std::process::Command::new(&worker).arg0(&args[0]).args(&args[1..]).exec();
    Err(Error::new(exit::FAILED, format!("cannot start {}: {error}", worker.display())))
}

/// `block-size-cuda` beside this program, once the driver library loads.
fn worker() -> Result<std::path::PathBuf, Error> {
    if let Some(program) = std::env::var_os(TEST_WORKER) {
        return Ok(program.into());
    }
    commands::driver_loads()?;
    std::env::current_exe()
        .map(|exe| exe.with_file_name(WORKER))
        .map_err(|error| Error::new(exit::FAILED, format!("cannot locate {WORKER}: {error}")))
}
