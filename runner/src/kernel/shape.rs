//! [`LaunchShape`] and [`Variant`]: which launch of a sweep a check or an argument list is looking at.

use crate::model::axis_values::AxisValues;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::grid::GridPolicy;

/// One configuration of the kernel's axes ([`crate::Axis`]): its value on each, the entry point
/// it launches, and the grid where an axis sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its value on each axis, in the axes' order (empty where the kernel has no axis).
    pub(crate) axes: AxisValues,
    /// The entry point it launches: its entries axis's, or the kernel's own.
    pub(crate) entry: &'static str,
    /// The grid policy its grid axis sets, where it has one; else the sweep's.
    pub(crate) grid: Option<GridPolicy>,
    /// Its numbers on the integer axes.
    pub(crate) integers: Vec<(&'static str, u64)>,
    /// Its position among the configurations of the axes, from 0.
    pub(crate) index: usize,
}

impl Variant {
    /// Its value on the axis `name` as the table shows it (`"4"`, `"waves:2"`), where the
    /// kernel has that axis.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.axes.get(name)
    }

    /// Its number on the integer axis `name` ([`crate::Axis::integers`],
    /// [`crate::Axis::powers_of_two`]), where the kernel has that axis.
    pub fn integer(&self, name: &str) -> Option<u64> {
        self.integers.iter().find(|(axis, _)| *axis == name).map(|&(_, value)| value)
    }
}

/// One launch of a row: its grid, its block, and its configuration of the axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in the grid: `grid.x * grid.y * grid.z`.
    pub grid_blocks: u32,
    /// Threads per block: `block.x * block.y * block.z`.
    pub threads_per_block: u32,
    /// The grid's blocks in x, y and z: `grid_blocks` in x alone, unless the kernel has a
    /// 2-D or 3-D domain ([`crate::Kernel::domain`]).
    pub grid: GridShape,
    /// The block's threads in x, y and z: `threads_per_block` in x alone, unless the sweep
    /// has block shapes (`--block-shapes`).
    pub block: BlockShape,
    /// The configuration of the axes and its kernel.
    pub variant: Variant,
}

impl LaunchShape {
    /// The row in words: "256 threads per block", "block 32x8" or "256 threads per block,
    /// items/thr 4".
    pub(super) fn describe(&self) -> String {
        let block = self.block.in_words();
        if self.variant.axes.is_empty() { block } else { format!("{block}, {}", self.variant.axes) }
    }
}
