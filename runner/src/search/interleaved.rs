/*!
`block-size compare`: the same kernel from several compilers, measured side by side: for the
grayscale kernel cuda_builder, nvcc and rustc's NVPTX backend (with and without FMA
contraction); for the histogram cuda_builder and nvcc.

Every kernel runs in one process on the same device buffers, those of one workload. For each block size each kernel
gets its own occupancy answer and one-wave grid (their register counts differ, so blocks/SM
can differ), is checked against the CPU reference, is warmed up, and is then timed in
interleaved rounds: one launch per kernel per round, each between its own events, with the
order rotating every round (A B C, B C A, C A B, ...) so that clock and thermal drift, and any
advantage of going first, fall on every kernel alike.
*/

use crate::measure::sampling::workload::Workload;

use crate::model::mismatch::Mismatch;

use crate::measure::gpu::backend::{Gpu, Launch, Timing};
use crate::measure::gpu::ptx::KernelRef;
use crate::measure::profiler::Launched;
use crate::measure::sampling::checked::{self, Checked};
use crate::model::axis_values::{AxisValues, configuration_label};
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Counters, CountersRun};
use crate::model::grid::GridPolicy;
use crate::model::limits::{DeviceLimits, KernelResources};
use crate::model::pass::Pass;
use crate::model::ptx_facts::PtxFacts;
use crate::model::stats::RunStats;
use anyhow::{Context as _, Result, ensure};

/// One kernel at one block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The kernel of this cell.
    pub kernel: KernelRef,
    /// The driver's blocks/SM for it at this block size.
    pub blocks_per_sm: u32,
    /// Its grid: one full wave.
    pub grid: GridShape,
    /// Milliseconds of each round's launch, in round order.
    pub round_ms: Vec<f32>,
    /// Its hardware counters (`--counters`; `None`: not asked, or not read).
    pub counters: Option<Counters>,
}

impl Cell {
    /// Blocks in its grid.
    pub fn grid_blocks(&self) -> u32 {
        self.grid.blocks_within_u32()
    }

    /// The median of its rounds' milliseconds.
    pub fn median_ms(&self) -> f64 {
        RunStats::of(&self.round_ms).median
    }
}

/// One block size: a cell per kernel, in the order the kernels were given.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    /// Threads per block of this row.
    pub threads_per_block: u32,
    /// Its block: `threads_per_block` in x alone, or a shape (`--block-shapes`).
    pub block: BlockShape,
    /// One cell per kernel, in the order compared.
    pub cells: Vec<Cell>,
}

impl CompareRow {
    /// The cell of `kernel`, one of the kernels compared.
    pub fn cell(&self, kernel: KernelRef) -> &Cell {
        self.cells
            .iter()
            .find(|cell| cell.kernel == kernel)
            .expect("every row has a cell per kernel compared")
    }
}

/// A kernel that failed its reference check.
#[derive(Debug, Clone, PartialEq)]
pub struct WrongOutput {
    /// The kernel whose output was wrong.
    pub kernel: KernelRef,
    /// With this block.
    pub block: BlockShape,
    /// Where and how.
    pub mismatch: Mismatch,
}

impl std::fmt::Display for WrongOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wrong output from the {} kernel at {}: {}",
            self.kernel.module.label,
            self.block.in_words(),
            self.mismatch
        )
    }
}

/// A kernel compared, with what it asks of an SM after the driver's JIT and what its PTX says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compared {
    /// The kernel.
    pub kernel: KernelRef,
    /// Its registers, static shared memory and local memory on this device.
    pub resources: KernelResources,
    /// What its PTX says of its entry, read once here for the table, the gap lines and the JSON;
    /// `None` where the PTX has no such entry.
    pub ptx_facts: Option<PtxFacts>,
}

/// Everything one comparison measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass of the kernel is.
    pub pass: Pass,
    /// Untimed launches of each kernel before the rounds.
    pub warmups: u32,
    /// Interleaved rounds.
    pub rounds: u32,
    /// The kernels compared, in the order given.
    pub kernels: Vec<Compared>,
    /// The kernel the ratios divide by, one of `kernels`.
    pub baseline: KernelRef,
    /// One row per block size.
    pub rows: Vec<CompareRow>,
    /// Kernels that failed their reference check; non-empty means no measurement.
    pub failures: Vec<WrongOutput>,
    /// What `--counters` read for the comparison as a whole; `None`: not asked.
    pub counters: Option<CountersRun>,
}

/// Per-round time ratios of `kernel` to `baseline`, at one row: the same round's launches, so
/// drift between rounds cancels.
pub fn round_ratios(row: &CompareRow, kernel: KernelRef, baseline: KernelRef) -> Vec<f64> {
    row.cell(kernel)
        .round_ms
        .iter()
        .zip(&row.cell(baseline).round_ms)
        .map(|(&time, &base)| f64::from(time) / f64::from(base))
        .collect()
}

impl Comparison {
    /// The kernels besides the baseline, in order: those the ratios are of.
    pub fn others(&self) -> impl Iterator<Item = KernelRef> + '_ {
        self.kernels.iter().map(|compared| compared.kernel).filter(|&kernel| kernel != self.baseline)
    }

    /// The bytes one pass moves over `milliseconds`, in GB/s.
    pub fn gigabytes_per_second(&self, milliseconds: f64) -> f64 {
        self.pass.gigabytes_per_second(milliseconds)
    }

    /// `kernel`'s fastest row (by its median) and its cell there.
    pub fn fastest(&self, kernel: KernelRef) -> Option<(&CompareRow, &Cell)> {
        self.rows
            .iter()
            .map(|row| (row, row.cell(kernel)))
            .min_by(|a, b| a.1.median_ms().total_cmp(&b.1.median_ms()))
    }
}

/// Runs the comparison of `kernels`, all loaded in `gpu` and all computing `workload` (already
/// uploaded), the ratios dividing by `baseline`, one of them. `Err` only when the driver fails.
pub fn run(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    kernels: &[KernelRef],
    baseline: KernelRef,
    blocks: &[BlockShape],
    warmups: u32,
    rounds: u32,
) -> Result<Comparison> {
    ensure!(
        kernels.contains(&baseline),
        "the baseline {} is not among the kernels compared",
        baseline.module.label
    );
    let limits = gpu.limits().clone();
    let compared = kernels
        .iter()
        .map(|&kernel| {
            gpu.select_kernel(kernel)?;
            let ptx_facts = PtxFacts::of(kernel.module.ptx, kernel.entry);
            Ok(Compared { kernel, resources: gpu.kernel_resources()?, ptx_facts })
        })
        .collect::<Result<Vec<_>>>()?;

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &block in blocks {
        let threads_per_block = block.threads();
        let mut cells = Vec::new();
        let mut launches = Vec::new();
        for &kernel in kernels {
            let label = kernel.module.label;
            gpu.select_kernel(kernel)?;
            let (blocks_per_sm, grid) = one_wave(gpu, workload, block)?;
            // One checked launch per kernel and block size; the timed rounds come after.
            let check = Timing::launch(0, 1);
            let Checked { mismatch, .. } = checked::measure(
                gpu,
                workload,
                grid,
                block,
                check,
                checked::Verdict::Check { corrupt: None },
                &[],
            )
            .with_context(|| label.to_string())?;
            if let Some(mismatch) = mismatch {
                failures.push(WrongOutput { kernel, block, mismatch });
            }
            let launch = workload.launch(grid, block)?;
            for _ in 0..warmups {
                gpu.time_one_launch(&launch)?;
            }
            launches.push(launch);
            cells.push(Cell {
                kernel,
                blocks_per_sm,
                grid,
                round_ms: Vec::with_capacity(rounds as usize),
                counters: None,
            });
        }
        time_rounds(gpu, kernels, &launches, &mut cells, rounds)?;
        rows.push(CompareRow { threads_per_block, block, cells });
    }

    Ok(Comparison {
        limits,
        pass: workload.pass().clone(),
        warmups,
        rounds,
        kernels: compared,
        baseline,
        rows,
        failures,
        counters: None,
    })
}

/// The timed rounds of one block size: one launch of each kernel a round, each between its own
/// events, who goes first rotating every round; each time into its cell.
fn time_rounds(
    gpu: &mut dyn Gpu,
    kernels: &[KernelRef],
    launches: &[Launch],
    cells: &mut [Cell],
    rounds: u32,
) -> Result<()> {
    for round in 0..rounds as usize {
        for offset in 0..kernels.len() {
            let index = (round + offset) % kernels.len();
            gpu.select_kernel(kernels[index])?;
            let ms = gpu.time_one_launch(&launches[index])?;
            cells[index].round_ms.push(ms);
        }
    }
    Ok(())
}

/// `kernel`'s blocks per SM at `block` with `workload`'s shared memory, and its one-wave grid:
/// the grid each cell launches (the selected kernel's occupancy decides it).
fn one_wave(gpu: &mut dyn Gpu, workload: &dyn Workload, block: BlockShape) -> Result<(u32, GridShape)> {
    let blocks_per_sm = gpu.blocks_per_sm(block.threads(), workload.dynamic_shared_memory(block))?;
    let grid = GridPolicy::OneWave.grid_for(
        blocks_per_sm,
        gpu.limits().multiprocessors,
        workload.pass().item_count(),
        workload.domain(),
        block,
        workload.block_covers(block),
    );
    Ok((blocks_per_sm, grid))
}

/// How a replay (`--counters`) and the reading of its counters name a cell: its build and
/// block, `nvcc 256 threads`.
pub(crate) fn cell_label(kernel: KernelRef, block: BlockShape) -> String {
    format!("{} {}", kernel.module.label, configuration_label(block, &AxisValues::none()))
}

/// A replay under a profiler (`--counters`): every kernel at every block size launched once,
/// unchecked and untimed, on the grid [`run`] gives it, in [`run`]'s order; returns what was
/// launched, in order.
pub(crate) fn replay(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    kernels: &[KernelRef],
    blocks: &[BlockShape],
) -> Result<Vec<Launched>> {
    let mut launched = Vec::new();
    for &block in blocks {
        for &kernel in kernels {
            gpu.select_kernel(kernel)?;
            let (_, grid) = one_wave(gpu, workload, block)?;
            gpu.time_one_launch(&workload.launch(grid, block)?)
                .with_context(|| kernel.module.label.to_string())?;
            launched.push(Launched { label: cell_label(kernel, block), block, grid });
        }
    }
    Ok(launched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::mock::MockGpu;
    use crate::tests::fixture::{self, MODULE, THIRD, TWIN};

    const KERNELS: [KernelRef; 3] = [MODULE.kernel("scale"), TWIN.kernel("scale"), THIRD.kernel("scale")];

    fn three_kernel_gpu() -> MockGpu {
        let mut gpu = fixture::gpu();
        for kernel in &KERNELS {
            crate::measure::gpu::backend::Device::load(&mut gpu, kernel).unwrap();
        }
        gpu.kernel_time_factors = KERNELS.into_iter().zip([1.0, 0.5, 2.0]).collect();
        gpu.milliseconds = vec![(128, 0.1), (256, 0.2)];
        gpu
    }

    fn compare(gpu: &mut MockGpu, rounds: u32) -> Comparison {
        let mut workload = fixture::workload(gpu, fixture::kernel(256));
        run(
            gpu,
            workload.as_mut(),
            &KERNELS,
            KERNELS[1],
            &[BlockShape::linear(128), BlockShape::linear(256)],
            2,
            rounds,
        )
        .unwrap()
    }

    #[test]
    fn a_replay_launches_each_kernel_once_at_each_block_size_on_the_grid_the_rounds_use() {
        let mut gpu = three_kernel_gpu();
        let timed = compare(&mut gpu, 1);
        gpu.launches.clear();
        gpu.timed.clear();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(256));
        gpu.launches.clear();
        let blocks = [BlockShape::linear(128), BlockShape::linear(256)];
        let launched = replay(&mut gpu, workload.as_mut(), &KERNELS, &blocks).unwrap();
        let labels: Vec<&str> = launched.iter().map(|launch| launch.label.as_str()).collect();
        let expected: Vec<String> = [128, 256]
            .into_iter()
            .flat_map(|threads| KERNELS.map(|kernel| format!("{} {threads} threads", kernel.module.label)))
            .collect();
        assert_eq!(labels, expected, "the rounds' order: block by block, the kernels in turn");
        assert_eq!(gpu.launches.len(), 6, "one launch a cell, nothing checked: {:?}", gpu.launches);
        for (launch, cell) in launched.iter().zip(timed.rows.iter().flat_map(|row| &row.cells)) {
            assert_eq!(launch.grid, cell.grid, "{}", launch.label);
        }
    }

    #[test]
    fn rounds_interleave_kernels_and_rotate_who_goes_first() {
        let mut gpu = three_kernel_gpu();
        compare(&mut gpu, 3);
        // Per block size: per kernel a checked launch (through time_launches, not listed
        // here) and 2 warm-ups, then 3 rounds of 3 with the order rotating.
        let first_row: Vec<&str> =
            gpu.timed.iter().filter(|(_, t)| *t == 128).map(|(k, _)| k.module.label).collect();
        let [a, b, c] = KERNELS.map(|kernel| kernel.module.label);
        assert_eq!(first_row, [a, a, b, b, c, c, a, b, c, b, c, a, c, a, b]);
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
        assert_eq!(row.cell(KERNELS[0]).round_ms.len(), 4);
        assert_eq!(row.cell(KERNELS[1]).median_ms(), f64::from(0.2f32 * 0.5));
        assert_eq!(row.cell(KERNELS[0]).grid_blocks(), 1, "256 values need one block of 256");
        assert_eq!(round_ratios(row, KERNELS[2], KERNELS[1]), [4.0; 4]);
        assert_eq!(result.kernels.len(), 3);
        assert_eq!(result.baseline, KERNELS[1]);
        assert_eq!(result.others().collect::<Vec<_>>(), [KERNELS[0], KERNELS[2]]);
    }

    #[test]
    fn a_wrong_kernel_is_named_and_the_others_are_not() {
        let mut gpu = three_kernel_gpu();
        gpu.wrong_kernel = Some(KERNELS[2]);
        let result = compare(&mut gpu, 2);
        let named: Vec<(KernelRef, u32)> =
            result.failures.iter().map(|f| (f.kernel, f.block.threads())).collect();
        assert_eq!(named, [(KERNELS[2], 128), (KERNELS[2], 256)]);
        assert_eq!(
            result.failures[0].to_string(),
            "wrong output from the scale-third kernel at 128 threads per block: value 0 is -1, the CPU reference says 0"
        );
    }

    #[test]
    fn every_kernel_compared_gets_the_shared_memory() {
        let kernels = [MODULE.kernel("scale"), TWIN.kernel("scale")];
        let mut gpu = fixture::gpu();
        gpu.shared_memory_residency = vec![(64, 8192, 25), (1024, 8192, 2)];
        gpu.wrong_kernel = Some(kernels[1]);
        gpu.wrong_element = 2047;
        let mut workload =
            fixture::workload(&mut gpu, fixture::kernel(4096).dynamic_shared_memory(|_, _| 8192));
        crate::measure::gpu::backend::Device::load(&mut gpu, &kernels[1]).unwrap();
        let result = run(
            &mut gpu,
            workload.as_mut(),
            &kernels,
            kernels[1],
            &[BlockShape::linear(64), BlockShape::linear(1024)],
            1,
            3,
        )
        .unwrap();
        let labels: Vec<&str> = result.kernels.iter().map(|compared| compared.kernel.module.label).collect();
        assert_eq!(labels, ["scale", "scale-twin"]);
        assert_eq!(result.baseline, kernels[1]);
        assert_eq!(result.rows[0].cell(kernels[0]).blocks_per_sm, 25, "the 8 KiB reached the query");
        assert!(gpu.occupancy_queries.borrow().iter().all(|&(_, smem)| smem == 8192));
        // The twin computes a value wrong here: it is named, at its value, and the other is not.
        let named: Vec<(&str, bool)> = result
            .failures
            .iter()
            .map(|f| (f.kernel.module.label, f.mismatch.description.starts_with("value 2047 is -1")))
            .collect();
        assert_eq!(named, [("scale-twin", true), ("scale-twin", true)]);
    }
}
