//! The box blur's host side (`examples/reduce/kernels/src/blur.rs`): a 2-D kernel of your own
//! whose shared memory follows its block's shape, over a domain of the image's columns and
//! rows, its radius an axis, every row checked bit for bit against the CPU blur.
//!
//! A block of `x x y` threads computes an `x x y` tile of the output through a halo'd tile of
//! `(x + 2 radius) x (y + 2 radius)` floats of dynamic shared memory, so the bytes a block asks
//! for depend on its shape, not on its thread count alone
//! ([`Kernel::dynamic_shared_memory_by_shape`]): at radius 2, 32x8 asks for 1,728 bytes, 16x16
//! for 1,600 and 256x1 for 5,200, all three 256 threads. The table's `smem` column shows each
//! row's. The per-item grid is one block a tile ([`Kernel::tile`]); the kernel's grid-stride
//! loop over tiles covers the image with any grid. Its two barriers are the unaligned
//! `barrier.sync 0` (docs/barriers.md).

use crate::PTX;
use block_size_runner::SweepArgs;
use block_size_runner::{Agreement, Arg, Axis, BlockShape, Check, Kernel, Values};

/// The kernel's entry point.
pub const ENTRY: &str = "box_blur";

/// The radius swept unless told otherwise: 2, a 5 x 5 box.
pub const RADII: [u64; 1] = [2];

/// The command line of `blur-example` and its worker `blur-example-cuda`: the image, the radii,
/// then the sweep's options.
#[derive(clap::Parser, Debug)]
#[command(
    name = "blur-example",
    about = "Sweeps a box blur through a shared-memory tile of the block's shape over 2-D block shapes x radii (2d of --block-sizes unless --block-shapes)"
)]
pub struct BlurCli {
    /// Width of the image in pixels
    #[arg(long, default_value_t = 3840, value_parser = clap::value_parser!(u32).range(1..=32768))]
    pub width: u32,
    /// Height of the image in pixels
    #[arg(long, default_value_t = 2160, value_parser = clap::value_parser!(u32).range(1..=32768))]
    pub height: u32,
    /// The radii, each the half side of the box (2: 5 x 5): an axis
    #[arg(long, value_delimiter = ',', default_values_t = RADII, value_parser = clap::value_parser!(u64).range(1..=4))]
    pub radii: Vec<u64>,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// A `width x height` image of whole numbers from 0 to 255, so that every sum of the blur is
/// exact in `f32` whatever its order.
pub fn image(width: u32, height: u32) -> Vec<f32> {
    let width = u64::from(width);
    (0..width * u64::from(height))
        .map(|i| ((i % width) * 7 + (i / width) * 13 + (i * 2_654_435_761) % 97) as u8 as f32)
        .collect()
}

/// The CPU blur of the row-major `width x height` `image` at `radius`, as the kernel computes
/// it: clamped to the edge, the box added row by row, left to right, in `f32`, then divided by
/// its area.
pub fn reference(image: &[f32], width: u32, height: u32, radius: u32) -> Vec<f32> {
    let (width, height, radius) = (width as i64, height as i64, radius as i64);
    let area = ((2 * radius + 1) * (2 * radius + 1)) as f32;
    let mut output = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        for x in 0..width {
            let mut sum = 0.0f32;
            for dy in -radius..=radius {
                let row = (y + dy).clamp(0, height - 1);
                for dx in -radius..=radius {
                    let col = (x + dx).clamp(0, width - 1);
                    sum += image[(row * width + col) as usize];
                }
            }
            output.push(sum / area);
        }
    }
    output
}

/// Shared memory a block of shape `block` asks for at `radius`: its tile and the halo around
/// it, `(x + 2 radius) x (y + 2 radius)` floats.
pub fn shared_bytes(block: BlockShape, radius: u64) -> u32 {
    let halo = 2 * radius;
    let floats = (u64::from(block.x) + halo) * (u64::from(block.y) + halo);
    u32::try_from(floats * 4).unwrap_or(u32::MAX)
}

/// The blur of a `width x height` image, each of `radii` an axis value (`radius`), every row
/// checked bit for bit against [`reference`]. With one radius (the default) the reference is
/// computed once and uploaded, and every row is compared with it on the GPU
/// ([`Check::expected`]); with several, each radius's reference is computed once and each row's
/// output copied back and compared on the host with its radius's ([`Check::reference`]), since
/// an expected check has one set of values for every configuration. Reads and writes the image
/// once from global memory: `8 width height` bytes a pass.
pub fn kernel(width: u32, height: u32, radii: &[u64]) -> Kernel {
    let n = width as usize * height as usize;
    let input = image(width, height);
    let check = match radii {
        [radius] => {
            let (input, radius) = (input.clone(), *radius as u32);
            Check::expected(Agreement::BitForBit, move || {
                Ok(Values::from(reference(&input, width, height, radius)))
            })
            .naming("pixel")
        }
        _ => {
            let references: Vec<(u64, Vec<f32>)> = radii
                .iter()
                .map(|&radius| (radius, reference(&input, width, height, radius as u32)))
                .collect();
            Check::reference(move |result, shape| {
                let got = result.of::<f32>().ok_or("the output is not f32")?;
                let radius = shape.variant.integer("radius").ok_or("no radius")?;
                let (_, want) = references
                    .iter()
                    .find(|(of, _)| *of == radius)
                    .ok_or_else(|| format!("no reference at radius {radius}"))?;
                match got.iter().zip(want).position(|(got, want)| got.to_bits() != want.to_bits()) {
                    Some(i) => Err(format!(
                        "pixel {i} (x {}, y {}) is {}, the CPU blur says {}",
                        i % width as usize,
                        i / width as usize,
                        got[i],
                        want[i]
                    )),
                    None => Ok(()),
                }
            })
        }
    };
    Kernel::new(PTX, ENTRY)
        .items(n as u64, "pixels")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .detail(format!(
            "box blur of a {width} x {height} f32 image, one block-shaped tile and its halo in shared memory a block a trip"
        ))
        .domain(width, height, 1)
        .axis(Axis::integers("radius", radii.iter().copied()))
        .tile(|_, block| [block.x, block.y, 1])
        .input("input", input)
        .output::<f32>("output", n)
        .dynamic_shared_memory_by_shape(|block, variant| shared_bytes(block, variant.integer("radius").unwrap_or(2)))
        .args(move |_| {
            vec![Arg::Buffer("input"), Arg::Buffer("output"), Arg::U32(width), Arg::U32(height), Arg::Axis("radius")]
        })
        .check(check)
}
