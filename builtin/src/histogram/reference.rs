/*!
The host side of the `histogram` kernel: its input, a 12-bit integer luma of the synthetic
frame quantised to bins, and the CPU reference it is checked against, counted on every core
(rayon).

# The mapping, once

- Luma: `luma12(i)`, an integer 0 to 4095 for pixel `i` of the synthetic frame (below).
- Value: the host quantises each luma to its bin, `value = luma12 * bins / 4096` (integer
  division), which is below `bins` for every `bins` from 1 to 4096 and is `luma12` itself at
  4096 bins. These values, as `u16`, are what the kernel reads.
- Count: value `v` counts in bin `v`. A value `bins` or above counts nowhere, in the kernel and
  here alike (`quantise` never writes one).
- Counters are `u32` and wrap modulo 2^32, as the GPU's atomics do.

# The 12-bit luma of the synthetic frame

The frame is the seed's: `r = (i mod 251)/251`, `g = (i mod 241)/241`, `b = (i mod 239)/239`
(`frame.rs`). Its 12-bit luma is `round(4095 * (0.299 r + 0.587 g + 0.114 b))`, computed exactly
in integers: over the common denominator `D = 1000 * 251 * 241 * 239`,

```text
luma12 = (WR * (i mod 251) + WG * (i mod 241) + WB * (i mod 239) + D / 2) / D
WR = 4095 * 299 * 241 * 239,  WG = 4095 * 587 * 251 * 239,  WB = 4095 * 114 * 251 * 241
```

in `u64` (the numerator stays below 6.0e13), rounding halves up. No float is involved, so the
values do not depend on the platform or on FMA contraction, and every channel below 1
(`r <= 250/251`) keeps the luma at or below 4095.
*/

use rayon::prelude::*;

/// Name of the kernel entry point in the PTX (both the cuda_builder and the nvcc build).
pub const KERNEL_NAME: &str = "histogram";

/// Largest number of bins: one per 12-bit luma value.
pub const MAX_BINS: u32 = 4096;

/// Luma values are below this: 12 bits.
pub const LUMA_LEVELS: u32 = 4096;

/// Bytes of dynamic shared memory one block of the kernel needs: `bins` `u32` counters. This
/// is the `sharedMemBytes` of the launch, and the shared memory per block that occupancy
/// queries must be given.
pub fn dynamic_shared_bytes(bins: u32) -> u32 {
    assert!((1..=MAX_BINS).contains(&bins), "bins must be 1 to {MAX_BINS}, not {bins}");
    bins * 4
}

/// Shared-memory words the spread variants (`histogram_x8k2c`, `histogram_x8k4c`) give their
/// copies of the bins: 32 KiB a block, as `SPREAD_WORDS` in `kernels/src/histogram.rs`.
pub const SPREAD_WORDS: u32 = 8192;

/// Copies of the bins a block of the spread variants keeps, by the kernels' rule
/// (`histogram::copies` in `kernels/src/histogram.rs`, `copiesFor` in `kernels/cuda/histogram.cu`):
/// one per lane (32) while 32 copies of `bins` fit in [`SPREAD_WORDS`], else the largest power of
/// two that fits, at least 1. Lane `l` of a warp counts into copy `l % copies`.
pub fn copies(bins: u32) -> u32 {
    let fit = SPREAD_WORDS / bins.max(1);
    if fit >= 32 { 32 } else { 1 << (31 - fit.max(1).leading_zeros()) }
}

const PERIOD_RED: u64 = 251;
const PERIOD_GREEN: u64 = 241;
const PERIOD_BLUE: u64 = 239;
const DENOMINATOR: u64 = 1000 * PERIOD_RED * PERIOD_GREEN * PERIOD_BLUE;
const WEIGHT_RED: u64 = 4095 * 299 * PERIOD_GREEN * PERIOD_BLUE;
const WEIGHT_GREEN: u64 = 4095 * 587 * PERIOD_RED * PERIOD_BLUE;
const WEIGHT_BLUE: u64 = 4095 * 114 * PERIOD_RED * PERIOD_GREEN;

/// The 12-bit luma of pixel `i` of the synthetic frame: `round(4095 * luma)`, exactly.
pub fn luma12(i: usize) -> u16 {
    let i = i as u64;
    let numerator =
        WEIGHT_RED * (i % PERIOD_RED) + WEIGHT_GREEN * (i % PERIOD_GREEN) + WEIGHT_BLUE * (i % PERIOD_BLUE);
    ((numerator + DENOMINATOR / 2) / DENOMINATOR) as u16
}

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// The 12-bit luma plane of a synthetic frame of `pixels` pixels.
pub fn synthetic_luma12(pixels: usize) -> Vec<u16> {
    (0..pixels).map(luma12).collect()
}

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// Each 12-bit luma quantised to its bin: `luma12 * bins / 4096`.
///
/// # Panics
///
/// When `bins` is not 1 to 4096, or a luma is above 4095.
pub fn quantise(luma12: &[u16], bins: u32) -> Vec<u16> {
    assert!((1..=MAX_BINS).contains(&bins), "bins must be 1 to {MAX_BINS}, not {bins}");
    luma12
        .iter()
        .map(|&luma| {
            assert!(u32::from(luma) < LUMA_LEVELS, "luma {luma} has more than 12 bits");
            (u32::from(luma) * bins / LUMA_LEVELS) as u16
        })
        .collect()
}

/// Values one task of [`histogram`] counts alone before its counts are added to the others'.
const HISTOGRAM_CHUNK: usize = 1 << 20;

/// The histogram the kernel computes: `bins` counters, bin `v` counting the values equal to
/// `v`; values `bins` or above count nowhere. Counters wrap modulo 2^32, as on the GPU. Each
/// chunk of values is counted on its own core, and the chunks' counts added.
pub fn histogram(values: &[u16], bins: u32) -> Vec<u32> {
    let count = |chunk: &[u16]| {
        let mut counts = vec![0u32; bins as usize];
        for &value in chunk {
            if let Some(count) = counts.get_mut(usize::from(value)) {
                *count = count.wrapping_add(1);
            }
        }
        counts
    };
    if values.len() <= HISTOGRAM_CHUNK {
        return count(values);
    }
    values.par_chunks(HISTOGRAM_CHUNK).map(count).reduce(
        || vec![0u32; bins as usize],
        |mut sum, part| {
            sum.iter_mut().zip(part).for_each(|(sum, part)| *sum = sum.wrapping_add(part));
            sum
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, in floating point: the integer formula must agree wherever f64 can
    /// tell (it can everywhere the fraction is not within 1e-9 of a half).
    fn luma12_f64(i: usize) -> f64 {
        let r = (i % 251) as f64 / 251.0;
        let g = (i % 241) as f64 / 241.0;
        let b = (i % 239) as f64 / 239.0;
        4095.0 * (0.299 * r + 0.587 * g + 0.114 * b)
    }

    #[test]
    fn counting_in_parallel_chunks_is_counting_once() {
        // Past three chunks, with values above the bins that count nowhere.
        let values: Vec<u16> = (0..3 * HISTOGRAM_CHUNK + 12_345).map(|i| luma12(i) / 15).collect();
        let mut serial = vec![0u32; 256];
        for &value in &values {
            if let Some(count) = serial.get_mut(usize::from(value)) {
                *count += 1;
            }
        }
        let counted = histogram(&values, 256);
        assert_eq!(counted, serial);
        assert!(counted.iter().map(|&count| count as usize).sum::<usize>() < values.len());
    }

    #[test]
    fn integer_luma_is_the_rounded_real_luma() {
        let check = |i: usize| {
            let real = luma12_f64(i);
            if (real.fract() - 0.5).abs() > 1e-9 {
                assert_eq!(f64::from(luma12(i)), real.round(), "pixel {i}: {real}");
            }
        };
        (0..200_000).for_each(check);
        // A sample of the whole period (251 * 241 * 239 pixels), and past it.
        (0..30_000_000).step_by(997).for_each(check);
    }

    #[test]
    fn luma_is_12_bit_and_periodic() {
        assert_eq!(luma12(0), 0);
        let period = 251 * 241 * 239;
        // The brightest pixel of the period is its last, where every channel is at its
        // largest (250/251, 240/241, 238/239): round(4095 * 0.99590) = 4078.
        assert_eq!(luma12(period - 1), 4078);
        assert!((0..period).step_by(101).map(luma12).all(|l| l <= 4078));
        for i in [1, 250, 251, 1000, 123_457, period - 1] {
            assert_eq!(luma12(i), luma12(i + period));
        }
    }

    #[test]
    fn synthetic_plane_is_luma12_of_each_pixel() {
        let plane = synthetic_luma12(3840);
        assert_eq!(plane.len(), 3840);
        assert!(plane.iter().enumerate().all(|(i, &l)| l == luma12(i)));
        // Pixel 1: 4095 * (0.299/251 + 0.587/241 + 0.114/239) = 16.806...
        assert_eq!(plane[1], 17);
    }

    #[test]
    fn quantise_maps_12_bits_onto_bins() {
        let all: Vec<u16> = (0..4096).collect();
        assert_eq!(quantise(&all, 4096), all);
        assert!(quantise(&all, 1).iter().all(|&v| v == 0));
        assert_eq!(quantise(&all, 256), all.iter().map(|&l| l >> 4).collect::<Vec<_>>());
        for bins in [1, 2, 3, 7, 100, 255, 1000, 4095, 4096] {
            let values = quantise(&all, bins);
            assert!(values.iter().all(|&v| u32::from(v) < bins), "bins {bins}");
            assert!(values.windows(2).all(|w| w[0] <= w[1]), "bins {bins}: not monotonic");
            assert_eq!(values[0], 0);
            assert_eq!(u32::from(values[4095]), bins - 1, "bins {bins}: last bin unused");
            // Every bin gets floor or ceil of 4096 / bins luma levels.
            let counts = histogram(&values, bins);
            assert!(counts.iter().all(|&c| c == 4096 / bins || c == 4096 / bins + 1), "bins {bins}");
        }
    }

    #[test]
    #[should_panic(expected = "bins must be 1 to 4096")]
    fn quantise_rejects_zero_bins() {
        quantise(&[0], 0);
    }

    #[test]
    #[should_panic(expected = "bins must be 1 to 4096")]
    fn quantise_rejects_more_than_4096_bins() {
        quantise(&[0], 4097);
    }

    #[test]
    #[should_panic(expected = "more than 12 bits")]
    fn quantise_rejects_13_bit_luma() {
        quantise(&[4096], 16);
    }

    #[test]
    fn histogram_counts_each_value_in_its_bin() {
        assert_eq!(histogram(&[], 4), vec![0, 0, 0, 0]);
        assert_eq!(histogram(&[2], 4), vec![0, 0, 1, 0]);
        assert_eq!(histogram(&[0, 3, 3, 1, 3, 0, 2], 4), vec![2, 1, 1, 3]);
        assert_eq!(histogram(&[0, 0, 0], 1), vec![3]);
    }

    #[test]
    fn values_out_of_range_count_nowhere() {
        assert_eq!(histogram(&[0, 4, 5, 65535, 1], 2), vec![1, 1]);
    }

    #[test]
    fn histogram_of_the_frame_counts_every_pixel_once() {
        // A prime number of pixels, as the GPU tests should use too.
        let pixels = 100_003;
        let luma = synthetic_luma12(pixels);
        for bins in [1, 3, 64, 256, 1000, 4096] {
            let counts = histogram(&quantise(&luma, bins), bins);
            assert_eq!(counts.len(), bins as usize);
            assert_eq!(counts.iter().map(|&c| u64::from(c)).sum::<u64>(), pixels as u64, "bins {bins}");
        }
        // 4096 bins: the counts are the luma histogram itself.
        let counts = histogram(&quantise(&luma, 4096), 4096);
        assert_eq!(counts[0], luma.iter().filter(|&&l| l == 0).count() as u32);
    }

    #[test]
    fn copies_are_one_per_lane_until_32_kib_and_a_power_of_two_after() {
        for bins in [1, 7, 100, 255, 256] {
            assert_eq!(copies(bins), 32, "bins {bins}");
        }
        for (bins, want) in
            [(257, 16), (512, 16), (513, 8), (1024, 8), (2048, 4), (2730, 2), (2731, 2), (4096, 2)]
        {
            assert_eq!(copies(bins), want, "bins {bins}");
        }
        for bins in 1..=MAX_BINS {
            let copies = copies(bins);
            assert!(copies.is_power_of_two() && copies <= 32, "bins {bins}");
            assert!(copies * bins <= SPREAD_WORDS, "bins {bins}: {copies} copies do not fit");
            assert!(
                copies == 32 || 2 * copies * bins > SPREAD_WORDS,
                "bins {bins}: {copies} is not the most"
            );
        }
        assert_eq!(copies(0), 32, "no bins: no division by zero");
        assert_eq!(copies(u32::MAX), 1);
    }

    #[test]
    fn shared_memory_is_four_bytes_a_bin() {
        assert_eq!(dynamic_shared_bytes(1), 4);
        assert_eq!(dynamic_shared_bytes(256), 1024);
        assert_eq!(dynamic_shared_bytes(4096), 16384);
    }
}
