//! [`Shape`] and [`Variant`]: which launch of a sweep a check or an argument list is looking at.

/// One value of the tunable: its kernel (an entry point of the module) and its value as the
/// table shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The value ("4"); `None` where the sweep has no tunable.
    pub value: Option<String>,
    /// The entry point this value launches.
    pub entry: &'static str,
    /// Its position among the values, from 0.
    pub index: usize,
}

/// One launch of a row: its grid, its block, and the tunable's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Blocks in the grid.
    pub grid_blocks: u32,
    /// Threads per block.
    pub threads_per_block: u32,
    /// The tunable's value and its kernel.
    pub variant: Variant,
}

impl Shape {
    /// The row in words: "256 threads per block" or "256 threads per block, items/thr 4".
    pub(super) fn describe(&self, tunable: Option<&str>) -> String {
        match (&self.variant.value, tunable) {
            (Some(value), Some(name)) => {
                format!("{} threads per block, {name} {value}", self.threads_per_block)
            }
            _ => format!("{} threads per block", self.threads_per_block),
        }
    }
}
