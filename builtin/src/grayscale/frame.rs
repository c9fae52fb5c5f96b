/*!
The synthetic frame, the CPU reference and the comparison that checks every row.

The frame is the one `block_size.cu` builds (`r = (i mod 251)/251`, `g = (i mod 241)/241`,
`b = (i mod 239)/239`), so a table from this program and one from the C++ program describe the
same input. The reference computes each pixel with the very function the GPU kernel uses
(`kernels/src/luma.rs`, compiled into both), from the pattern itself, so no reference plane is
kept on the host.

Every pass over a frame here (its planes, the comparison) runs on every core (rayon): a
65536 x 65537 frame is 4.3 G pixels, and no step of the host's is a single-threaded pass over it.
*/

use anyhow::{Context as _, Result};
use rayon::prelude::*;

#[path = "kernel_luma.rs"]
pub mod luma;

/// Relative tolerance of the reference check. The GPU may contract the multiply-adds into
/// FMAs and the CPU does not, so the last bit or two can differ.
pub const RELATIVE_TOLERANCE: f32 = 1e-5;

/// The periods of the red, green and blue planes: different, so that a kernel that read one
/// plane twice, or two planes swapped, computes a different luma and is caught.
pub const PERIODS: [usize; 3] = [251, 241, 239];

/// Pixel `i` of the plane of `period`: `(i mod period) / period`.
pub fn channel(i: usize, period: usize) -> f32 {
    (i % period) as f32 / period as f32
}

/// The luma of pixel `i` of the synthetic frame, as the kernel computes it.
pub fn luma_at(i: usize) -> f32 {
    let [red, green, blue] = PERIODS.map(|period| channel(i, period));
    luma::luma(red, green, blue)
}

/// The plane of `period` for `pixels` pixels, written on every core; an error instead of an
/// abort when the host cannot hold it.
pub fn plane(pixels: usize, period: usize) -> Result<Vec<f32>> {
    let mut values = Vec::new();
    values.try_reserve_exact(pixels).with_context(|| {
        format!("cannot allocate {:.1} MiB of host memory for a frame plane", pixels as f64 * 4.0 / 1048576.0)
    })?;
    // Into the capacity just reserved: collect_into_vec allocates nothing more.
    (0..pixels).into_par_iter().map(|i| channel(i, period)).collect_into_vec(&mut values);
    Ok(values)
}

/// A pixel where the GPU and the CPU disagree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrongPixel {
    /// The pixel.
    pub index: usize,
    /// What the GPU computed.
    pub got: f32,
    /// What the CPU reference says.
    pub want: f32,
}

/// Whether `got` is within `relative_tolerance` of `want`, relative to `|want|` (or absolute
/// where `want` is 0). NaN never is.
fn within(got: f32, want: f32, relative_tolerance: f32) -> bool {
    let scale = if want == 0.0 { 1.0 } else { want.abs() };
    (got - want).abs() <= relative_tolerance * scale
}

/// The first pixel of `got` that is not within `relative_tolerance` of `want(pixel)`, of
/// `pixels` pixels. The index names the failing block, where a bare "wrong" would not; a length
/// difference is a mismatch at the first missing index.
pub fn first_mismatch(
    got: &[f32],
    pixels: usize,
    want: impl Fn(usize) -> f32 + Sync,
    relative_tolerance: f32,
) -> Option<WrongPixel> {
    let found = got
        .par_iter()
        .take(pixels)
        .enumerate()
        .position_first(|(i, &value)| !within(value, want(i), relative_tolerance));
    if let Some(index) = found {
        return Some(WrongPixel { index, got: got[index], want: want(index) });
    }
    (got.len() != pixels).then(|| {
        let index = got.len().min(pixels);
        WrongPixel {
            index,
            got: got.get(index).copied().unwrap_or(f32::NAN),
            want: if index < pixels { want(index) } else { f32::NAN },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn against(want: &[f32]) -> impl Fn(usize) -> f32 + Sync + '_ {
        move |i| want[i]
    }

    #[test]
    fn the_planes_follow_the_seed_pattern() {
        let [red, green, blue] = PERIODS.map(|period| plane(600, period).unwrap());
        assert_eq!(red[0], 0.0);
        assert_eq!(red[250], 250.0 / 251.0);
        assert_eq!(red[251], 0.0);
        assert_eq!(green[241], 0.0);
        assert_eq!(green[242], 1.0 / 241.0);
        assert_eq!(blue[599], (599 % 239) as f32 / 239.0);
        let i = 500;
        assert_eq!(luma_at(i), luma::luma(red[i], green[i], blue[i]));
    }

    #[test]
    fn the_reference_applies_rec601_weights() {
        let i = 500;
        let want = 0.299 * channel(i, 251) + 0.587 * channel(i, 241) + 0.114 * channel(i, 239);
        assert_eq!(luma_at(i), want);
        // A white pixel has luma 1: the weights sum to one.
        assert!((luma::luma(1.0, 1.0, 1.0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn identical_outputs_have_no_mismatch() {
        let want = vec![0.0, 0.5, 1.0];
        assert_eq!(first_mismatch(&want, 3, against(&want), RELATIVE_TOLERANCE), None);
    }

    #[test]
    fn difference_within_tolerance_passes_and_beyond_fails() {
        let want = [0.5f32];
        assert_eq!(first_mismatch(&[0.500_004], 1, against(&want), RELATIVE_TOLERANCE), None);
        let found = first_mismatch(&[0.5001], 1, against(&want), RELATIVE_TOLERANCE).unwrap();
        assert_eq!((found.index, found.got), (0, 0.5001));
    }

    #[test]
    fn the_first_of_several_mismatches_is_reported_even_across_cores() {
        let want = vec![0.25f32; 5_000_000];
        let mut got = want.clone();
        got[4_900_000] = 1.0;
        got[3_000_001] = 1.0;
        got[1_234_567] = f32::NAN;
        assert_eq!(
            first_mismatch(&got, got.len(), against(&want), RELATIVE_TOLERANCE).unwrap().index,
            1_234_567
        );
        let mut got = vec![1.0f32; 10];
        got[7] = 0.0;
        got[3] = 2.0;
        let found = first_mismatch(&got, 10, |_| 1.0, RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found, WrongPixel { index: 3, got: 2.0, want: 1.0 });
    }

    #[test]
    fn zero_reference_uses_an_absolute_tolerance_and_nan_never_passes() {
        assert_eq!(first_mismatch(&[5e-6], 1, |_| 0.0, RELATIVE_TOLERANCE), None);
        assert!(first_mismatch(&[5e-5], 1, |_| 0.0, RELATIVE_TOLERANCE).is_some());
        let found = first_mismatch(&[0.0, f32::NAN], 2, against(&[0.0, 0.3]), RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found.index, 1);
    }

    #[test]
    fn a_short_output_is_a_mismatch_at_its_end() {
        let found = first_mismatch(&[1.0], 2, against(&[1.0, 2.0]), RELATIVE_TOLERANCE).unwrap();
        assert_eq!((found.index, found.want), (1, 2.0));
    }
}
