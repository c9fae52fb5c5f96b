//! `reduce-example`: the launcher over its worker `reduce-example-cuda`, as `block-size` and a
//! program of `block-size new` are ([`block_size_runner::launch`]). It parses the command line
//! (so `--help` and bad input are answered anywhere), checks that the NVIDIA driver's library
//! loads (else one line, exit 3), and runs the worker, which links the driver, under its
//! supervisor: a kernel that faults or hangs costs a worker, and a fresh one measures the rest.

fn main() {
    let cli: reduce_example::Cli =
        reduce_example::launcher_command_line(|cli: &reduce_example::Cli| &cli.sweep);
    std::process::exit(block_size_runner::launch("reduce-example-cuda", Some(&cli.sweep)));
}
