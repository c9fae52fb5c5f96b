/*!
One measured launch configuration, checked: zero the output, run the timed launches, copy the
output back and compare it with the CPU reference. The sweep, `compare`, `tail` and `variants`
all measure this way, so none of them can time a configuration without checking it.
*/

use crate::backend::{Gpu, Timing};
use crate::frame::{Frame, Mismatch, RELATIVE_TOLERANCE, first_mismatch, host_vec};
use crate::sweep::CORRUPT_VALUE;
use anyhow::{Context as _, Result};

/// The frame's CPU reference and a host buffer for the device's output.
pub struct Checker {
    reference: Vec<f32>,
    output: Vec<f32>,
}

/// What one checked measurement found.
pub struct Checked {
    /// Milliseconds of each timed launch.
    pub run_ms: Vec<f32>,
    /// The first pixel that disagrees with the reference, if any.
    pub mismatch: Option<Mismatch>,
}

impl Checker {
    pub fn new(frame: &Frame) -> Result<Self> {
        let reference = frame.reference()?;
        let mut output = host_vec(frame.pixels())?;
        output.resize(frame.pixels(), 0.0);
        Ok(Self { reference, output })
    }

    /// Measures the active kernel at `grid_blocks` x `threads_per_block`. With
    /// `corrupt_pixel`, that pixel is overwritten on the device after the launches (the
    /// `--corrupt-pixel` self-test). `Err` only when the driver fails.
    pub fn measure(
        &mut self,
        gpu: &mut dyn Gpu,
        grid_blocks: u32,
        threads_per_block: u32,
        timing: Timing,
        corrupt_pixel: Option<usize>,
    ) -> Result<Checked> {
        gpu.zero_output()?;
        let run_ms = gpu
            .time_launches(grid_blocks, threads_per_block, timing)
            .with_context(|| format!("launching {grid_blocks} blocks of {threads_per_block} threads"))?;
        if let Some(index) = corrupt_pixel {
            gpu.overwrite_output(index, CORRUPT_VALUE)?;
        }
        gpu.download(&mut self.output)?;
        Ok(Checked { run_ms, mismatch: first_mismatch(&self.output, &self.reference, RELATIVE_TOLERANCE) })
    }
}
