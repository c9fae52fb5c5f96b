//! `blur-example`: the launcher over its worker `blur-example-cuda`
//! ([`block_size_runner::launch`]): it parses the command line (`--help` anywhere), checks that
//! the NVIDIA driver's library loads (else one line, exit 3), and runs the worker under its
//! supervisor.

use reduce_example::blur::BlurCli;

fn main() {
    let cli: BlurCli = reduce_example::launcher_command_line(|cli: &BlurCli| &cli.sweep);
    std::process::exit(block_size_runner::launch("blur-example-cuda", Some(&cli.sweep)));
}
