//! scaffold-name, the launcher: it links no NVIDIA driver, so it starts anywhere. It parses the
//! command line (`--help` prints here) and checks what needs no device, then runs the worker
//! beside it, scaffold-name-cuda (src/bin/), with the same command line: one `Error:` line and
//! exit 3 where the driver's `libcuda.so.1` does not load. A sweep's worker runs supervised: a
//! kernel that faults or hangs costs a worker, and a fresh one measures the rest.
//!
//! It must not call what links the driver (`CudaDriver`, `run`), or it would need
//! `libcuda.so.1` to start.

fn main() {
    let cli = scaffold_name::Cli::from_command_line();
    // The sweep runs supervised (journaled to its --journal); a subcommand in this process's place.
    let sweep = cli.command.is_none().then_some(&cli.sweep);
    std::process::exit(block_size_runner::launch("scaffold-name-cuda", sweep));
}
