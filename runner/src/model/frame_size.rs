/*!
A frame's size, and the arithmetic every report and check does with it: pixels, byte counts
(checked, so a count past 64 bits is "too large", never a wrapped small number), MiB and GB/s.
Width and height are multiplied out here and nowhere else.
*/

use anyhow::{Context as _, Result};
use std::fmt;

/// Bytes in a MiB.
pub const MIB: f64 = 1024.0 * 1024.0;

/// A frame of `width` x `height` pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameSize {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl FrameSize {
    /// A frame of `width` x `height` pixels.
    pub const fn new(width: u32, height: u32) -> Self {
        Self { width, height }
    }

    /// Pixels in the frame; at most (2^32 - 1)^2, which fits 64 bits.
    pub const fn pixels(self) -> u64 {
        self.width as u64 * self.height as u64
    }

    /// `bytes_per_pixel` bytes for every pixel, or `None` where that count overflows 64 bits (a
    /// frame of 1073741824 x 1073741824 pixels at 16 bytes a pixel would be 2^64 bytes).
    pub fn bytes(self, bytes_per_pixel: u64) -> Option<u64> {
        self.pixels().checked_mul(bytes_per_pixel)
    }

    /// The same for printing and rates, as a float (exact for every frame a machine can hold).
    pub fn bytes_f64(self, bytes_per_pixel: u64) -> f64 {
        self.pixels() as f64 * bytes_per_pixel as f64
    }

    /// The pixel count as an index on this machine, where its address space holds it.
    pub fn host_pixels(self) -> Result<usize> {
        usize::try_from(self.pixels()).context("frame does not fit in this machine's address space")
    }
}

/// `3840 x 2160`.
impl fmt::Display for FrameSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} x {}", self.width, self.height)
    }
}

/// `bytes` in MiB.
pub fn mib(bytes: f64) -> f64 {
    bytes / MIB
}

/// `bytes` moved in `milliseconds`, in GB/s (10^9 bytes a second): the bandwidth every GB/s
/// column reports.
pub fn gigabytes_per_second(bytes: f64, milliseconds: f64) -> f64 {
    bytes / (milliseconds * 1e-3) / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_4k_frame_in_pixels_bytes_and_mib() {
        let frame = FrameSize::new(3840, 2160);
        assert_eq!(frame.pixels(), 8_294_400);
        assert_eq!(frame.bytes(16), Some(132_710_400));
        assert_eq!(format!("{:.1}", mib(frame.bytes_f64(16))), "126.6");
        assert_eq!(frame.to_string(), "3840 x 2160");
        assert_eq!(frame.host_pixels().unwrap(), 8_294_400);
    }

    #[test]
    fn byte_counts_past_64_bits_are_none_not_wrapped() {
        let huge = FrameSize::new(1 << 30, 1 << 30);
        assert_eq!(huge.bytes(16), None);
        assert_eq!(huge.bytes(15), Some(15 << 60));
        assert_eq!(FrameSize::new(u32::MAX, u32::MAX).pixels(), u64::from(u32::MAX).pow(2));
    }

    #[test]
    fn bandwidth_is_bytes_over_time() {
        // 132,710,400 bytes in 0.5 ms.
        assert!((gigabytes_per_second(132_710_400.0, 0.5) - 265.4208).abs() < 1e-9);
    }
}
