/*!
What a device and a compiled kernel are, as the driver reports them: [`DeviceLimits`] (the
device's attributes), [`KernelResources`] (registers and static shared memory after the JIT),
[`Suggestion`] (`cuOccupancyMaxPotentialBlockSize`'s answer), and the dynamic shared memory a
block gets without opting in. Plain data, read and written without a GPU.
*/

use crate::model::block_shape::{MAX_BLOCK_DIMENSIONS, MAX_GRID_DIMENSIONS};
use crate::model::occupancy::{occupancy_percent, warps_per_block};
use serde::{Deserialize, Serialize};

/// What the driver reports about one device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLimits {
    /// The device's CUDA ordinal.
    pub ordinal: u32,
    /// The device's name, as the driver reports it (`NVIDIA H200`).
    pub name: String,
    /// Compute capability, major and minor (9.0 is `(9, 0)`).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors (SMs).
    pub multiprocessors: u32,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Threads per warp (32 on every NVIDIA GPU so far).
    pub warp_size: u32,
    /// Resident-block cap per SM (device attribute 106).
    pub max_blocks_per_sm: u32,
    /// The largest block a launch may have, in threads.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM, and per block.
    pub registers_per_sm: u32,
    /// 32-bit registers one block may hold.
    pub max_registers_per_block: u32,
    /// Shared memory per SM, the most one block may opt in to, and the driver's reserve
    /// per block, in bytes.
    pub shared_memory_per_sm: u32,
    /// Shared memory one block may opt in to, in bytes.
    pub max_shared_memory_per_block: u32,
    /// Shared memory the driver reserves in every block, in bytes.
    pub reserved_shared_memory_per_block: u32,
    /// L2 cache size in bytes.
    pub l2_cache_bytes: u32,
    /// The most threads a block may have in x, y and z (`maxBlockDimX/Y/Z`); a record
    /// written before block shapes reads as every device's 1024, 1024, 64.
    #[serde(default = "block_dimensions")]
    pub max_block_dimensions: [u32; 3],
    /// The most blocks a grid may have in x, y and z (`maxGridDimX/Y/Z`); a record written
    /// before grid shapes reads as every device's 2^31 - 1, 65535, 65535.
    #[serde(default = "grid_dimensions")]
    pub max_grid_dimensions: [u32; 3],
}

fn block_dimensions() -> [u32; 3] {
    MAX_BLOCK_DIMENSIONS
}

fn grid_dimensions() -> [u32; 3] {
    MAX_GRID_DIMENSIONS
}

/// What the compiled kernel asks of an SM, as the driver reports it after its JIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelResources {
    /// 32-bit registers each thread uses.
    pub registers_per_thread: u32,
    /// Bytes of shared memory the kernel declares statically, per block.
    pub static_shared_memory: u32,
    /// Bytes of local memory each thread uses: register spills and arrays the compiler could
    /// not keep in registers (0 in records written before it was read).
    #[serde(default)]
    pub local_bytes_per_thread: u32,
}

impl DeviceLimits {
    /// Resident warps per SM. The driver reports threads per SM, not warps.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size.max(1)
    }

    /// The theoretical occupancy of `blocks_per_sm` blocks of `threads_per_block` threads, in
    /// percent: their warps over the SM's.
    pub fn occupancy_percent_of(&self, blocks_per_sm: u32, threads_per_block: u32) -> f64 {
        occupancy_percent(blocks_per_sm * warps_per_block(threads_per_block), self.max_warps_per_sm())
    }
}

/// `cuOccupancyMaxPotentialBlockSize`'s answer: the block size that reaches the highest
/// occupancy and the smallest grid that fills the device at that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Threads per block of the highest occupancy.
    pub threads_per_block: u32,
    /// The smallest grid that fills the device at that block size.
    pub grid_blocks: u32,
}

/// Dynamic shared memory a block may use without the opt-in attribute: 48 KiB.
pub const DEFAULT_SHARED_MEMORY_LIMIT: u32 = 48 * 1024;
