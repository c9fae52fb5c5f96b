/*!
`block-size tail`: what a partial last wave costs.

At one block size, the same frame (a fixed amount of work) is converted with grids of 0.5, 1,
1.1, 1.5, 2, 2.1, 4 and 8 waves, a wave being the blocks the whole device holds at once
(blocks/SM x SMs). The grid-stride loop hands each block an equal share of the pixels, so a
grid of 1.1 waves runs one full wave of blocks and then a tenth of a wave of equally long
blocks on a mostly idle device: the tail effect the sweep's one-wave grids never show.
*/

use crate::measure::sampling::workload::Workload;

use crate::measure::gpu::backend::{Gpu, Timing};
use crate::measure::profiler::Launched;
use crate::measure::sampling::checked::{self, Checked};
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Counters, CountersRun};
use crate::model::grid;
use crate::model::limits::DeviceLimits;
use crate::model::pass::Pass;
use crate::model::stats::RunStats;
use crate::search::sweep::CheckFailure;
use anyhow::Result;

/// One grid size.
#[derive(Debug, Clone, PartialEq)]
pub struct TailRow {
    /// Waves asked for.
    pub waves: f64,
    /// Blocks launched.
    pub grid_blocks: u32,
    /// Their grid: in x alone, or over the kernel's domain (`block-size tail` of a kernel with
    /// one, [`crate::Kernel::domain`]).
    pub grid: GridShape,
    /// The most trips of the grid-stride loop a block takes over the mean (1.0: every block the
    /// same share; over a domain, the grid's sides need not divide the domain's).
    pub imbalance: f64,
    /// Waves the grid really is (`grid_blocks` over one wave).
    pub actual_waves: f64,
    /// Full waves, and how full the last one is (1.0 when the grid is whole waves).
    pub full_waves: u32,
    /// How full the last wave is (1.0 when the grid is whole waves).
    pub last_wave_fill: f64,
    /// The samples' median, extremes and MAD.
    pub stats: RunStats,
    /// Its hardware counters (`--counters`; `None`: not asked, or not read).
    pub counters: Option<Counters>,
}

/// The tail experiment at one block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Tail {
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass of the kernel is.
    pub pass: Pass,
    /// The block size of every grid.
    pub threads_per_block: u32,
    /// The block of every grid: its shape (`32x8`), in x alone where not given one.
    pub block: BlockShape,
    /// The driver's blocks/SM at it.
    pub blocks_per_sm: u32,
    /// Blocks in one wave: blocks/SM x SMs.
    pub wave_blocks: u32,
    /// How each row was timed.
    pub timing: Timing,
    /// One row per grid.
    pub rows: Vec<TailRow>,
    /// Every check that failed.
    pub failures: Vec<CheckFailure>,
    /// What `--counters` read for the experiment as a whole; `None`: not asked.
    pub counters: Option<CountersRun>,
}

impl Tail {
    /// The one-wave row's median, which the others are compared with: the row of exactly one
    /// wave of blocks, else (over a domain, whose grid may be near one wave) the row asked for
    /// one wave.
    pub fn one_wave_ms(&self) -> Option<f64> {
        let exact = self.rows.iter().find(|row| row.grid_blocks == self.wave_blocks);
        exact.or_else(|| self.rows.iter().find(|row| row.waves == 1.0)).map(|row| row.stats.median)
    }
}

/// Blocks for `waves` waves of `wave_blocks`, at least one.
pub fn grid_for(waves: f64, wave_blocks: u32) -> u32 {
    ((waves * f64::from(wave_blocks)).round() as u32).max(1)
}

/// Runs the experiment with the active kernel on `workload`, already uploaded.
pub fn run(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    block: BlockShape,
    waves: &[f64],
    timing: Timing,
) -> Result<Tail> {
    let limits = gpu.limits().clone();
    let threads_per_block = block.threads();
    let blocks_per_sm = gpu.blocks_per_sm(threads_per_block, workload.dynamic_shared_memory(block))?;
    let wave_blocks = (blocks_per_sm * limits.multiprocessors).max(1);
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    if blocks_per_sm == 0 {
        failures.push(CheckFailure::NoResidency { block });
    }
    for &wave_count in waves {
        let (grid, imbalance) = grid_of(workload, block, wave_count, wave_blocks);
        let grid_blocks = grid.blocks_within_u32();
        let Checked { run_ms, mismatch, .. } = checked::measure(
            gpu,
            workload,
            grid,
            block,
            timing,
            checked::Verdict::Check { corrupt: None },
            &[],
        )?;
        if let Some(mismatch) = mismatch {
            failures.push(CheckFailure::WrongOutput { block, mismatch });
        }
        let full_waves = grid_blocks / wave_blocks;
        let remainder = grid_blocks % wave_blocks;
        rows.push(TailRow {
            waves: wave_count,
            grid_blocks,
            grid,
            imbalance,
            actual_waves: f64::from(grid_blocks) / f64::from(wave_blocks),
            full_waves,
            last_wave_fill: if remainder == 0 { 1.0 } else { f64::from(remainder) / f64::from(wave_blocks) },
            stats: RunStats::of(&run_ms),
            counters: None,
        });
    }
    Ok(Tail {
        limits,
        pass: workload.pass().clone(),
        threads_per_block,
        block,
        blocks_per_sm,
        wave_blocks,
        timing,
        rows,
        failures,
        counters: None,
    })
}

/// A row's grid of `wave_count` waves of `wave_blocks` blocks, and how evenly its blocks share
/// the work. Over a domain, the grid is laid over it so that every block takes the same share
/// (or as near as the domain's sides allow), in as many waves as asked.
fn grid_of(
    workload: &dyn Workload,
    block: BlockShape,
    wave_count: f64,
    wave_blocks: u32,
) -> (GridShape, f64) {
    match workload.domain() {
        Some(domain) => grid::grid_of_about(
            grid_for(wave_count, wave_blocks),
            wave_blocks,
            domain,
            workload.block_covers(block),
        ),
        None => (GridShape::linear(grid_for(wave_count, wave_blocks)), 1.0),
    }
}

/// How a replay (`--counters`) and the reading of its counters name a row: `1.5 waves`.
pub(crate) fn row_label(wave_count: f64) -> String {
    format!("{wave_count} waves")
}

/// A replay under a profiler (`--counters`): every row's grid launched once, unchecked and
/// untimed, in [`run`]'s order; returns what was launched, in order.
pub(crate) fn replay(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    block: BlockShape,
    waves: &[f64],
) -> Result<Vec<Launched>> {
    let blocks_per_sm = gpu.blocks_per_sm(block.threads(), workload.dynamic_shared_memory(block))?;
    let wave_blocks = (blocks_per_sm * gpu.limits().multiprocessors).max(1);
    let mut launched = Vec::new();
    for &wave_count in waves {
        let (grid, _) = grid_of(workload, block, wave_count, wave_blocks);
        gpu.time_one_launch(&workload.launch(grid, block)?)?;
        launched.push(Launched { label: row_label(wave_count), block, grid });
    }
    Ok(launched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use crate::measure::gpu::mock::MockGpu;
    use crate::tests::fixture;

    fn uploaded(kernel: Kernel) -> (MockGpu, Box<dyn Workload>) {
        let mut gpu = fixture::gpu();
        let workload = fixture::workload(&mut gpu, kernel);
        (gpu, workload)
    }

    #[test]
    fn grids_are_rounded_wave_multiples() {
        // H200 at 256 threads: 8 blocks/SM x 132 SMs = 1056 blocks a wave.
        let waves = [0.5, 1.0, 1.1, 1.5, 2.0, 2.1, 4.0, 8.0];
        let grids: Vec<u32> = waves.iter().map(|&w| grid_for(w, 1056)).collect();
        assert_eq!(grids, [528, 1056, 1162, 1584, 2112, 2218, 4224, 8448]);
        assert_eq!(grid_for(0.0001, 1056), 1);
    }

    #[test]
    fn rows_describe_full_waves_and_the_last_waves_fill() {
        let (mut gpu, mut workload) = uploaded(fixture::kernel(4096));
        let timing = Timing::launch(1, 3);
        let tail =
            run(&mut gpu, workload.as_mut(), BlockShape::linear(256), &[1.0, 1.1, 2.0], timing).unwrap();
        assert_eq!((tail.blocks_per_sm, tail.wave_blocks), (8, 1056));
        let shape: Vec<(u32, u32)> = tail.rows.iter().map(|row| (row.grid_blocks, row.full_waves)).collect();
        assert_eq!(shape, [(1056, 1), (1162, 1), (2112, 2)]);
        assert!((tail.rows[1].last_wave_fill - 106.0 / 1056.0).abs() < 1e-12);
        assert_eq!(tail.rows[2].last_wave_fill, 1.0);
        assert!(tail.failures.is_empty());
        assert_eq!(tail.one_wave_ms(), Some(1.0));
        assert_eq!(gpu.launches.iter().filter(|(grid, _)| *grid == 1162).count(), 4, "1 warm-up + 3 runs");
    }

    #[test]
    fn the_waves_are_those_its_shared_memory_leaves() {
        // 16 KiB a block at 64 threads: 13 blocks/SM by shared memory, 1716 blocks a wave.
        let (mut gpu, mut workload) = uploaded(fixture::kernel(4096).dynamic_shared_memory(|_, _| 16384));
        gpu.shared_memory_residency = vec![(64, 16384, 13)];
        let timing = Timing::launch(0, 2);
        let tail = run(&mut gpu, workload.as_mut(), BlockShape::linear(64), &[0.5, 1.0], timing).unwrap();
        assert_eq!((tail.blocks_per_sm, tail.wave_blocks), (13, 1716));
        assert!(tail.failures.is_empty(), "{:?}", tail.failures);
        assert_eq!(tail.pass.kernel, "scale");
    }
}
