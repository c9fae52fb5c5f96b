/*!
`variants`: after the block size, the memory operations. Every configuration of a kernel's axes
(its shapes: vector loads, several items a thread a trip, copies of shared memory), from its own
module and from its first twin (CUDA C++ beside Rust), at every block size: the driver's
occupancy (with the configuration's dynamic shared memory) and a one-wave grid over the items a
thread covers ([`crate::Kernel::items_per_thread`]), a check of the output and its timed runs;
a device-to-device copy of half the bytes a pass counts, reading and writing them, timed in the
same run, is the practical ceiling.
*/

use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Gpu, Timing};
use crate::measure::gpu::ptx::{EmbeddedPtx, KernelRef};
use crate::measure::profiler::Launched;
use crate::measure::sampling::checked::{self, Checked};
use crate::measure::sampling::workload::Workload as _;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Counters, CountersRun};
use crate::model::limits::DeviceLimits;
use crate::model::occupancy::one_wave_grid;
use crate::model::pass::Pass;
use crate::model::stats::RunStats;
use crate::search::sweep::CheckFailure;
use anyhow::{Context as _, Result};

/// One configuration of the kernel's axes as one compiler built it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Who compiled it, as the table names it: `Rust`, `C++`, or its module's label.
    pub compiler: String,
    /// The configuration's values on the axes, as the table names it: `k1`, `vec4`.
    pub name: String,
    /// The configuration's position among the kernel's.
    pub index: usize,
    /// Items one thread covers a trip: the grid needs this many times fewer threads.
    pub items_per_thread: u32,
    /// Its entry point in that compiler's module.
    pub kernel: KernelRef,
}

/// The compiler of `module` as the table names it: `Rust` for cuda_builder's and rustc's PTX,
/// `C++` for nvcc's (from its stamp), else the module's label.
pub fn compiler_of(module: EmbeddedPtx) -> String {
    match module.stamp().compiler.as_str() {
        "cuda_builder" | "rustc-nvptx" => "Rust".to_string(),
        "nvcc" => "C++".to_string(),
        _ => module.label.to_string(),
    }
}

/// Every configuration of `run`'s kernel in `modules`, module by module in order, each
/// configuration's entry in that module.
pub fn candidates(run: &Run, modules: &[EmbeddedPtx]) -> Vec<Candidate> {
    let kernel = run.kernel();
    modules
        .iter()
        .flat_map(|&module| {
            kernel.variants().iter().map(move |variant| {
                let values: Vec<&str> = variant.axes.values().collect();
                Candidate {
                    compiler: compiler_of(module),
                    name: if values.is_empty() { variant.entry.to_string() } else { values.join(" ") },
                    index: variant.index,
                    items_per_thread: kernel.items_per_thread_of(variant),
                    kernel: module.kernel(variant.entry),
                }
            })
        })
        .collect()
}

/// Peak DRAM bandwidth on the product datasheets, GB/s, by a part of the driver's name.
/// Sources: NVIDIA's H200, H100, A100, T4, RTX 4090 and RTX 5090 product pages.
const DATASHEET_PEAKS: [(&str, f64); 7] = [
    ("H200", 4800.0),
    ("H100 80GB HBM3", 3350.0),
    ("A100-SXM4-80GB", 2039.0),
    ("A100-SXM4-40GB", 1555.0),
    ("Tesla T4", 320.0),
    ("RTX 4090", 1008.0),
    ("RTX 5090", 1792.0),
];

/// The datasheet peak for a device name, where this program knows it.
pub fn datasheet_peak(name: &str) -> Option<f64> {
    DATASHEET_PEAKS.iter().find(|(part, _)| name.contains(part)).map(|&(_, peak)| peak)
}

/// One kernel at one block size.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantRow {
    /// The kernel.
    pub candidate: Candidate,
    /// The candidate's registers per thread after the driver's JIT.
    pub registers_per_thread: u32,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Bytes of dynamic shared memory a block asked for.
    pub shared_memory: u32,
    /// The driver's blocks/SM.
    pub blocks_per_sm: u32,
    /// Blocks launched: one wave, fewer where the items per trip need fewer.
    pub grid_blocks: u32,
    /// The samples' median, extremes and MAD.
    pub stats: RunStats,
    /// Its hardware counters (`--counters`; `None`: not asked, or not read).
    pub counters: Option<Counters>,
}

/// Everything one `variants` run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Variants {
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass is: the work and the bytes the GB/s columns count.
    pub pass: Pass,
    /// The buffers that start past their allocation's start, each with its offset in
    /// elements and in bytes.
    pub offsets: Vec<(&'static str, usize, usize)>,
    /// How each row was timed.
    pub timing: Timing,
    /// The kernels measured, in order.
    pub candidates: Vec<Candidate>,
    /// The device-to-device copy of half the bytes a pass counts (it reads and writes them).
    pub copy: RunStats,
    /// One row per kernel and block size.
    pub rows: Vec<VariantRow>,
    /// Every check that failed, with the kernel's name.
    pub failures: Vec<(String, CheckFailure)>,
    /// What `--counters` read for the run as a whole; `None`: not asked.
    pub counters: Option<CountersRun>,
}

impl Variants {
    /// Bytes one pass counts.
    pub fn bytes_moved(&self) -> f64 {
        self.pass.bytes_per_pass
    }

    /// The bytes one pass moves over `milliseconds`, in GB/s.
    pub fn gigabytes_per_second(&self, milliseconds: f64) -> f64 {
        self.pass.gigabytes_per_second(milliseconds)
    }

    /// The ceiling: the copy's bandwidth, counting what it reads and what it writes.
    pub fn copy_gigabytes_per_second(&self) -> f64 {
        self.gigabytes_per_second(self.copy.median)
    }

    /// The compilers of the candidates, each once, in order.
    pub fn compilers(&self) -> Vec<&str> {
        let mut compilers: Vec<&str> = Vec::new();
        for candidate in &self.candidates {
            if !compilers.contains(&candidate.compiler.as_str()) {
                compilers.push(&candidate.compiler);
            }
        }
        compilers
    }

    /// The fastest row, overall or of one compiler.
    pub fn fastest(&self, compiler: Option<&str>) -> Option<&VariantRow> {
        self.rows
            .iter()
            .filter(|row| compiler.is_none_or(|compiler| row.candidate.compiler == compiler))
            .min_by(|a, b| a.stats.median.total_cmp(&b.stats.median))
    }

    /// The candidate of `compiler` and the configuration named `name`, where it ran.
    pub fn candidate(&self, compiler: &str, name: &str) -> Option<&Candidate> {
        self.candidates.iter().find(|c| c.compiler == compiler && c.name == name)
    }

    /// The fastest row of one candidate.
    pub fn fastest_of(&self, candidate: &Candidate) -> Option<&VariantRow> {
        self.rows
            .iter()
            .filter(|row| row.candidate == *candidate)
            .min_by(|a, b| a.stats.median.total_cmp(&b.stats.median))
    }
}

/// Runs every candidate, each loaded in `gpu`, at every block size, on `run` (uploaded): each
/// candidate's configuration selected before its rows, each row's occupancy query given its
/// dynamic shared memory.
pub fn run(
    gpu: &mut dyn Gpu,
    run: &mut Run,
    candidates: &[Candidate],
    block_sizes: &[u32],
    timing: Timing,
) -> Result<Variants> {
    let limits = gpu.limits().clone();
    let pass = run.pass().clone();
    // Half of what a pass counts, read and written: as many bytes as the pass. The work is in
    // host memory, so its byte count fits.
    let bytes = (pass.bytes_per_pass / 2.0) as usize;
    let copy = RunStats::of(&gpu.time_copy(bytes, timing).context("timing the device-to-device copy")?);
    let offsets = run
        .kernel()
        .buffers
        .iter()
        .filter(|buffer| buffer.offset > 0)
        .map(|buffer| (buffer.name, buffer.offset, buffer.offset * buffer.element_size))
        .collect();

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for candidate in candidates {
        gpu.select_kernel(candidate.kernel)?;
        run.select(candidate.index, gpu)?;
        let registers_per_thread = gpu.kernel_resources()?.registers_per_thread;
        let label = format!("{} {}", candidate.compiler, candidate.name);
        for &threads_per_block in block_sizes {
            let block = BlockShape::linear(threads_per_block);
            let (shared, blocks_per_sm, grid_blocks) = launch_of(gpu, run, candidate, threads_per_block)?;
            let Checked { run_ms, mismatch, .. } = checked::measure(
                gpu,
                run,
                GridShape::linear(grid_blocks),
                block,
                timing,
                checked::Verdict::Check { corrupt: None },
                &[],
            )
            .with_context(|| label.clone())?;
            if let Some(mismatch) = mismatch {
                failures.push((label.clone(), CheckFailure::WrongOutput { block, mismatch }));
            }
            rows.push(VariantRow {
                candidate: candidate.clone(),
                registers_per_thread,
                threads_per_block,
                shared_memory: shared,
                blocks_per_sm,
                grid_blocks,
                stats: RunStats::of(&run_ms),
                counters: None,
            });
        }
    }
    let candidates = candidates.to_vec();
    Ok(Variants { limits, pass, offsets, timing, candidates, copy, rows, failures, counters: None })
}

/// A row's dynamic shared memory, the driver's blocks/SM and its grid: one wave over the trips
/// of `candidate`'s items a thread (`candidate` selected in `gpu` and `run`).
fn launch_of(
    gpu: &mut dyn Gpu,
    run: &Run,
    candidate: &Candidate,
    threads_per_block: u32,
) -> Result<(u32, u32, u32)> {
    let items = run.pass().item_count();
    let trips = items.div_ceil(u64::from(candidate.items_per_thread.max(1)));
    let shared = run.dynamic_shared_memory(BlockShape::linear(threads_per_block));
    let blocks_per_sm = gpu.blocks_per_sm(threads_per_block, shared)?;
    let grid_blocks =
        one_wave_grid(blocks_per_sm, gpu.limits().multiprocessors, trips.max(1), threads_per_block);
    Ok((shared, blocks_per_sm, grid_blocks))
}

/// How a replay (`--counters`) and the reading of its counters name a row: `Rust x4 256 threads`.
pub(crate) fn row_label(candidate: &Candidate, threads_per_block: u32) -> String {
    format!("{} {} {threads_per_block} threads", candidate.compiler, candidate.name)
}

/// A replay under a profiler (`--counters`): every candidate at every block size launched once,
/// unchecked and untimed, on the grid [`run`] gives it, in [`run`]'s order; returns what was
/// launched, in order.
pub(crate) fn replay(
    gpu: &mut dyn Gpu,
    run: &mut Run,
    candidates: &[Candidate],
    block_sizes: &[u32],
) -> Result<Vec<Launched>> {
    let mut launched = Vec::new();
    for candidate in candidates {
        gpu.select_kernel(candidate.kernel)?;
        run.select(candidate.index, gpu)?;
        for &threads_per_block in block_sizes {
            let block = BlockShape::linear(threads_per_block);
            let (_, _, grid_blocks) = launch_of(gpu, run, candidate, threads_per_block)?;
            let grid = GridShape::linear(grid_blocks);
            gpu.time_one_launch(&run.launch(grid, block)?)
                .with_context(|| row_label(candidate, threads_per_block))?;
            launched.push(Launched { label: row_label(candidate, threads_per_block), block, grid });
        }
    }
    Ok(launched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasheet_peaks_match_driver_names() {
        assert_eq!(datasheet_peak("NVIDIA H200"), Some(4800.0));
        assert_eq!(datasheet_peak("NVIDIA H100 80GB HBM3"), Some(3350.0));
        assert_eq!(datasheet_peak("Tesla T4"), Some(320.0));
        assert_eq!(datasheet_peak("NVIDIA GeForce GTX 1080"), None);
    }

    #[test]
    fn a_compiler_is_named_from_its_stamp() {
        let stamped = |compiler: &str| {
            let text = format!(
                "kernels = [\"k\"]\narch = \"compute_75\"\ncompiler = \"{compiler}\"\ninputs = []\n\
                 inputs_sha256 = \"x\"\nptx_sha256 = \"x\"\nregenerate = \"x\"\n"
            );
            compiler_of(EmbeddedPtx::user("mine", "").with_stamp(text.leak()))
        };
        assert_eq!(stamped("cuda_builder"), "Rust");
        assert_eq!(stamped("rustc-nvptx"), "Rust");
        assert_eq!(stamped("nvcc"), "C++");
        assert_eq!(compiler_of(EmbeddedPtx::user("mine", "")), "mine");
    }
}
