//! The tiled transpose's host side (`examples/reduce/kernels/src/transpose.rs`): a 2-D kernel
//! of your own over a domain of the matrix's columns and rows, one block a tile, its tile an
//! axis, checked bit for bit against the CPU transpose.
//!
//! A block of any 2-D shape moves a `tile x tile` tile through `tile x (tile + 1)` floats of
//! dynamic shared memory, so the per-item grid is one block a tile, `ceil(cols / tile) x
//! ceil(rows / tile)` ([`Kernel::tile`]), and a wave is laid over the tiles; the kernel's
//! grid-stride loop over tiles covers the matrix with any of them. Its two barriers are the
//! unaligned `barrier.sync 0` (docs/barriers.md).

use crate::PTX;
use block_size_runner::SweepArgs;
use block_size_runner::{Arg, Axis, Check, Kernel};

/// The kernel's entry point.
pub const ENTRY: &str = "transpose";

/// The tiles swept unless told otherwise: 16, 32 and 64 (a 64 x 65 tile is 16,640 bytes of
/// shared memory a block).
pub const TILES: [u64; 3] = [16, 32, 64];

/// The command line of `transpose-example` and its worker `transpose-example-cuda`: the
/// matrix, the tiles, then the sweep's options.
#[derive(clap::Parser, Debug)]
#[command(
    name = "transpose-example",
    about = "Sweeps a tiled matrix transpose over 2-D block shapes x tiles (2d of --block-sizes unless --block-shapes)"
)]
pub struct TransposeCli {
    /// Rows of the input matrix
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub rows: u32,
    /// Columns of the input matrix
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub cols: u32,
    /// The tiles, each a side of the square a block moves at a time: an axis
    #[arg(long, value_delimiter = ',', default_values_t = TILES, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub tiles: Vec<u64>,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// `rows x cols` values, each its own bit pattern, so that a misplaced element shows.
pub fn matrix(rows: u32, cols: u32) -> Vec<f32> {
    (0..u64::from(rows) * u64::from(cols)).map(|i| i as f32 * 0.5 - 1.0e6).collect()
}

/// The CPU transpose of the row-major `rows x cols` `input`: `cols x rows`.
pub fn reference(input: &[f32], rows: u32, cols: u32) -> Vec<f32> {
    let (rows, cols) = (rows as usize, cols as usize);
    let mut output = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            output[c * rows + r] = input[r * cols + c];
        }
    }
    output
}

/// Shared memory a block of the tile `tile` asks for: `tile x (tile + 1)` floats.
pub fn shared_bytes(tile: u64) -> u32 {
    u32::try_from(tile * (tile + 1) * 4).unwrap_or(u32::MAX)
}

/// The transpose of a `rows x cols` matrix, each of `tiles` an axis value (`tile`), every row
/// checked bit for bit against [`reference`]. Reads and writes the matrix once: `8 rows cols`
/// bytes a pass.
pub fn kernel(rows: u32, cols: u32, tiles: &[u64]) -> Kernel {
    let n = rows as usize * cols as usize;
    let input = matrix(rows, cols);
    let want = reference(&input, rows, cols);
    Kernel::new(PTX, ENTRY)
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .detail(format!("transpose of a {rows} x {cols} f32 matrix, one tile x tile tile a block a trip"))
        .domain(cols, rows, 1)
        .axis(Axis::integers("tile", tiles.iter().copied()))
        .tile(|variant, _| {
            let tile = u32::try_from(variant.integer("tile").unwrap_or(1)).unwrap_or(u32::MAX);
            [tile, tile, 1]
        })
        .input("input", input)
        .output::<f32>("output", n)
        .dynamic_shared_memory(|_, variant| shared_bytes(variant.integer("tile").unwrap_or(1)))
        .args(move |_| {
            vec![
                Arg::Buffer("input"),
                Arg::Buffer("output"),
                Arg::U32(rows),
                Arg::U32(cols),
                Arg::Axis("tile"),
            ]
        })
        .check(Check::reference(move |result, _| {
            let got = result.of::<f32>().ok_or("the output is not f32")?;
            match got.iter().zip(&want).position(|(got, want)| got.to_bits() != want.to_bits()) {
                Some(i) => Err(format!(
                    "output[{i}] (row {}, column {}) is {}, the CPU transpose says {}",
                    i / rows as usize,
                    i % rows as usize,
                    got[i],
                    want[i]
                )),
                None => Ok(()),
            }
        }))
}
