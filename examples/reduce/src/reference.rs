//! The CPU reference of the example kernels `sum_of_squares` and `sum_of_squares_x4`
//! (`examples/reduce/kernels`), and how far the GPU's answer may be from it.
//!
//! The kernels write one `f32` partial per block; the host adds the partials (in `f64`) and
//! compares the total with [`sum_of_squares`] within [`relative_error_bound`].

/// The sum of the squares of `x`, accumulated in `f64`: what the GPU's partials add up to, up to
/// the rounding of its `f32` arithmetic ([`relative_error_bound`]).
///
/// Each square is exact in `f64` (an `f32` has 24 significant bits, its square at most 48), so
/// the only rounding is that of the `f64` additions, at most `(n - 1) * 2^-53` relative for
/// `n` values. An empty slice gives `0.0`.
pub fn sum_of_squares(x: &[f32]) -> f64 {
    x.iter().map(|&value| f64::from(value) * f64::from(value)).sum()
}

/// The largest relative difference, against [`sum_of_squares`], of the host's total (the
/// partials of a launch of `grid_blocks` blocks of `threads_per_block` threads over `n`
/// values, added in `f64`), for either kernel: a rigorous bound, not an estimate.
///
/// Each thread adds the squares of at most `k = ceil(n / (grid_blocks * threads_per_block))`
/// values into an `f32`, one rounding per value (a fused multiply-add; two without fusion,
/// which the same bound covers); the block's tree adds `d = ceil(log2(threads_per_block))`
/// levels, each value passing through at most `d` more `f32` roundings. Every term is
/// non-negative, so with `u = 2^-24` the block's partial is within `γ(k + d) = (k + d) u /
/// (1 - (k + d) u)` of its exact value, relatively. Adding the `f64` roundings of the host's
/// sum of partials and of the reference itself gives the bound returned: for a million values
/// on 264 blocks of 256 threads (`k = 15`, `d = 8`), about `1.4e-6`.
///
/// It holds while no square is subnormal (a non-zero `|x|` below `2^-63`, about `1.1e-19`)
/// and nothing overflows `f32` (the total stays below `f32::MAX`, about `3.4e38`); zeros are
/// fine. It is infinite when `k + d` reaches `2^24`, where `f32` accumulation guarantees
/// nothing.
///
/// # Panics
///
/// When `grid_blocks` or `threads_per_block` is zero: no launch has such a shape.
pub fn relative_error_bound(n: usize, grid_blocks: usize, threads_per_block: usize) -> f64 {
    assert!(grid_blocks > 0 && threads_per_block > 0, "a launch has at least one block and one thread");
    let threads = grid_blocks.saturating_mul(threads_per_block);
    let per_thread = n.div_ceil(threads);
    let depth = threads_per_block.next_power_of_two().trailing_zeros() as usize;
    let gamma = |rounds: usize, unit: f64| {
        let rounds = rounds as f64 * unit;
        if rounds < 1.0 { rounds / (1.0 - rounds) } else { f64::INFINITY }
    };
    let f32_unit = f64::from(f32::EPSILON) / 2.0;
    let f64_unit = f64::EPSILON / 2.0;
    // The GPU's partials, the host's f64 sum of them, and the reference's own rounding.
    let reference = gamma(n, f64_unit);
    (gamma(per_thread + depth, f32_unit) + 2.0 * gamma(grid_blocks + n, f64_unit)) / (1.0 - reference)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The partials of the two kernels as a CPU model: the same elements per thread in the same
    /// order (`items` per trip, a grid apart, then the tail), `f32` fused multiply-adds, and the
    /// same shared-memory tree with its guard for block sizes that are not powers of two.
    fn gpu_partials(x: &[f32], grid: usize, block: usize, items: usize) -> Vec<f32> {
        let step = grid * block;
        (0..grid)
            .map(|b| {
                let mut shared: Vec<f32> = (0..block)
                    .map(|t| {
                        let mut sum = 0.0f32;
                        let mut i = b * block + t;
                        while i + (items - 1) * step < x.len() {
                            for k in 0..items {
                                sum = x[i + k * step].mul_add(x[i + k * step], sum);
                            }
                            i += items * step;
                        }
                        while i < x.len() {
                            sum = x[i].mul_add(x[i], sum);
                            i += step;
                        }
                        sum
                    })
                    .collect();
                block_tree(&mut shared);
                shared[0]
            })
            .collect()
    }

    /// The kernels' tree over one block's slots: strides `p/2, p/4, ..., 1` for `p` the block
    /// size rounded up to a power of two, slot `t + stride` added into slot `t` where it exists.
    fn block_tree(shared: &mut [f32]) {
        let threads = shared.len();
        let mut stride = threads.next_power_of_two() / 2;
        while stride > 0 {
            for t in 0..stride {
                if t + stride < threads {
                    shared[t] += shared[t + stride];
                }
            }
            stride /= 2;
        }
    }

    /// Deterministic values in `[-scale, scale)`, no dependency needed.
    fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
                (2.0 * unit - 1.0) * scale
            })
            .collect()
    }

    #[test]
    fn the_reference_of_small_vectors() {
        assert_eq!(sum_of_squares(&[]), 0.0);
        assert_eq!(sum_of_squares(&[3.0, -4.0]), 25.0);
        assert_eq!(sum_of_squares(&[-0.5; 8]), 2.0);
        assert_eq!(sum_of_squares(&[0.0, -0.0]), 0.0);
    }

    #[test]
    fn the_reference_squares_exactly_in_f64() {
        // 2^24 - 1, the largest odd f32 integer: its square needs 48 bits, which f32 rounds away.
        let largest = 16_777_215.0f32;
        assert_eq!(sum_of_squares(&[largest]), 281_474_943_156_225.0);
        assert_ne!(f64::from(largest * largest), 281_474_943_156_225.0);
    }

    #[test]
    fn the_tree_counts_every_slot_once_at_every_block_size() {
        // Integers small enough for exact f32 sums: any slot lost or added twice shows.
        for block in 1..=1024 {
            let mut shared: Vec<f32> = (1..=block).map(|t| t as f32).collect();
            block_tree(&mut shared);
            assert_eq!(shared[0], (block * (block + 1) / 2) as f32, "block size {block}");
        }
    }

    #[test]
    fn every_element_is_counted_once_for_any_launch_and_both_entries() {
        // Ones: the exact total is n, which both entries must reach through any grid and block.
        for n in [0, 1, 31, 1000, 4099] {
            let x = vec![1.0f32; n];
            for (grid, block) in [(1, 1), (1, 100), (3, 7), (5, 64), (2, 1024), (7, 1000)] {
                for items in [1, 4] {
                    let partials = gpu_partials(&x, grid, block, items);
                    assert_eq!(partials.len(), grid);
                    let total: f64 = partials.iter().copied().map(f64::from).sum();
                    assert_eq!(total, n as f64, "n {n}, grid {grid}, block {block}, x{items}");
                }
            }
        }
    }

    #[test]
    fn both_entries_stay_within_the_bound_and_agree_bit_for_bit() {
        for (n, scale) in [(100_000, 1.0), (262_147, 1e3), (65_536, 1e-6)] {
            let x = values(n, n as u64, scale);
            let reference = sum_of_squares(&x);
            for (grid, block) in [(1, 1), (1, 32), (3, 100), (8, 256), (13, 96), (2, 1024), (264, 1024)] {
                let x1 = gpu_partials(&x, grid, block, 1);
                let x4 = gpu_partials(&x, grid, block, 4);
                let bits = |partials: &[f32]| partials.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&x1), bits(&x4), "same elements, same order: same partials");
                let total: f64 = x1.iter().copied().map(f64::from).sum();
                let error = (total - reference).abs() / reference;
                let bound = relative_error_bound(n, grid, block);
                assert!(error <= bound, "n {n}, grid {grid}, block {block}: {error:e} > {bound:e}");
            }
        }
    }

    #[test]
    fn the_bound_follows_the_values_per_thread_and_the_tree_depth() {
        let unit = f64::from(f32::EPSILON) / 2.0;
        // One value per thread, one thread: one f32 rounding (and f64 noise).
        let one = relative_error_bound(1, 1, 1);
        assert!(one >= unit && one < 1.01 * unit, "{one:e}");
        // A million values on a one-wave grid of 264 blocks of 256 threads: k = 15, d = 8.
        let wave = relative_error_bound(1_000_000, 264, 256);
        assert!(wave >= 23.0 * unit && wave < 23.1 * unit, "{wave:e}");
        // Non-powers of two round the depth up: 100 threads take 7 levels, as 128 do.
        assert_eq!(relative_error_bound(65, 1, 65), relative_error_bound(65, 1, 128));
        assert!(relative_error_bound(10_000, 1, 100) > relative_error_bound(10_000, 1, 128));
        // Fewer threads, more values each: a larger bound; none at all past 2^24 per thread.
        assert!(relative_error_bound(1 << 20, 1, 32) > relative_error_bound(1 << 20, 8, 32));
        assert_eq!(relative_error_bound(1 << 25, 1, 1), f64::INFINITY);
    }

    #[test]
    #[should_panic(expected = "at least one block")]
    fn an_empty_launch_has_no_bound() {
        relative_error_bound(10, 0, 256);
    }
}
