/*!
The synthetic frame, the CPU reference and the comparison that checks every row.

The frame is the one `block_size.cu` builds (`r = (i mod 251)/251`, `g = (i mod 241)/241`,
`b = (i mod 239)/239`), so a table from this program and one from the C++ program describe the
same input. The reference computes each pixel with the very function the GPU kernel uses
(`kernels/src/luma.rs`, compiled into both).

Every pass over a frame here (its planes, its reference, the comparison) runs on every core
(rayon): a 65536 x 65537 frame is 4.3 G pixels, and no step of the host's is a single-threaded
pass over it.
*/

use crate::model::frame_size::{FrameSize, mib};
use anyhow::{Context as _, Result};
use rayon::prelude::*;

#[path = "kernel_luma.rs"]
pub mod luma;

/// Relative tolerance of the reference check. The GPU may contract the multiply-adds into
/// FMAs and the CPU does not, so the last bit or two can differ.
pub const RELATIVE_TOLERANCE: f32 = 1e-5;

/// Bytes per pixel one pass moves: three planes read and one written, 4 bytes each. The
/// device holds the same four planes. A count past 64 bits (`FrameSize::bytes` is `None`)
/// is a frame no device holds.
pub const BYTES_PER_PIXEL: u64 = 4 * 4;

/// Host bytes per pixel a run holds: the three input planes, the CPU reference and the
/// output copied back, 4 bytes each.
pub const HOST_BYTES_PER_PIXEL: u64 = 5 * 4;

/// Three planar float channels.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Width and height.
    pub size: FrameSize,
    /// The red plane, row by row.
    pub red: Vec<f32>,
    /// The green plane.
    pub green: Vec<f32>,
    /// The blue plane.
    pub blue: Vec<f32>,
}

impl Frame {
    /// The seed's pattern. The three planes have different periods, so a kernel that read
    /// one plane twice, or two planes swapped, would produce different luma and be caught.
    pub fn synthetic(size: FrameSize) -> Result<Self> {
        let pixels = size.host_pixels()?;
        let plane = |period: usize| -> Result<Vec<f32>> {
            let mut values = host_vec(pixels)?;
            // Into the capacity just reserved: collect_into_vec allocates nothing more.
            (0..pixels)
                .into_par_iter()
                .map(|i| (i % period) as f32 / period as f32)
                .collect_into_vec(&mut values);
            Ok(values)
        };
        Ok(Self { size, red: plane(251)?, green: plane(241)?, blue: plane(239)? })
    }

    /// Pixels in the frame.
    pub fn pixels(&self) -> usize {
        self.red.len()
    }

    /// The CPU reference output.
    pub fn reference(&self) -> Result<Vec<f32>> {
        let mut out = host_vec(self.pixels())?;
        self.red
            .par_iter()
            .zip(self.green.par_iter())
            .zip(self.blue.par_iter())
            .map(|((&r, &g), &b)| luma::luma(r, g, b))
            .collect_into_vec(&mut out);
        Ok(out)
    }
}

/// `len` zeros, written on every core, or an error instead of an abort when the host cannot
/// hold them.
pub fn host_zeros(len: usize) -> Result<Vec<f32>> {
    let mut values = host_vec(len)?;
    rayon::iter::repeat_n(0.0, len).collect_into_vec(&mut values);
    Ok(values)
}

/// An empty vector with room for `len` floats, or an error instead of an abort when the
/// host cannot hold them.
pub fn host_vec(len: usize) -> Result<Vec<f32>> {
    let mut values = Vec::new();
    values.try_reserve_exact(len).with_context(|| {
        format!("cannot allocate {:.1} MiB of host memory for a frame plane", mib(len as f64 * 4.0))
    })?;
    Ok(values)
}

/// A pixel where the GPU and the CPU disagree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mismatch {
    /// The pixel.
    pub index: usize,
    /// What the GPU computed.
    pub got: f32,
    /// What the CPU reference says.
    pub want: f32,
}

/// The first index where `got` is not within `relative_tolerance` of `want`, relative to
/// `|want|` (or absolute where `want` is 0). The index names the failing block, where a
/// bare "wrong" would not. NaN never passes, and a length difference is a mismatch at the
/// first missing index.
pub fn first_mismatch(got: &[f32], want: &[f32], relative_tolerance: f32) -> Option<Mismatch> {
    let within = |g: f32, w: f32| {
        let scale = if w == 0.0 { 1.0 } else { w.abs() };
        (g - w).abs() <= relative_tolerance * scale
    };
    if let Some(index) = got.par_iter().zip(want.par_iter()).position_first(|(&g, &w)| !within(g, w)) {
        return Some(Mismatch { index, got: got[index], want: want[index] });
    }
    (got.len() != want.len()).then(|| {
        let index = got.len().min(want.len());
        Mismatch {
            index,
            got: got.get(index).copied().unwrap_or(f32::NAN),
            want: want.get(index).copied().unwrap_or(f32::NAN),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_frame_follows_the_seed_pattern() {
        let frame = Frame::synthetic(FrameSize::new(300, 2)).unwrap();
        assert_eq!(frame.pixels(), 600);
        assert_eq!(frame.red[0], 0.0);
        assert_eq!(frame.red[250], 250.0 / 251.0);
        assert_eq!(frame.red[251], 0.0);
        assert_eq!(frame.green[241], 0.0);
        assert_eq!(frame.green[242], 1.0 / 241.0);
        assert_eq!(frame.blue[599], (599 % 239) as f32 / 239.0);
    }

    #[test]
    fn reference_applies_rec601_weights() {
        let frame = Frame::synthetic(FrameSize::new(600, 1)).unwrap();
        let out = frame.reference().unwrap();
        let i = 500;
        let want = 0.299 * frame.red[i] + 0.587 * frame.green[i] + 0.114 * frame.blue[i];
        assert_eq!(out[i], want);
        // A white pixel has luma 1: the weights sum to one.
        assert!((luma::luma(1.0, 1.0, 1.0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn bytes_moved_counts_four_planes_of_floats() {
        // The seed's 4K frame: 126.6 MiB per pass, 158.2 MiB on the host.
        let frame = FrameSize::new(3840, 2160);
        assert_eq!(frame.bytes(BYTES_PER_PIXEL), Some(132_710_400));
        assert_eq!(format!("{:.1}", mib(frame.bytes_f64(BYTES_PER_PIXEL))), "126.6");
        assert_eq!(frame.bytes(HOST_BYTES_PER_PIXEL), Some(165_888_000));
    }

    #[test]
    fn byte_counts_of_impossible_frames_are_none_not_wrapped() {
        // 2^30 x 2^30 pixels x 16 bytes is 2^64: it used to wrap to 0 and pass every check.
        let huge = FrameSize::new(1 << 30, 1 << 30);
        assert_eq!(huge.bytes(BYTES_PER_PIXEL), None);
        assert_eq!(huge.bytes(HOST_BYTES_PER_PIXEL), None);
        assert_eq!(
            FrameSize::new(1 << 30, (1 << 30) - 1).bytes(BYTES_PER_PIXEL),
            Some(u64::MAX - (1 << 34) + 1)
        );
    }

    #[test]
    fn identical_outputs_have_no_mismatch() {
        let want = vec![0.0, 0.5, 1.0];
        assert_eq!(first_mismatch(&want, &want, RELATIVE_TOLERANCE), None);
    }

    #[test]
    fn difference_within_tolerance_passes_and_beyond_fails() {
        let want = [0.5f32];
        assert_eq!(first_mismatch(&[0.500_004], &want, RELATIVE_TOLERANCE), None);
        let found = first_mismatch(&[0.5001], &want, RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found.index, 0);
        assert_eq!(found.got, 0.5001);
    }

    #[test]
    fn first_of_several_mismatches_is_reported() {
        let want = vec![1.0f32; 10];
        let mut got = want.clone();
        got[7] = 0.0;
        got[3] = 2.0;
        let found = first_mismatch(&got, &want, RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found, Mismatch { index: 3, got: 2.0, want: 1.0 });
    }

    #[test]
    fn zero_reference_uses_an_absolute_tolerance() {
        assert_eq!(first_mismatch(&[5e-6], &[0.0], RELATIVE_TOLERANCE), None);
        assert!(first_mismatch(&[5e-5], &[0.0], RELATIVE_TOLERANCE).is_some());
    }

    #[test]
    fn the_first_mismatch_is_the_first_even_across_cores() {
        // Mismatches far apart in a long output: the parallel search still names the first.
        let want = vec![0.25f32; 5_000_000];
        let mut got = want.clone();
        got[4_900_000] = 1.0;
        got[3_000_001] = 1.0;
        got[1_234_567] = f32::NAN;
        assert_eq!(first_mismatch(&got, &want, RELATIVE_TOLERANCE).unwrap().index, 1_234_567);
        let frame = Frame::synthetic(FrameSize::new(2000, 1500)).unwrap();
        assert_eq!(frame.red[2_999_999], (2_999_999 % 251) as f32 / 251.0);
        assert_eq!(
            frame.reference().unwrap()[2_999_999],
            luma::luma(frame.red[2_999_999], frame.green[2_999_999], frame.blue[2_999_999])
        );
        assert_eq!(host_zeros(3).unwrap(), [0.0; 3]);
    }

    #[test]
    fn nan_never_passes() {
        let found = first_mismatch(&[0.0, f32::NAN], &[0.0, 0.3], RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found.index, 1);
    }

    #[test]
    fn short_output_is_a_mismatch_at_its_end() {
        let found = first_mismatch(&[1.0], &[1.0, 2.0], RELATIVE_TOLERANCE).unwrap();
        assert_eq!(found.index, 1);
        assert_eq!(found.want, 2.0);
    }
}
