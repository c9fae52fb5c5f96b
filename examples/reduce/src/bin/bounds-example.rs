//! `bounds-example`: sweeps a kernel whose PTX demands its block (`.reqntid 128` or
//! `.maxntid 256`, `reduce_example::bounds`): the block sizes the PTX forbids are pruned, each
//! row naming the directive; the others are measured and checked. One thread an item, so the
//! grid is `per-item` whatever `--grid` says.

use block_size_cli::SweepArgs;
use block_size_runner::Settings;
use clap::Parser;
use reduce_example::bounds;

#[derive(Parser)]
#[command(name = "bounds-example", about = "Sweeps a kernel whose PTX has .reqntid 128 or .maxntid 256")]
struct Cli {
    /// Values to double
    #[arg(long, default_value_t = 1 << 24)]
    n: usize,
    /// double_exactly_128 (.reqntid 128, 1, 1) or double_at_most_256 (.maxntid 256, 1, 1)
    #[arg(long, default_value = bounds::AT_MOST_256, value_parser = [bounds::EXACTLY_128, bounds::AT_MOST_256])]
    entry: String,
    #[command(flatten)]
    sweep: SweepArgs,
}

fn main() {
    let cli = Cli::parse();
    let entry = if cli.entry == bounds::EXACTLY_128 { bounds::EXACTLY_128 } else { bounds::AT_MOST_256 };
    let kernel = bounds::kernel(entry, cli.n);
    let settings = Settings { grid: bounds::GRID, ..cli.sweep.settings() };
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &settings, console)
    }));
}
