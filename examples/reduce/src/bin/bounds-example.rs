//! `bounds-example`: sweeps a kernel whose PTX demands its block (`.reqntid 128` or
//! `.maxntid 256`, `reduce_example::bounds`): the block sizes the PTX forbids are pruned, each
//! row naming the directive; the others are measured and checked. One thread an item, so
//! `--grid` is `per-item` unless given (another grid leaves items undone, which the check says).

use block_size_runner::SweepArgs;
use clap::{CommandFactory as _, FromArgMatches as _, Parser};
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
    // `--grid`'s default is these kernels' own grid (`bounds::GRID`), not the sweep's.
    let command = Cli::command().mut_arg("grid", |arg| arg.default_value(bounds::GRID));
    let cli = Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|error| error.exit());
    let entry = if cli.entry == bounds::EXACTLY_128 { bounds::EXACTLY_128 } else { bounds::AT_MOST_256 };
    let kernel = bounds::kernel(entry, cli.n);
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep, console)
    }));
}
