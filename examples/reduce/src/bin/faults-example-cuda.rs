//! `faults-example-cuda`, the worker of `faults-example` (src/bin/faults-example.rs starts it
//! under its supervisor): sweeps a test kernel that faults at 1024 threads per block
//! (`--entry copy_faulting_at_1024`) or hangs at 512 (`--entry copy_hanging_at_512`) in this
//! process. Run on its own, a fault that loses the GPU context ends the sweep with the rows
//! before it; under `faults-example` a fresh worker measures the rest (docs/reliability.md).

use clap::Parser;
use reduce_example::faults::FaultsCli;
use reduce_example::stencil;

fn main() {
    let cli = FaultsCli::parse();
    let kernel = stencil::copy_kernel(cli.entry(), stencil::values(cli.n));
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep, console)
    }));
}
