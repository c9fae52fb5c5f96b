//! `faults-example`: a launcher over its worker `faults-example-cuda`, as a program of your own
//! is one ([`block_size_runner::launch`]). It parses the command line, then runs the worker
//! under a supervisor: the kernel that faults at 1024 threads per block, or hangs at 512, costs
//! a worker, and a fresh one measures every other row (docs/reliability.md).

use reduce_example::faults::FaultsCli;

fn main() {
    let cli: FaultsCli = reduce_example::launcher_command_line(|cli: &FaultsCli| &cli.sweep);
    std::process::exit(block_size_runner::launch("faults-example-cuda", Some(&cli.sweep)));
}
