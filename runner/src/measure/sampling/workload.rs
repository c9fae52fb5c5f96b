/*!
[`Workload`]: what every measurement (the sweep, `compare`, `tail`, `variants`) needs of the kernel
it measures: its buffers on one device, its launch at a grid and block size, its dynamic shared
memory, and the check of what the device computed.
*/

use crate::measure::gpu::backend::{Gpu, Launch};
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::mismatch::Mismatch;
use crate::model::pass::Pass;
use anyhow::Result;

/// One kernel's inputs, outputs and CPU reference, on the host and, once uploaded, on one
/// device.
pub trait Workload {
    /// What one pass is.
    fn pass(&self) -> &Pass;

    /// Its items in x, y and z where it launches grids of more than one dimension
    /// ([`crate::Kernel::domain`]); `None` for a kernel of blocks and grids in x alone.
    fn domain(&self) -> Option<[u64; 3]> {
        None
    }

    /// The items in x, y and z a block of `block` covers a trip over the domain: its threads,
    /// one item each, unless the kernel's blocks take a tile ([`crate::Kernel::tile`]).
    fn block_covers(&self, block: BlockShape) -> [u64; 3] {
        crate::model::grid::sides(block)
    }

    /// Bytes of dynamic shared memory a block of this shape needs.
    fn dynamic_shared_memory(&self, block: BlockShape) -> u32;

    /// Allocates the device buffers and copies the inputs in.
    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()>;

    /// The launch of the active kernel: a grid of `grid` blocks of `block` threads.
    fn launch(&self, grid: GridShape, block: BlockShape) -> Result<Launch>;

    /// Zeroes the outputs, so a launch that misses an element is caught.
    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()>;

    /// Overwrites output element `index` on the device: the fault `--corrupt-pixel` injects
    /// to show the check catching it. A workload without this self-test says so.
    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        let _ = (gpu, index);
        anyhow::bail!("this workload cannot overwrite an output element (no --corrupt-pixel self-test)")
    }

    /// Copies the outputs back and compares them with the CPU reference.
    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>>;
}
