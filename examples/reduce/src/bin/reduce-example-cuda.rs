//! `reduce-example-cuda`, the worker of `reduce-example` (src/main.rs starts it under its
//! supervisor): sweeps the example kernels on the GPU in this process. It links the NVIDIA
//! driver's `libcuda.so.1` (through cust), so it starts only where the driver is installed.

use clap::Parser as _;

fn main() {
    let cli = reduce_example::Cli::parse();
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        // The driver starts while `run` builds the values and their CPU sum.
        let _device = block_size_runner::open_early(&driver, &cli.sweep);
        reduce_example::run(&driver, &cli, console)
    }));
}
