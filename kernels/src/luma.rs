//! Rec. 601 luma, the arithmetic of one pixel.
//!
//! This file is compiled twice from the same bytes: into the GPU crate, and into the host
//! runner through `#[path]`, where it is the CPU reference. The weights and the order of
//! the operations therefore exist once. The GPU build may still fuse the multiply-adds
//! (libNVVM contracts to FMA by default), which is why the runner compares with a relative
//! tolerance rather than for equality.

/// Weight of the red plane.
pub const RED_WEIGHT: f32 = 0.299;
/// Weight of the green plane.
pub const GREEN_WEIGHT: f32 = 0.587;
/// Weight of the blue plane.
pub const BLUE_WEIGHT: f32 = 0.114;

/// Name of the kernel entry point in the PTX, as the host asks the driver for it.
pub const KERNEL_NAME: &str = "grayscale";

/// Luma of one pixel from its three planar channels.
#[inline(always)]
pub fn luma(red: f32, green: f32, blue: f32) -> f32 {
    RED_WEIGHT * red + GREEN_WEIGHT * green + BLUE_WEIGHT * blue
}
