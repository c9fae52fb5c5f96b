/*!
The synthetic frame and the CPU reference every row is checked against.

The frame is the one `block_size.cu` builds (`r = (i mod 251)/251`, `g = (i mod 241)/241`,
`b = (i mod 239)/239`), so a table from this program and one from the C++ program describe the
same input. The reference computes each pixel with the very function the GPU kernel uses
(`kernels/src/luma.rs`, compiled into both), from the pattern itself, once a run: the runner
uploads it and compares every row with it on the GPU ([`block_size_runner::Check::expected`]).

Every pass over a frame here (its planes, the reference) runs on every core (rayon): a
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

/// The luma plane of the synthetic frame for `pixels` pixels, as the kernel computes it: what
/// every row's output is checked against. Written on every core; an error instead of an abort
/// when the host cannot hold it.
pub fn luma_plane(pixels: usize) -> Result<Vec<f32>> {
    let mut values = Vec::new();
    values.try_reserve_exact(pixels).with_context(|| {
        format!(
            "cannot allocate {:.1} MiB of host memory for the CPU reference",
            pixels as f64 * 4.0 / 1048576.0
        )
    })?;
    (0..pixels).into_par_iter().map(luma_at).collect_into_vec(&mut values);
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_luma_plane_is_the_reference_of_every_pixel() {
        let plane = luma_plane(1000).unwrap();
        assert_eq!(plane.len(), 1000);
        assert!(plane.iter().enumerate().all(|(i, &value)| value == luma_at(i)));
    }
}
