//! `blur-example-cuda`, the worker of `blur-example` (src/bin/blur-example.rs starts it under its
//! supervisor): sweeps the box blur (examples/reduce/kernels/src/blur.rs) over block shapes and
//! radii in this process, every row checked bit for bit against the CPU blur. It links the
//! driver's `libcuda.so.1` (through cust).

use clap::Parser;
use reduce_example::blur;

fn main() {
    let cli = blur::BlurCli::parse();
    let kernel = blur::kernel(cli.width, cli.height, &cli.radii);
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep, console)
    }));
}
