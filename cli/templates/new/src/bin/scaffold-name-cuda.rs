//! scaffold-name-cuda, the worker that scaffold-name (src/main.rs) starts with its own command
//! line: it runs the program on the GPU. It links the NVIDIA driver's `libcuda.so.1` (through
//! cust), so it starts only where the driver is installed; run scaffold-name, which checks that
//! first.

fn main() {
    let cli = scaffold_name::Cli::from_command_line();
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        // A sweep's device opens on a thread of its own while `run` builds the inputs.
        let sweep = cli.command.is_none();
        let _device = sweep.then(|| block_size_runner::open_early(&driver, &cli.sweep));
        scaffold_name::run(&driver, &cli, console)
    }));
}
