//! scaffold-name: sweeps the kernel on the GPU. It links the NVIDIA driver's `libcuda.so.1`
//! (through cust), so it starts only where the driver is installed.

use clap::Parser as _;

fn main() {
    let cli = scaffold_name::Cli::parse();
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| scaffold_name::run(&driver, &cli, console)));
}
