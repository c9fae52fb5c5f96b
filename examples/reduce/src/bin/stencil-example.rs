//! `stencil-example`: sweeps the barrier regression kernel on the GPU (docs/barriers.md).
//! `--entry stencil3_cuda_std_barrier` launches the aligned-barrier twin, which deadlocks: run it
//! only under `timeout`.

use block_size_runner::SweepArgs;
use clap::Parser;
use reduce_example::stencil;

#[derive(Parser)]
#[command(name = "stencil-example", about = "Sweeps the barrier regression kernel (a tiled 3-point stencil)")]
struct Cli {
    /// Values in the stencil's input
    #[arg(long, default_value_t = 1 << 20)]
    n: usize,
    /// stencil3 (the unaligned barrier) or stencil3_cuda_std_barrier (cuda_std's, which hangs)
    #[arg(long, default_value = stencil::SAFE_ENTRY, value_parser = [stencil::SAFE_ENTRY, stencil::HAZARD_ENTRY])]
    entry: String,
    #[command(flatten)]
    sweep: SweepArgs,
}

fn main() {
    let cli = Cli::parse();
    let entry = if cli.entry == stencil::HAZARD_ENTRY { stencil::HAZARD_ENTRY } else { stencil::SAFE_ENTRY };
    let kernel = stencil::kernel(entry, stencil::values(cli.n));
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep, console)
    }));
}
