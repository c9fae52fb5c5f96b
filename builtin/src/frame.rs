/*!
[`Frame`]: the frame of pixels every kernel here covers in one pass.
*/

/// A frame of `width` x `height` pixels, what every kernel here covers in one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Pixels in a row.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl Frame {
    /// Its pixels (a `u32` times a `u32` always fits in 64 bits).
    pub fn pixels(self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// `3840 x 2160`.
impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} x {}", self.width, self.height)
    }
}
