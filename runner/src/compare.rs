/*!
`block-size compare`: the same kernel from three compilers, measured side by side.

Every kernel runs in one process on the same device buffers. For each block size each kernel
gets its own occupancy answer and one-wave grid (their register counts differ, so blocks/SM
can differ), is checked against the CPU reference, is warmed up, and is then timed in
interleaved rounds: one launch per kernel per round, each between its own events, with the
order rotating every round (A B C, B C A, C A B, ...) so that clock and thermal drift, and any
advantage of going first, fall on every kernel alike.
*/

use crate::backend::{DeviceLimits, Gpu, KernelResources, Timing};
use crate::checked::{Checked, Checker};
use crate::frame::{Frame, Mismatch, gigabytes_per_second};
use crate::occupancy::one_wave_grid;
use crate::stats::RunStats;
use anyhow::{Context as _, Result};

/// One kernel at one block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub blocks_per_sm: u32,
    pub grid_blocks: u32,
    /// Milliseconds of each round's launch, in round order.
    pub round_ms: Vec<f32>,
}

impl Cell {
    pub fn median_ms(&self) -> f64 {
        RunStats::of(&self.round_ms).median
    }
}

/// One block size: a cell per kernel, in the order the kernels were loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub threads_per_block: u32,
    pub cells: Vec<Cell>,
}

/// A kernel that failed its reference check.
#[derive(Debug, Clone, PartialEq)]
pub struct WrongOutput {
    pub kernel: String,
    pub threads_per_block: u32,
    pub mismatch: Mismatch,
}

impl std::fmt::Display for WrongOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrong output from the {} kernel at {} threads per block: pixel {} is {}, the CPU reference says {}",
            self.kernel, self.threads_per_block, self.mismatch.index, self.mismatch.got, self.mismatch.want
        )
    }
}

/// Everything one comparison measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub limits: DeviceLimits,
    pub width: u32,
    pub height: u32,
    pub warmups: u32,
    pub rounds: u32,
    /// Kernel labels, in load order.
    pub kernels: Vec<String>,
    pub resources: Vec<KernelResources>,
    /// Index of the kernel the ratios divide by.
    pub baseline: usize,
    pub rows: Vec<Row>,
    pub failures: Vec<WrongOutput>,
}

/// Per-round time ratios of kernel `kernel` to the baseline, at one row: the same round's
/// launches, so drift between rounds cancels.
pub fn round_ratios(row: &Row, kernel: usize, baseline: usize) -> Vec<f64> {
    row.cells[kernel]
        .round_ms
        .iter()
        .zip(&row.cells[baseline].round_ms)
        .map(|(&time, &base)| f64::from(time) / f64::from(base))
        .collect()
}

impl Comparison {
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    pub fn gigabytes_per_second(&self, milliseconds: f64) -> f64 {
        gigabytes_per_second(self.pixels(), milliseconds)
    }
}

/// Runs the comparison over the kernels loaded in `gpu` (labels in load order), with the
/// frame already uploaded. `Err` only when the driver fails.
pub fn run(
    gpu: &mut dyn Gpu,
    frame: &Frame,
    kernels: &[&str],
    baseline: usize,
    block_sizes: &[u32],
    warmups: u32,
    rounds: u32,
) -> Result<Comparison> {
    let limits = gpu.limits().clone();
    let mut checker = Checker::new(frame)?;
    let pixels = frame.pixels() as u64;
    let mut resources = Vec::new();
    for index in 0..kernels.len() {
        gpu.select_kernel(index)?;
        resources.push(gpu.kernel_resources()?);
    }

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &threads_per_block in block_sizes {
        let mut cells = Vec::new();
        for (index, label) in kernels.iter().enumerate() {
            gpu.select_kernel(index)?;
            let blocks_per_sm = gpu.blocks_per_sm(threads_per_block)?;
            let grid_blocks = one_wave_grid(blocks_per_sm, limits.multiprocessors, pixels, threads_per_block);
            // One checked launch per kernel and block size; the timed rounds come after.
            let check = Timing { warmups: 0, runs: 1, flush_l2: false };
            let Checked { mismatch, .. } = checker
                .measure(gpu, grid_blocks, threads_per_block, check, None)
                .with_context(|| label.to_string())?;
            if let Some(mismatch) = mismatch {
                failures.push(WrongOutput { kernel: label.to_string(), threads_per_block, mismatch });
            }
            for _ in 0..warmups {
                gpu.time_one_launch(grid_blocks, threads_per_block)?;
            }
            cells.push(Cell { blocks_per_sm, grid_blocks, round_ms: Vec::with_capacity(rounds as usize) });
        }
        for round in 0..rounds as usize {
            for offset in 0..kernels.len() {
                let index = (round + offset) % kernels.len();
                gpu.select_kernel(index)?;
                let ms = gpu.time_one_launch(cells[index].grid_blocks, threads_per_block)?;
                cells[index].round_ms.push(ms);
            }
        }
        rows.push(Row { threads_per_block, cells });
    }

    Ok(Comparison {
        limits,
        width: frame.width,
        height: frame.height,
        warmups,
        rounds,
        kernels: kernels.iter().map(|label| label.to_string()).collect(),
        resources,
        baseline,
        rows,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MockGpu;

    fn three_kernel_gpu() -> MockGpu {
        let mut gpu = MockGpu::h200_like();
        gpu.kernel_time_factors = vec![1.0, 0.5, 2.0];
        gpu.milliseconds = vec![(128, 0.1), (256, 0.2)];
        gpu
    }

    fn compare(gpu: &mut MockGpu, rounds: u32) -> Comparison {
        let frame = Frame::synthetic(16, 16).unwrap();
        gpu.upload(&frame).unwrap();
        run(gpu, &frame, &["a", "b", "c"], 1, &[128, 256], 2, rounds).unwrap()
    }

    #[test]
    fn rounds_interleave_kernels_and_rotate_who_goes_first() {
        let mut gpu = three_kernel_gpu();
        compare(&mut gpu, 3);
        // Per block size: per kernel a checked launch (through time_launches, not listed
        // here) and 2 warm-ups, then 3 rounds of 3 with the order rotating.
        let first_row: Vec<usize> = gpu.timed.iter().filter(|(_, t)| *t == 128).map(|(k, _)| *k).collect();
        assert_eq!(first_row, [0, 0, 1, 1, 2, 2, 0, 1, 2, 1, 2, 0, 2, 0, 1]);
        let checked = gpu.launches.iter().filter(|(_, t)| *t == 128).count();
        assert_eq!(checked, 3 + first_row.len(), "one checked launch per kernel besides the timed ones");
    }

    #[test]
    fn cells_hold_each_kernels_rounds_and_ratios_divide_by_the_baseline() {
        let mut gpu = three_kernel_gpu();
        let result = compare(&mut gpu, 4);
        assert!(result.failures.is_empty());
        let row = &result.rows[1];
        assert_eq!(row.threads_per_block, 256);
        assert_eq!(row.cells[0].round_ms.len(), 4);
        assert_eq!(row.cells[1].median_ms(), f64::from(0.2f32 * 0.5));
        assert_eq!(row.cells[0].grid_blocks, 1, "256 pixels need one block of 256");
        assert_eq!(round_ratios(row, 2, 1), [4.0; 4]);
        assert_eq!(result.resources.len(), 3);
    }

    #[test]
    fn a_wrong_kernel_is_named_and_the_others_are_not() {
        let mut gpu = three_kernel_gpu();
        gpu.wrong_kernel = Some(2);
        let result = compare(&mut gpu, 2);
        let named: Vec<(&str, u32, usize)> = result
            .failures
            .iter()
            .map(|f| (f.kernel.as_str(), f.threads_per_block, f.mismatch.index))
            .collect();
        assert_eq!(named, [("c", 128, 0), ("c", 256, 0)]);
        assert!(
            result.failures[0]
                .to_string()
                .starts_with("wrong output from the c kernel at 128 threads per block")
        );
    }
}
