/*!
Block shapes: a block's threads in x, y and z (`blockDim`), as `--block-shapes` takes them
(`32x8`, `16x16`, `8x8x4`) and as the tables write them. A block of `n` threads in x alone is
the block size `n` (`256` is `256x1x1`), so every 1-D row is a shape too.

What residency depends on is the thread count `x * y * z` (warps are cut from the block's
threads in x-fastest order); what the shape changes is which threads a warp holds, so
coalescing and bank conflicts. The device bounds each dimension on its own
(`maxBlockDim`: 1024, 1024 and 64 on every device since compute capability 2.0) as well as
the product (`maxThreadsPerBlock`, 1024).
*/

use std::fmt;
use std::str::FromStr;

/// The most threads in x, y and z a block may have (`maxBlockDimX/Y/Z` of every device since
/// compute capability 2.0).
pub const MAX_BLOCK_DIMENSIONS: [u32; 3] = [1024, 1024, 64];

/// The most threads a block may have (`maxThreadsPerBlock` of every device since compute
/// capability 2.0), whatever its shape.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

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

    /// Its threads, `x * y * z` (saturating; a shape that overflows is refused by [`Self::check`]).
    pub fn threads(self) -> u32 {
        self.x.saturating_mul(self.y).saturating_mul(self.z)
    }

    /// Whether it has threads in x alone.
    pub fn is_linear(self) -> bool {
        self.y == 1 && self.z == 1
    }

    /// Why a device whose dimensions are bounded by `dimensions` and whose blocks hold at most
    /// `max_threads` threads cannot launch it, if it cannot.
    pub fn check(self, dimensions: [u32; 3], max_threads: u32) -> Result<(), String> {
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

    /// Every shape of `threads` threads in `dimensions` (1, 2 or 3) dimensions whose sides are
    /// powers of two, x at least `min_x` (32, a warp, keeps each warp on one row; a count
    /// below it gives the one shape `threads x 1 x 1`), within the device bounds of
    /// [`MAX_BLOCK_DIMENSIONS`]; widest x first. A count that is not a power of two has its
    /// 1-D shape alone.
    pub fn generate(threads: u32, dimensions: u32, min_x: u32) -> Vec<Self> {
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

/// `256` for a block in x alone, `32x8`, `8x8x4`: trailing sides of 1 are left out.
impl fmt::Display for BlockShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.y, self.z) {
            (1, 1) => write!(f, "{}", self.x),
            (y, 1) => write!(f, "{}x{y}", self.x),
            (y, z) => write!(f, "{}x{y}x{z}", self.x),
        }
    }
}

/// `X`, `XxY` or `XxYxZ`, each side a whole number from 1.
impl FromStr for BlockShape {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let refuse =
            || format!("`{text}` is not a block shape (X, XxY or XxYxZ, each a whole number from 1)");
        let sides = text
            .split(['x', 'X'])
            .map(|side| side.trim().parse::<u32>().ok().filter(|&side| side >= 1))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(refuse)?;
        match sides[..] {
            [x] => Ok(Self { x, y: 1, z: 1 }),
            [x, y] => Ok(Self { x, y, z: 1 }),
            [x, y, z] => Ok(Self { x, y, z }),
            _ => Err(refuse()),
        }
    }
}

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
            BlockShape::generate(threads, dimensions, 32).iter().map(ToString::to_string).collect()
        };
        assert_eq!(shapes(256, 2), ["256", "128x2", "64x4", "32x8"]);
        assert_eq!(shapes(256, 1), ["256"]);
        assert_eq!(shapes(32, 2), ["32"], "one warp wide: nothing narrower");
        assert_eq!(shapes(96, 2), ["96"], "not a power of two: its 1-D shape");
        assert_eq!(shapes(128, 3), ["128", "64x2", "64x1x2", "32x4", "32x2x2", "32x1x4"]);
        for threads in [64, 128, 256, 512, 1024] {
            for dimensions in 1..=3 {
                for shape in BlockShape::generate(threads, dimensions, 32) {
                    assert_eq!(shape.threads(), threads, "{shape}");
                    assert!(
                        shape.x >= 32 && shape.check(MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK).is_ok(),
                        "{shape}"
                    );
                }
            }
        }
        // z is bounded at 64: 1024 threads of x 32 never put 32 in z past it, and never 128.
        assert!(BlockShape::generate(1024, 3, 32).iter().all(|shape| shape.z <= 64));
    }
}
