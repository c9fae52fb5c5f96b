/*!
[`Workload`]: what every measurement (the sweep, `compare`, `tail`, `variants`) needs of the kernel
it measures: its buffers on one device, its launch at a grid and block size, its dynamic shared
memory, and the check of what the device computed.
*/

use crate::measure::backend::{Gpu, Launch};
use crate::model::mismatch::Mismatch;
use crate::model::pass::Pass;
use anyhow::Result;

/// One kernel's inputs, outputs and CPU reference, on the host and, once uploaded, on one
/// device.
pub trait Workload {
    /// What one pass is.
    fn pass(&self) -> &Pass;

    /// Bytes of dynamic shared memory a block of `threads_per_block` threads needs.
    fn dynamic_shared_memory(&self, threads_per_block: u32) -> u32;

    /// Allocates the device buffers and copies the inputs in.
    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()>;

    /// The launch of the active kernel at `grid_blocks` x `threads_per_block`.
    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<Launch>;

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
