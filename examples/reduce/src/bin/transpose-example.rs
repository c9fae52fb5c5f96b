//! `transpose-example`: the launcher over its worker `transpose-example-cuda`
//! ([`block_size_runner::launch`]): it parses the command line (`--help` anywhere), checks that
//! the NVIDIA driver's library loads (else one line, exit 3), and runs the worker under its
//! supervisor.

use reduce_example::transpose::TransposeCli;

fn main() {
    let cli: TransposeCli = reduce_example::launcher_command_line(|cli: &TransposeCli| &cli.sweep);
    std::process::exit(block_size_runner::launch("transpose-example-cuda", Some(&cli.sweep)));
}
