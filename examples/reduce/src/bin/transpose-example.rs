//! `transpose-example`: sweeps the tiled transpose (examples/reduce/kernels/src/transpose.rs)
//! over block shapes and tiles, every row checked bit for bit against the CPU.

use block_size_cli::SweepArgs;
use clap::Parser;
use reduce_example::transpose;

#[derive(Parser)]
#[command(
    name = "transpose-example",
    about = "Sweeps a tiled matrix transpose over 2-D block shapes x tiles (2d of --block-sizes unless --block-shapes)"
)]
struct Cli {
    /// Rows of the input matrix
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..=65536))]
    rows: u32,
    /// Columns of the input matrix
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..=65536))]
    cols: u32,
    /// The tiles, each a side of the square a block moves at a time: an axis
    #[arg(long, value_delimiter = ',', default_values_t = transpose::TILES, value_parser = clap::value_parser!(u64).range(1..=64))]
    tiles: Vec<u64>,
    #[command(flatten)]
    sweep: SweepArgs,
}

fn main() {
    let cli = Cli::parse();
    let kernel = transpose::kernel(cli.rows, cli.cols, &cli.tiles);
    let driver = block_size_runner::CudaDriver;
    std::process::exit(block_size_runner::with_stdio(|console| {
        block_size_runner::sweep_and_print(&driver, &kernel, &cli.sweep.settings(), console)
    }));
}
