/*!
Block and grid shapes. A block's threads in x, y and z (`blockDim`), as `--block-shapes` takes them
(`32x8`, `16x16`, `8x8x4`) and as the tables write them. A block of `n` threads in x alone is
the block size `n` (`256` is `256x1x1`), so every 1-D row is a shape too.

What residency depends on is the thread count `x * y * z` (warps are cut from the block's
threads in x-fastest order); what the shape changes is which threads a warp holds, so
coalescing and bank conflicts. The device bounds each dimension on its own
(`maxBlockDim`: 1024, 1024 and 64 on every device since compute capability 2.0) as well as
the product (`maxThreadsPerBlock`, 1024). A grid's blocks in x, y and z (`gridDim`,
[`GridShape`]) are written the same way (`2112`, `60x68`).
*/

use crate::model::occupancy::WARP_SIZE;
use std::fmt;
use std::str::FromStr;

/// The most threads in x, y and z a block may have (`maxBlockDimX/Y/Z` of every device since
/// compute capability 2.0).
pub const MAX_BLOCK_DIMENSIONS: [u32; 3] = [1024, 1024, 64];

/// The most threads a block may have (`maxThreadsPerBlock` of every device since compute
/// capability 2.0), whatever its shape.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// The most blocks in x, y and z a grid may have (`maxGridDimX/Y/Z` of every device since
/// compute capability 3.0).
pub const MAX_GRID_DIMENSIONS: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

/// A block's threads in x, y and z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockShape {
    /// Threads in x (`blockDim.x`), the fastest-varying: consecutive lanes of a warp.
    pub x: u32,
    /// Threads in y (`blockDim.y`).
    pub y: u32,
    /// Threads in z (`blockDim.z`).
    pub z: u32,
}

impl BlockShape {
    /// A block of `threads` threads in x alone: the block size `threads`.
    pub const fn linear(threads: u32) -> Self {
        Self { x: threads, y: 1, z: 1 }
    }

    /// Its threads, `x * y * z` (saturating; the settings refuse a shape past the device bounds).
    pub fn threads(self) -> u32 {
        self.x.saturating_mul(self.y).saturating_mul(self.z)
    }

    /// Whether it has threads in x alone.
    pub fn is_linear(self) -> bool {
        self.y == 1 && self.z == 1
    }

    /// The block in words, as tables and failures name a row: "256 threads per block" in x
    /// alone, "block 32x8" for a shape.
    pub(crate) fn in_words(self) -> String {
        if self.is_linear() { format!("{} threads per block", self.x) } else { format!("block {self}") }
    }

    /// Why a device whose dimensions are bounded by `dimensions` and whose blocks hold at most
    /// `max_threads` threads cannot launch it, if it cannot.
    pub(crate) fn check(self, dimensions: [u32; 3], max_threads: u32) -> Result<(), String> {
        if self.x == 0 || self.y == 0 || self.z == 0 {
            return Err(format!("block {self} has a dimension of 0 threads"));
        }
        for ((name, value), most) in [("x", self.x), ("y", self.y), ("z", self.z)].into_iter().zip(dimensions)
        {
            if value > most {
                return Err(format!("block {self} has {value} threads in {name}, above the device's {most}"));
            }
        }
        let threads = u64::from(self.x) * u64::from(self.y) * u64::from(self.z);
        if threads > u64::from(max_threads) {
            return Err(format!(
                "block {self} has {threads} threads, above the {max_threads} a block can have"
            ));
        }
        Ok(())
    }

    /// The shapes of each of `block_sizes` in turn: every shape of its threads in `dimensions`
    /// (1, 2 or 3) dimensions whose sides are powers of two, x at least a warp (which keeps
    /// each warp on one row; a count of a warp or less gives the one shape `threads x 1 x 1`),
    /// within the bounds of every device (1024, 1024 and 64 threads); widest x first. A count
    /// that is not a power of two has its 1-D shape alone.
    pub fn generate(block_sizes: &[u32], dimensions: u32) -> Vec<Self> {
        block_sizes.iter().flat_map(|&threads| Self::shapes_of(threads, dimensions, WARP_SIZE)).collect()
    }

    /// The shapes of `threads` threads of [`BlockShape::generate`], x at least `min_x`.
    fn shapes_of(threads: u32, dimensions: u32, min_x: u32) -> Vec<Self> {
        let linear = Self::linear(threads);
        if dimensions <= 1 || !threads.is_power_of_two() || threads <= min_x {
            return vec![linear];
        }
        let powers = |most: u32| (0..=most.trailing_zeros()).map(|power| 1u32 << power);
        let mut shapes = Vec::new();
        for x in powers(threads).rev().filter(|&x| x >= min_x) {
            let rest = threads / x;
            if dimensions == 2 {
                shapes.push(Self { x, y: rest, z: 1 });
                continue;
            }
            for z in powers(rest) {
                shapes.push(Self { x, y: rest / z, z });
            }
        }
        shapes.retain(|shape| shape.check(MAX_BLOCK_DIMENSIONS, u32::MAX).is_ok());
        shapes
    }
}

/// `x`, `xXy` or `xXyXz` with trailing sides of 1 left out: how both shapes print.
fn write_sides(f: &mut fmt::Formatter<'_>, [x, y, z]: [u32; 3]) -> fmt::Result {
    match (y, z) {
        (1, 1) => write!(f, "{x}"),
        (y, 1) => write!(f, "{x}x{y}"),
        (y, z) => write!(f, "{x}x{y}x{z}"),
    }
}

/// `256` for a block in x alone, `32x8`, `8x8x4`: trailing sides of 1 are left out.
impl fmt::Display for BlockShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sides(f, [self.x, self.y, self.z])
    }
}

/// A grid's blocks in x, y and z (`gridDim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridShape {
    /// Blocks in x (`gridDim.x`).
    pub x: u32,
    /// Blocks in y (`gridDim.y`).
    pub y: u32,
    /// Blocks in z (`gridDim.z`).
    pub z: u32,
}

impl GridShape {
    /// A grid of `blocks` blocks in x alone.
    pub(crate) const fn linear(blocks: u32) -> Self {
        Self { x: blocks, y: 1, z: 1 }
    }

    /// Its blocks, `x * y * z`.
    pub fn blocks(self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }

    /// [`GridShape::blocks`] as a `u32`, clamped at `u32::MAX`: every grid a device launches
    /// has fewer (its dimensions' limits bound it), so the clamp shows only in a pruned row.
    pub(crate) fn blocks_within_u32(self) -> u32 {
        u32::try_from(self.blocks()).unwrap_or(u32::MAX)
    }

    /// Whether it has blocks in x alone.
    pub(crate) fn is_linear(self) -> bool {
        self.y == 1 && self.z == 1
    }

    /// Why a device whose grids are bounded by `dimensions` (`maxGridDimX/Y/Z`) cannot launch
    /// it, if it cannot.
    pub(crate) fn check(self, dimensions: [u32; 3]) -> Result<(), String> {
        for ((name, value), most) in [("x", self.x), ("y", self.y), ("z", self.z)].into_iter().zip(dimensions)
        {
            if value > most {
                return Err(format!("grid {self} has {value} blocks in {name}, above the device's {most}"));
            }
        }
        Ok(())
    }
}

/// `2112` for a grid in x alone, `60x68`, `4x4x2`.
impl fmt::Display for GridShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sides(f, [self.x, self.y, self.z])
    }
}

/// `X`, `XxY` or `XxYxZ` (an `x` or an `X` between), each side a whole number from 1.
fn parse_sides(text: &str) -> Option<[u32; 3]> {
    let sides = text
        .split(['x', 'X'])
        .map(|side| side.trim().parse::<u32>().ok().filter(|&side| side >= 1))
        .collect::<Option<Vec<u32>>>()?;
    match sides[..] {
        [x] => Some([x, 1, 1]),
        [x, y] => Some([x, y, 1]),
        [x, y, z] => Some([x, y, z]),
        _ => None,
    }
}

/// Both shapes read `X`, `XxY` or `XxYxZ`, each side a whole number from 1, and are written
/// to records and journals as they print (`32x8`) and read back the same way.
macro_rules! as_text {
    ($($shape:ty => $noun:literal),*) => {$(
        /// `X`, `XxY` or `XxYxZ`, each side a whole number from 1.
        impl FromStr for $shape {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                let [x, y, z] = parse_sides(text).ok_or_else(|| {
                    format!("`{text}` is not a {} (X, XxY or XxYxZ, each a whole number from 1)", $noun)
                })?;
                Ok(Self { x, y, z })
            }
        }

        impl serde::Serialize for $shape {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $shape {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

as_text!(BlockShape => "block shape", GridShape => "grid shape");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_and_print_with_trailing_ones_left_out() {
        for (text, shape, printed) in [
            ("256", BlockShape::linear(256), "256"),
            ("256x1x1", BlockShape::linear(256), "256"),
            ("32x8", BlockShape { x: 32, y: 8, z: 1 }, "32x8"),
            ("16X16", BlockShape { x: 16, y: 16, z: 1 }, "16x16"),
            ("8x8x4", BlockShape { x: 8, y: 8, z: 4 }, "8x8x4"),
            ("32x1x2", BlockShape { x: 32, y: 1, z: 2 }, "32x1x2"),
        ] {
            assert_eq!(text.parse::<BlockShape>(), Ok(shape), "{text}");
            assert_eq!(shape.to_string(), printed);
            assert_eq!(printed.parse::<BlockShape>(), Ok(shape), "{printed} reads back");
        }
        for bad in ["", "x", "32x", "0x8", "32x8x2x1", "-1", "32*8", "thirty"] {
            assert!(bad.parse::<BlockShape>().unwrap_err().contains("is not a block shape"), "{bad}");
        }
        assert_eq!(BlockShape { x: 8, y: 8, z: 4 }.threads(), 256);
        assert!(BlockShape::linear(1024).is_linear());
        assert!(!BlockShape { x: 32, y: 1, z: 2 }.is_linear());
    }

    #[test]
    fn the_device_bounds_each_dimension_and_the_product() {
        let check = |text: &str| {
            text.parse::<BlockShape>().unwrap().check(MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK)
        };
        assert_eq!(check("32x32"), Ok(()));
        assert_eq!(check("1x1x64"), Ok(()));
        assert_eq!(
            check("1x1x128").unwrap_err(),
            "block 1x1x128 has 128 threads in z, above the device's 64"
        );
        assert_eq!(check("2048").unwrap_err(), "block 2048 has 2048 threads in x, above the device's 1024");
        assert_eq!(
            check("64x32").unwrap_err(),
            "block 64x32 has 2048 threads, above the 1024 a block can have"
        );
        // The product is computed wide: it cannot wrap back into range.
        let huge = BlockShape { x: 65_536, y: 65_536, z: 1 };
        assert!(huge.check([u32::MAX; 3], 1024).unwrap_err().contains("4294967296 threads"));
    }

    #[test]
    fn generated_shapes_keep_warps_on_rows_and_the_count() {
        let shapes = |threads, dimensions| -> Vec<String> {
            BlockShape::shapes_of(threads, dimensions, 32).iter().map(ToString::to_string).collect()
        };
        assert_eq!(shapes(256, 2), ["256", "128x2", "64x4", "32x8"]);
        assert_eq!(shapes(256, 1), ["256"]);
        assert_eq!(shapes(32, 2), ["32"], "one warp wide: nothing narrower");
        assert_eq!(shapes(96, 2), ["96"], "not a power of two: its 1-D shape");
        assert_eq!(shapes(128, 3), ["128", "64x2", "64x1x2", "32x4", "32x2x2", "32x1x4"]);
        for threads in [64, 128, 256, 512, 1024] {
            for dimensions in 1..=3 {
                for shape in BlockShape::shapes_of(threads, dimensions, 32) {
                    assert_eq!(shape.threads(), threads, "{shape}");
                    assert!(
                        shape.x >= 32 && shape.check(MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK).is_ok(),
                        "{shape}"
                    );
                }
            }
        }
        // z is bounded at 64: 1024 threads of x 32 never put 32 in z past it, and never 128.
        assert!(BlockShape::generate(&[1024], 3).iter().all(|shape| shape.z <= 64));
        // A list is each block size's shapes in turn, in the list's order.
        let listed: Vec<String> =
            BlockShape::generate(&[64, 96, 32], 2).iter().map(ToString::to_string).collect();
        assert_eq!(listed, ["64", "32x2", "96", "32"]);
    }
}
