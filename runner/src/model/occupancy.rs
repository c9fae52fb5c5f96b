/*!
Launch arithmetic that needs no GPU: warp slots, idle lanes, occupancy and the one-wave grid.

The driver answers how many blocks fit on an SM (`cuOccupancyMaxActiveBlocksPerMultiprocessor`);
everything derived from that answer lives here, as plain functions the tests can pin down.
*/

/// `block_size.cu`'s block sizes: every power of two from 16 to 1024, and 96, 100, 160, 192,
/// 384 and 768.
pub const DEFAULT_BLOCK_SIZES: [u32; 13] = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];

/// Threads per warp that the `warps` and `idle` columns assume. `warpSize` is a run-time
/// property of a device, so the sweep checks every GPU it runs on against this value.
pub const WARP_SIZE: u32 = 32;

/// Warp slots one block of `threads_per_block` threads takes on an SM: the hardware
/// schedules whole warps, so this rounds up (100 threads take 4 slots).
pub fn warps_per_block(threads_per_block: u32) -> u32 {
    threads_per_block.div_ceil(WARP_SIZE)
}

/// Lanes of those warp slots that never run a thread: 28 for a 100-thread block.
pub fn idle_lanes(threads_per_block: u32) -> u32 {
    warps_per_block(threads_per_block) * WARP_SIZE - threads_per_block
}

/// Fraction of an SM's warp slots that `resident_warps` fill, in percent.
pub fn occupancy_percent(resident_warps: u32, max_warps_per_sm: u32) -> f64 {
    100.0 * f64::from(resident_warps) / f64::from(max_warps_per_sm)
}

/// Blocks in one full wave: as many as the whole device holds at once
/// (`blocks_per_sm` x `multiprocessors`).
///
/// The grid-stride kernel covers any frame with any grid, so the grid can be a property of
/// the machine rather than of the frame. Two bounds keep it a sensible launch: it never
/// exceeds the blocks a one-thread-per-pixel launch would need (`ceil(pixels / threads)`),
/// since extra blocks would find no pixel to convert, and it is never zero, since a grid
/// of zero blocks is not a launch. A zero residency therefore still launches one block;
/// the sweep reports that row as a failed check.
pub fn one_wave_grid(blocks_per_sm: u32, multiprocessors: u32, pixels: u64, threads_per_block: u32) -> u32 {
    let wave = u64::from(blocks_per_sm) * u64::from(multiprocessors);
    let needed = pixels.div_ceil(u64::from(threads_per_block));
    let blocks = wave.min(needed).max(1);
    // wave <= u32::MAX * u32::MAX in principle, but blocks_per_sm <= 32 and SMs are in the
    // hundreds, so the minimum always fits the driver's 2^31 - 1 grid limit.
    u32::try_from(blocks).expect("one wave of blocks fits in u32")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warps_round_up_to_whole_warps() {
        let sizes = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];
        let warps: Vec<u32> = sizes.iter().map(|&t| warps_per_block(t)).collect();
        assert_eq!(warps, [1, 1, 2, 3, 4, 4, 5, 6, 8, 12, 16, 24, 32]);
        assert_eq!(warps_per_block(1), 1);
        assert_eq!(warps_per_block(33), 2);
    }

    #[test]
    fn idle_lanes_count_the_unused_part_of_the_last_warp() {
        assert_eq!(idle_lanes(16), 16);
        assert_eq!(idle_lanes(100), 28);
        assert_eq!(idle_lanes(1), 31);
        for multiple in [32, 64, 96, 1024] {
            assert_eq!(idle_lanes(multiple), 0);
        }
    }

    #[test]
    fn occupancy_is_resident_over_maximum_warps() {
        assert_eq!(occupancy_percent(64, 64), 100.0);
        assert_eq!(occupancy_percent(30, 32), 93.75);
        assert_eq!(occupancy_percent(16, 32), 50.0);
    }

    #[test]
    fn grid_is_one_full_wave_on_a_large_frame() {
        // H200: 132 SMs, 8 blocks of 256 threads each; a 4K frame needs 32,400 blocks.
        assert_eq!(one_wave_grid(8, 132, 3840 * 2160, 256), 1056);
        // T4 at 1024 threads: one block per SM on 40 SMs.
        assert_eq!(one_wave_grid(1, 40, 3840 * 2160, 1024), 40);
    }

    #[test]
    fn grid_is_capped_at_the_blocks_the_frame_needs() {
        // 1000 pixels at 128 threads need ceil(1000/128) = 8 blocks, far below a wave.
        assert_eq!(one_wave_grid(16, 132, 1000, 128), 8);
        // A one-pixel frame needs exactly one block at any block size.
        assert_eq!(one_wave_grid(32, 132, 1, 1024), 1);
        // Exactly divisible: 1024 pixels at 256 threads need 4 blocks.
        assert_eq!(one_wave_grid(8, 132, 1024, 256), 4);
    }

    #[test]
    fn grid_is_floored_at_one_block() {
        assert_eq!(one_wave_grid(0, 132, 3840 * 2160, 256), 1);
    }
}
