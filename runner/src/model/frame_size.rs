/*!
A frame's size (what a pass of a kernel that covers a frame covers, [`FrameSize`]), and the units
every report counts in: MiB and GB/s.
*/

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
        assert_eq!(format!("{:.1}", mib(16.0 * frame.pixels() as f64)), "126.6");
        assert_eq!(frame.to_string(), "3840 x 2160");
        assert_eq!(FrameSize::new(u32::MAX, u32::MAX).pixels(), u64::from(u32::MAX).pow(2));
    }

    #[test]
    fn bandwidth_is_bytes_over_time() {
        // 132,710,400 bytes in 0.5 ms.
        assert!((gigabytes_per_second(132_710_400.0, 0.5) - 265.4208).abs() < 1e-9);
    }
}
