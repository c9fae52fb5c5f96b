/*!
Grid policies: how many blocks each row of a sweep launches, from the driver's residency
answer, the device's SMs, the items one pass covers and the block size.

- [`GridPolicy::OneWave`], the seed's and the default: one full wave of resident blocks
  (`blocks/SM x SMs`), as `block_size.cu` launches ([`crate::model::occupancy::one_wave_grid`]);
- [`GridPolicy::PerItem`]: one thread per item, `ceil(items / threads)` blocks, the launch a
  kernel without a grid-stride loop needs;
- [`GridPolicy::Waves`]: `k` full waves, for kernels whose cost depends on how many waves
  they run in (see `block-size tail`).

Every policy launches at least one block and at most `ceil(items / threads)` (past that, a
block would find no item to take), and never more than the driver's grid limit of
`2^31 - 1` blocks; a kernel with a grid-stride loop covers every item with any of them.

A kernel over a 2-D or 3-D domain of `W x H x D` items ([`crate::Kernel::domain`]) launches a
grid of the same dimensions ([`GridPolicy::grid_over`]): per item, `ceil(W / x) x ceil(H / y)
x ceil(D / z)` blocks of an `x x y x z` block; one wave or `k` waves of `B` blocks laid over
the domain row by row: `gx = min(nx, B)` blocks in x, `gy = min(ny, max(1, B / gx))` in y and
`gz = min(nz, max(1, B / (gx gy)))` in z, where `nx x ny x nz` is the per-item grid. So a wave
is at most `B` blocks, whole rows of blocks first, and never more than the per-item grid; a
kernel with a grid-stride loop in each dimension covers the domain with any of them.
*/

use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::occupancy::one_wave_grid;
use serde::{Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The most blocks a one-dimensional grid may have (`maxGridDim.x` on every device since
/// compute capability 3.0).
pub const MAX_GRID_BLOCKS: u32 = i32::MAX as u32;

/// How many blocks a row launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GridPolicy {
    /// One full wave: `blocks/SM x SMs` blocks (the seed's, `block_size.cu`'s).
    #[default]
    OneWave,
    /// One thread per item: `ceil(items / threads per block)` blocks.
    PerItem,
    /// This many full waves (at least one).
    Waves(u32),
}

impl GridPolicy {
    /// The grid of a row: `threads_per_block` threads a block, `blocks_per_sm` of them resident
    /// on each of `multiprocessors` SMs, over `items` items. At least one block, at most one
    /// block per `threads_per_block` items and the driver's grid limit, 2^31 - 1 blocks.
    pub(crate) fn grid_blocks(
        self,
        blocks_per_sm: u32,
        multiprocessors: u32,
        items: u64,
        threads_per_block: u32,
    ) -> u32 {
        let needed = items.div_ceil(u64::from(threads_per_block.max(1))).max(1);
        let blocks = match self {
            Self::OneWave => {
                return one_wave_grid(blocks_per_sm, multiprocessors, items, threads_per_block)
                    .min(MAX_GRID_BLOCKS);
            }
            Self::PerItem => needed,
            Self::Waves(waves) => {
                let wave = u64::from(blocks_per_sm) * u64::from(multiprocessors);
                (wave * u64::from(waves.max(1))).min(needed)
            }
        };
        u32::try_from(blocks.clamp(1, u64::from(MAX_GRID_BLOCKS))).expect("clamped to the grid limit")
    }

    /// The grid of a row of a kernel over a domain of `domain` items in x, y and z, each
    /// block covering `covers` items in x, y and z a trip (its threads, one item each, or the
    /// kernel's tile), `blocks_per_sm` of them resident on each of `multiprocessors` SMs: the
    /// module's rule. Each side is at least 1 and at most `u32::MAX`; whether the device
    /// launches it is [`GridShape::check`]'s to say.
    pub(crate) fn grid_over(
        self,
        blocks_per_sm: u32,
        multiprocessors: u32,
        domain: [u64; 3],
        covers: [u64; 3],
    ) -> GridShape {
        let per_item = per_item_sides(domain, covers);
        let side = |blocks: u64| u32::try_from(blocks.max(1)).unwrap_or(u32::MAX);
        let waves = match self {
            Self::PerItem => {
                return GridShape { x: side(per_item[0]), y: side(per_item[1]), z: side(per_item[2]) };
            }
            Self::OneWave => 1,
            Self::Waves(waves) => u64::from(waves.max(1)),
        };
        let [nx, ny, nz] = per_item;
        let wave = (u64::from(blocks_per_sm) * u64::from(multiprocessors) * waves).max(1);
        let x = nx.min(wave);
        let y = ny.min((wave / x).max(1));
        let z = nz.min((wave / (x * y)).max(1));
        GridShape { x: side(x), y: side(y), z: side(z) }
    }

    /// The grid of a row of `block`s over `items` items in x alone (`domain` `None`: a
    /// [`GridPolicy::grid_blocks`] grid in x) or over a domain ([`GridPolicy::grid_over`]).
    pub(crate) fn grid_for(
        self,
        blocks_per_sm: u32,
        multiprocessors: u32,
        items: u64,
        domain: Option<[u64; 3]>,
        block: BlockShape,
        covers: [u64; 3],
    ) -> GridShape {
        match domain {
            Some(domain) => self.grid_over(blocks_per_sm, multiprocessors, domain, covers),
            None => {
                GridShape::linear(self.grid_blocks(blocks_per_sm, multiprocessors, items, block.threads()))
            }
        }
    }

    /// The most blocks any row over `domain` whose blocks cover one of `covers` can launch,
    /// whatever the device and the policy: the largest per-item grid, within the 1-D grid
    /// limit. A buffer of one element per block of this many holds every row's.
    pub(crate) fn largest_grid_over(domain: [u64; 3], covers: impl IntoIterator<Item = [u64; 3]>) -> u32 {
        let most = covers
            .into_iter()
            .map(|covers| per_item_sides(domain, covers).iter().product::<u64>())
            .max()
            .unwrap_or(1)
            .clamp(1, u64::from(MAX_GRID_BLOCKS));
        u32::try_from(most).expect("clamped to the grid limit")
    }

    /// The most blocks any row of a sweep over `block_sizes` can launch over `items` items,
    /// whatever the device: `ceil(items / smallest block size)`, within the grid limit. A
    /// buffer of one element per block of this many holds every row's.
    pub(crate) fn largest_grid(items: u64, block_sizes: &[u32]) -> u32 {
        let smallest = block_sizes.iter().copied().min().unwrap_or(1).max(1);
        let blocks = items.div_ceil(u64::from(smallest)).clamp(1, u64::from(MAX_GRID_BLOCKS));
        u32::try_from(blocks).expect("clamped to the grid limit")
    }

    /// The name `--grid` takes and the JSON export writes: `one-wave`, `per-item`, `waves:3`.
    pub(crate) fn name(self) -> String {
        match self {
            Self::OneWave => "one-wave".to_string(),
            Self::PerItem => "per-item".to_string(),
            Self::Waves(waves) => format!("waves:{waves}"),
        }
    }

    /// The header's line for this policy, ending in a newline; empty for one wave, the seed's,
    /// whose header says nothing of it.
    pub(crate) fn header_line(self) -> String {
        match self {
            Self::OneWave => String::new(),
            other => format!("Grid: {other} (--grid {})\n", other.name()),
        }
    }
}

/// `ceil(W / x)`, `ceil(H / y)`, `ceil(D / z)` of a block covering `x x y x z` items: the
/// per-item grid's sides, each at least 1.
fn per_item_sides(domain: [u64; 3], covers: [u64; 3]) -> [u64; 3] {
    std::array::from_fn(|axis| domain[axis].div_ceil(covers[axis].max(1)).max(1))
}

/// A grid of about `blocks` blocks over a domain, for `block-size tail`, whose rows must give
/// every block the same share of the work and run in as many waves of `wave_blocks` as
/// `blocks` would: the grid `gx x gy x gz`, within the per-item grid `nx x ny x nz` (`domain`
/// over `covers`), that starts as many waves as `blocks` does (`ceil(gx gy gz / wave_blocks)`,
/// so that a one-wave row never spills a few blocks into a second wave) and, among those, makes
/// `|gx gy gz - blocks| / blocks + (imbalance - 1)` least, the imbalance being the most trips of
/// the grid-stride loop a block takes, `ceil(nx / gx) ceil(ny / gy) ceil(nz / gz)`, over the
/// mean, `nx ny nz / (gx gy gz)`. Ties go to the wider grid. Returns the grid and its imbalance.
pub(crate) fn grid_of_about(
    blocks: u32,
    wave_blocks: u32,
    domain: [u64; 3],
    covers: [u64; 3],
) -> (GridShape, f64) {
    let [nx, ny, nz] = per_item_sides(domain, covers);
    let wanted = u64::from(blocks.max(1));
    let waves_started = |launched: u64| (launched - 1) / u64::from(wave_blocks.max(1));
    let imbalance = |[gx, gy, gz]: [u64; 3]| {
        let most = nx.div_ceil(gx) * ny.div_ceil(gy) * nz.div_ceil(gz);
        most as f64 * (gx * gy * gz) as f64 / (nx * ny * nz) as f64
    };
    // Ordered: a grid of another wave count last, whatever its fit.
    let cost = |grid: [u64; 3]| {
        let launched = grid[0] * grid[1] * grid[2];
        let fit = launched.abs_diff(wanted) as f64 / wanted as f64 + (imbalance(grid) - 1.0);
        (waves_started(launched) != waves_started(wanted), fit)
    };
    // Sides near `target` (at most `most`): its floor and ceiling, and the least sides that
    // split `most` tiles into `most / target` and one more trips each (an even split).
    let around = |target: u64, most: u64| {
        let low = target.max(1);
        let trips = (most / low).max(1);
        [low, low + 1, most.div_ceil(trips), most.div_ceil(trips + 1)].map(|side| side.clamp(1, most))
    };
    let mut best = [nx.min(wanted), 1, 1];
    let mut best_cost = cost(best);
    let layers = if nx * ny >= wanted { [1; 4] } else { around(wanted / (nx * ny), nz) };
    for gz in layers {
        let plane = (wanted / gz).max(1);
        for gx in 1..=nx.min(plane) {
            for gy in around(plane / gx, ny) {
                let grid = [gx, gy, gz];
                let grid_cost = cost(grid);
                // A tie keeps the later grid: the wider.
                if grid_cost <= best_cost {
                    (best, best_cost) = (grid, grid_cost);
                }
            }
        }
    }
    let side = |blocks: u64| u32::try_from(blocks).unwrap_or(u32::MAX);
    (GridShape { x: side(best[0]), y: side(best[1]), z: side(best[2]) }, imbalance(best))
}

/// The items a block of `block` covers a trip with one item a thread: its sides.
pub(crate) fn sides(block: BlockShape) -> [u64; 3] {
    [block.x, block.y, block.z].map(u64::from)
}

/// In words: "one full wave per row", "one thread per item", "3 full waves per row".
impl fmt::Display for GridPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OneWave => f.write_str("one full wave per row"),
            Self::PerItem => f.write_str("one thread per item, ceil(items / threads) blocks"),
            Self::Waves(1) => f.write_str("1 full wave per row"),
            Self::Waves(waves) => write!(f, "{waves} full waves per row"),
        }
    }
}

/// `one-wave`, `per-item` or `waves:K` with `K` from 1.
impl FromStr for GridPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "one-wave" => Ok(Self::OneWave),
            "per-item" => Ok(Self::PerItem),
            other => other
                .strip_prefix("waves:")
                .and_then(|waves| waves.parse::<u32>().ok())
                .map(Self::Waves)
                .ok_or_else(|| format!("`{other}` is not one-wave, per-item or waves:K (K a whole number)")),
        }
    }
}

/// As `--grid` takes it: `one-wave`, `per-item`, `waves:K`.
impl Serialize for GridPolicy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tails_grid_over_a_domain_keeps_its_wave_count_and_shares_the_work_evenly() {
        // 4K frame, 32x8 blocks: a per-item grid of 120 x 270, 1056 blocks a wave.
        let (domain, covers) = ([3840, 2160, 1], [32, 8, 1]);
        let layout = |blocks| {
            let (grid, imbalance) = grid_of_about(blocks, 1056, domain, covers);
            ((grid.x, grid.y, grid.z), (imbalance * 1000.0).round() / 1000.0)
        };
        // Half a wave: 60 x 9, each block 2 x 30 tiles exactly.
        assert_eq!(layout(528), ((60, 9, 1), 1.0));
        // One wave: not 120 x 9 = 1080 blocks, whose 24 last would run as a second wave.
        assert_eq!(layout(1056), ((60, 17, 1), 1.007));
        assert_eq!(layout(1162), ((30, 39, 1), 1.011));
        assert_eq!(layout(2218), ((120, 18, 1), 1.0));
        // More blocks than the per-item grid has: the per-item grid, one trip each.
        assert_eq!(layout(40_000), ((120, 270, 1), 1.0));
        // A 3-D domain fills whole planes before it layers them.
        let (grid, imbalance) = grid_of_about(64, 64, [8, 8, 8], [2, 2, 2]);
        assert_eq!((grid.x * grid.y * grid.z, imbalance), (64, 1.0));
        // Blocks in x alone over a wide, short domain.
        let (grid, _) = grid_of_about(1056, 1056, [3840, 2160, 1], [1, 256, 1]);
        assert_eq!((grid.x, grid.y, grid.z), (350, 3, 1));
    }

    #[test]
    fn one_wave_is_the_seed_grid() {
        // 16 blocks/SM on 132 SMs, a 4K frame at 128 threads: one wave of 2112 blocks.
        assert_eq!(GridPolicy::OneWave.grid_blocks(16, 132, 8_294_400, 128), 2112);
        assert_eq!(GridPolicy::default(), GridPolicy::OneWave);
        // A small frame: no more blocks than it has pixels for.
        assert_eq!(GridPolicy::OneWave.grid_blocks(16, 132, 4096, 256), 16);
    }

    #[test]
    fn per_item_is_one_thread_per_item() {
        assert_eq!(GridPolicy::PerItem.grid_blocks(16, 132, 8_294_400, 128), 64_800);
        assert_eq!(GridPolicy::PerItem.grid_blocks(0, 132, 1000, 256), 4);
        assert_eq!(GridPolicy::PerItem.grid_blocks(0, 132, 0, 256), 1, "never an empty grid");
        assert_eq!(GridPolicy::PerItem.grid_blocks(1, 1, u64::MAX, 1), MAX_GRID_BLOCKS);
    }

    #[test]
    fn k_waves_are_k_times_the_wave_within_the_items() {
        assert_eq!(GridPolicy::Waves(3).grid_blocks(16, 132, 8_294_400, 128), 3 * 2112);
        assert_eq!(GridPolicy::Waves(1).grid_blocks(16, 132, 8_294_400, 128), 2112);
        assert_eq!(GridPolicy::Waves(8).grid_blocks(16, 132, 100_000, 128), 782, "capped at the items");
        assert_eq!(GridPolicy::Waves(2).grid_blocks(0, 132, 100_000, 128), 1, "no residency: one block");
    }

    #[test]
    fn the_largest_grid_bounds_every_policy() {
        let items = 1_000_003;
        let sizes = [32, 100, 1024];
        let largest = GridPolicy::largest_grid(items, &sizes);
        assert_eq!(largest, 31_251);
        for policy in [GridPolicy::OneWave, GridPolicy::PerItem, GridPolicy::Waves(1000)] {
            for threads in sizes {
                assert!(policy.grid_blocks(32, 132, items, threads) <= largest, "{policy:?} {threads}");
            }
        }
    }

    #[test]
    fn a_domain_gets_a_grid_of_its_dimensions_by_the_layout_rule() {
        let block = |text: &str| sides(text.parse::<BlockShape>().unwrap());
        let (width, height) = (3840, 2160);
        let domain = [width, height, 1];
        // Per item: one block per 32x8 tile of the 4K frame.
        assert_eq!(GridPolicy::PerItem.grid_over(16, 132, domain, block("32x8")).to_string(), "120x270");
        assert_eq!(GridPolicy::PerItem.grid_over(0, 132, domain, block("1000x3")).to_string(), "4x720");
        // One wave of 8 x 132 = 1056 blocks: whole rows of 120 blocks, 8 of them.
        let wave = GridPolicy::OneWave.grid_over(8, 132, domain, block("32x8"));
        assert_eq!((wave.to_string(), wave.blocks()), ("120x8".to_string(), 960));
        // Two waves: 2112 blocks, 17 rows of 120.
        assert_eq!(GridPolicy::Waves(2).grid_over(8, 132, domain, block("32x8")).to_string(), "120x17");
        // A wave wider than a row of the domain's blocks stays within the per-item grid.
        assert_eq!(GridPolicy::OneWave.grid_over(32, 132, [64, 64, 1], block("16x16")).to_string(), "4x4");
        // A wave narrower than one row: one row, B blocks wide.
        assert_eq!(GridPolicy::OneWave.grid_over(1, 100, [1 << 20, 64, 1], block("32x8")).to_string(), "100");
        // No residency still launches one block; a 3-D domain fills x, then y, then z.
        assert_eq!(GridPolicy::OneWave.grid_over(0, 132, domain, block("32x8")).to_string(), "1");
        assert_eq!(GridPolicy::OneWave.grid_over(4, 8, [64, 64, 64], block("8x8x8")).to_string(), "8x4");
        assert_eq!(GridPolicy::Waves(4).grid_over(4, 8, [64, 64, 64], block("8x8x8")).to_string(), "8x8x2");
        for policy in [GridPolicy::OneWave, GridPolicy::Waves(3), GridPolicy::PerItem] {
            for shape in ["32x8", "16x16", "256", "8x8x4"] {
                let grid = policy.grid_over(8, 132, domain, block(shape));
                assert!(grid.blocks() <= u64::from(GridPolicy::largest_grid_over(domain, [block(shape)])));
            }
        }
        // The largest per-item grid can exceed ceil(items / threads): 1000x1000 in 32x32 tiles.
        assert_eq!(GridPolicy::largest_grid_over([1000, 1000, 1], [block("32x32")]), 32 * 32);
        // A block that covers a 64 x 64 tile whatever its threads: one block a tile.
        assert_eq!(GridPolicy::PerItem.grid_over(8, 132, [4099, 4099, 1], [64, 64, 1]).to_string(), "65x65");
        assert_eq!(
            GridShape { x: 1, y: 70_000, z: 1 }
                .check(crate::model::block_shape::MAX_GRID_DIMENSIONS)
                .unwrap_err(),
            "grid 1x70000 has 70000 blocks in y, above the device's 65535"
        );
    }

    #[test]
    fn policies_parse_and_print_by_name() {
        for (text, policy) in [
            ("one-wave", GridPolicy::OneWave),
            ("per-item", GridPolicy::PerItem),
            ("waves:1", GridPolicy::Waves(1)),
            ("waves:12", GridPolicy::Waves(12)),
        ] {
            assert_eq!(text.parse::<GridPolicy>(), Ok(policy));
            assert_eq!(policy.name(), text);
            assert_eq!(serde_json::to_string(&policy).unwrap(), format!("\"{text}\""));
        }
        // waves:0 parses; the settings refuse it with their own line (settings.rs).
        for bad in ["waves:", "waves:-1", "wave", "One-Wave", ""] {
            assert!(
                bad.parse::<GridPolicy>().unwrap_err().contains("is not one-wave, per-item or waves:K"),
                "{bad}"
            );
        }
        assert_eq!(GridPolicy::OneWave.header_line(), "");
        assert_eq!(GridPolicy::Waves(2).header_line(), "Grid: 2 full waves per row (--grid waves:2)\n");
        assert_eq!(
            GridPolicy::PerItem.header_line(),
            "Grid: one thread per item, ceil(items / threads) blocks (--grid per-item)\n"
        );
    }
}
