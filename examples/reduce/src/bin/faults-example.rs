//! `faults-example`: sweeps a test kernel that faults at 1024 threads per block
//! (`--entry copy_faulting_at_1024`) or hangs at 512 (`--entry copy_hanging_at_512`), to show
//! that the sweep keeps every other row (docs/options.md: fault isolation and the watchdog).

use block_size_cli::SweepArgs;
use clap::Parser;
use reduce_example::stencil;

#[derive(Parser)]
#[command(name = "faults-example", about = "Sweeps a test kernel that faults or hangs at one block size")]
struct Cli {
    /// Values copied
    #[arg(long, default_value_t = 1 << 20)]
    n: usize,
    /// copy_faulting_at_1024 or copy_hanging_at_512
    #[arg(long, value_parser = [stencil::FAULTING_ENTRY, stencil::HANGING_ENTRY])]
    entry: String,
    #[command(flatten)]
    sweep: SweepArgs,
}

fn main() {
    let cli = Cli::parse();
    let entry =
        if cli.entry == stencil::HANGING_ENTRY { stencil::HANGING_ENTRY } else { stencil::FAULTING_ENTRY };
    let kernel = stencil::copy_kernel(entry, stencil::values(cli.n));
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep.settings(), console)
    }));
}
