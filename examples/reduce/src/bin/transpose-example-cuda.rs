//! `transpose-example-cuda`, the worker of `transpose-example` (src/bin/transpose-example.rs
//! starts it under its supervisor): sweeps the tiled transpose
//! (examples/reduce/kernels/src/transpose.rs) over block shapes and tiles in this process, every
//! row checked bit for bit against the CPU. It links the driver's `libcuda.so.1` (through cust).

use clap::Parser;
use reduce_example::transpose;

fn main() {
    let cli = transpose::TransposeCli::parse();
    let kernel = transpose::kernel(cli.rows, cli.cols, &cli.tiles);
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep, console)
    }));
}
