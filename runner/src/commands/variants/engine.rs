/*!
`block-size variants`: after the block size, the memory operations. The same kernel as several
shapes, each in Rust (cuda_builder) and CUDA C++ (nvcc). For the grayscale conversion
([`Family::Grayscale`]): one pixel per thread per trip (`k1`, the sweep's kernel), 16-byte
vector accesses (`vec4`), and 2, 4 or 8 pixels per trip with their loads issued first (`k2`,
`k4`, `k8`). For the histogram ([`Family::Histogram`]): its shapes
(`crate::kernel::workload::histogram::SHAPES`), from one 2-byte load per pixel to two or four 16-byte
vectors per trip, with one or several copies of the bins a block. Every (kernel, block size)
gets the driver's occupancy (with the kernel's dynamic shared memory) and a one-wave grid, a
CPU reference check and its timed runs; a device-to-device copy of half the bytes a pass
counts, reading and writing them, timed in the same run, is the practical ceiling.
*/

use crate::kernel::workload::histogram;

use crate::measure::workload::Workload;

use crate::measure::backend::{Gpu, Timing};
use crate::measure::checked::{self, Checked};
use crate::measure::ptx::{self, KernelRef};
use crate::model::limits::DeviceLimits;
use crate::model::occupancy::one_wave_grid;
use crate::model::pass::Pass;
use crate::model::stats::RunStats;
use crate::search::sweep::CheckFailure;
use anyhow::{Context as _, Result};

/// One shape of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Its name in the table: `k1`, `vec4`, `k2`, `k4`, `k8`; `x8k2`, ...
    pub name: &'static str,
    /// Entry point, the same in the Rust and the C++ module.
    pub entry: &'static str,
    /// Pixels one thread converts (or counts) per loop trip; a grid needs this many times fewer
    /// threads to cover the frame in one trip.
    pub pixels_per_trip: u32,
}

/// Every shape of the grayscale kernel, in the table's order.
pub const VARIANTS: [Variant; 5] = [
    Variant { name: "k1", entry: "grayscale", pixels_per_trip: 1 },
    Variant { name: "vec4", entry: "grayscale_vec4", pixels_per_trip: 4 },
    Variant { name: "k2", entry: "grayscale_k2", pixels_per_trip: 2 },
    Variant { name: "k4", entry: "grayscale_k4", pixels_per_trip: 4 },
    Variant { name: "k8", entry: "grayscale_k8", pixels_per_trip: 8 },
];

/// The kernels `variants` measures the shapes of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The grayscale conversion: [`VARIANTS`], C++ in `kernels/cuda/grayscale.cu`.
    Grayscale,
    /// The luma histogram: `histogram::SHAPES`, C++ in `kernels/cuda/histogram.cu`.
    Histogram,
}

impl Family {
    /// Its shapes, in the table's order.
    pub fn variants(self) -> Vec<Variant> {
        match self {
            Self::Grayscale => VARIANTS.to_vec(),
            Self::Histogram => histogram::SHAPES
                .iter()
                .map(|shape| Variant {
                    name: shape.variant,
                    entry: shape.entry,
                    pixels_per_trip: shape.pixels_per_trip(),
                })
                .collect(),
        }
    }

    /// The module its shapes are in, for `compiler`.
    pub fn module(self, compiler: Compiler) -> ptx::EmbeddedPtx {
        match (self, compiler) {
            (_, Compiler::Rust) => ptx::RUST_CUDA,
            (Self::Grayscale, Compiler::Cpp) => ptx::NVCC,
            (Self::Histogram, Compiler::Cpp) => ptx::HISTOGRAM_NVCC,
        }
    }
}

/// The compiler of a variant: rust-cuda's `cuda_builder` or nvcc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compiler {
    /// rust-cuda's `cuda_builder`.
    Rust,
    /// nvcc.
    Cpp,
}

impl Compiler {
    /// Both, Rust first.
    pub const ALL: [Self; 2] = [Self::Rust, Self::Cpp];
}

/// `Rust` or `C++`, as the table names them.
impl std::fmt::Display for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Rust => "Rust",
            Self::Cpp => "C++",
        })
    }
}

/// A variant as compiled by one compiler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Who compiled it.
    pub compiler: Compiler,
    /// The shape.
    pub variant: Variant,
    /// Its entry point in that compiler's module.
    pub kernel: KernelRef,
}

/// Every variant of `family` from cuda_builder, then every one from nvcc.
pub fn candidates(family: Family) -> Vec<Candidate> {
    Compiler::ALL
        .into_iter()
        .flat_map(|compiler| {
            family.variants().into_iter().map(move |variant| Candidate {
                compiler,
                variant,
                kernel: family.module(compiler).kernel(variant.entry),
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
    /// Blocks launched: one wave, fewer where the pixels per trip need fewer.
    pub grid_blocks: u32,
    /// The samples' median, extremes and MAD.
    pub stats: RunStats,
}

/// Everything one `variants` run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Variants {
    /// The kernel whose shapes these are.
    pub family: Family,
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass is: the frame and the bytes the GB/s columns count.
    pub pass: Pass,
    /// Elements every buffer starts past an aligned address.
    pub offset: usize,
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
}

impl Variants {
    /// Bytes one pass counts (moves, for the grayscale kernel; reads, for the histogram).
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

    /// The fastest row, overall or of one compiler.
    pub fn fastest(&self, compiler: Option<Compiler>) -> Option<&VariantRow> {
        self.rows
            .iter()
            .filter(|row| compiler.is_none_or(|compiler| row.candidate.compiler == compiler))
            .min_by(|a, b| a.stats.median.total_cmp(&b.stats.median))
    }

    /// The candidate of `compiler` and the variant named `name`, where it ran.
    pub fn candidate(&self, compiler: Compiler, name: &str) -> Option<Candidate> {
        self.candidates.iter().copied().find(|c| c.compiler == compiler && c.variant.name == name)
    }

    /// The fastest row of one candidate.
    pub fn fastest_of(&self, candidate: Candidate) -> Option<&VariantRow> {
        self.rows
            .iter()
            .filter(|row| row.candidate == candidate)
            .min_by(|a, b| a.stats.median.total_cmp(&b.stats.median))
    }
}

/// Runs every candidate of `family`, each loaded in `gpu`, at every block size, on `workload`
/// (uploaded, its buffers `offset` elements past an aligned address). `prepare` readies the
/// workload for each candidate before its rows (the histogram's shared memory per block depends
/// on its shape); each row's occupancy query is given the workload's dynamic shared memory.
#[allow(clippy::too_many_arguments)]
pub fn run<W: Workload>(
    gpu: &mut dyn Gpu,
    family: Family,
    workload: &mut W,
    candidates: &[Candidate],
    block_sizes: &[u32],
    timing: Timing,
    offset: usize,
    mut prepare: impl FnMut(&mut W, &Candidate) -> Result<()>,
) -> Result<Variants> {
    let limits = gpu.limits().clone();
    let pass = workload.pass().clone();
    let pixels = pass.frame.pixels();
    // Half of what a pass counts, read and written: as many bytes as the pass. The frame is in
    // host memory, so its byte count fits.
    let bytes = (pass.bytes_per_pass / 2.0) as usize;
    let copy = RunStats::of(&gpu.time_copy(bytes, timing).context("timing the device-to-device copy")?);

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &candidate in candidates {
        gpu.select_kernel(candidate.kernel)?;
        prepare(workload, &candidate)?;
        let registers_per_thread = gpu.kernel_resources()?.registers_per_thread;
        let label = format!("{} {}", candidate.compiler, candidate.variant.name);
        let trips = pixels.div_ceil(u64::from(candidate.variant.pixels_per_trip));
        for &threads_per_block in block_sizes {
            let shared = workload.dynamic_shared_memory(threads_per_block);
            let blocks_per_sm = gpu.blocks_per_sm(threads_per_block, shared)?;
            let grid_blocks =
                one_wave_grid(blocks_per_sm, limits.multiprocessors, trips.max(1), threads_per_block);
            let Checked { run_ms, mismatch, .. } =
                checked::measure(gpu, workload, grid_blocks, threads_per_block, timing, None)
                    .with_context(|| label.clone())?;
            if let Some(mismatch) = mismatch {
                failures.push((label.clone(), CheckFailure::WrongOutput { threads_per_block, mismatch }));
            }
            rows.push(VariantRow {
                candidate,
                registers_per_thread,
                threads_per_block,
                shared_memory: shared,
                blocks_per_sm,
                grid_blocks,
                stats: RunStats::of(&run_ms),
            });
        }
    }
    Ok(Variants {
        family,
        limits,
        pass,
        offset,
        timing,
        candidates: candidates.to_vec(),
        copy,
        rows,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::mock::MockGpu;

    #[test]
    fn ten_candidates_rust_first() {
        let all = candidates(Family::Grayscale);
        assert_eq!(all.len(), 10);
        assert_eq!(
            (all[0].compiler, all[0].variant.name, all[0].kernel.entry),
            (Compiler::Rust, "k1", "grayscale")
        );
        assert_eq!((all[6].compiler.to_string(), all[6].variant.name), ("C++".to_string(), "vec4"));
        assert_eq!(all[6].kernel.module, ptx::NVCC);
    }

    #[test]
    fn the_histogram_has_fourteen_candidates_its_cpp_in_its_own_module() {
        let all = candidates(Family::Histogram);
        assert_eq!(all.len(), 14);
        let names: Vec<&str> = all[..7].iter().map(|candidate| candidate.variant.name).collect();
        assert_eq!(names, ["k1", "x4", "x8", "x8k2", "x8k4", "x8k2c", "x8k4c"]);
        let trips: Vec<u32> = all[..7].iter().map(|candidate| candidate.variant.pixels_per_trip).collect();
        assert_eq!(trips, [1, 4, 8, 16, 32, 16, 32]);
        assert!(all[..7].iter().all(|candidate| candidate.kernel.module == ptx::RUST_CUDA));
        assert!(all[7..].iter().all(|candidate| candidate.kernel.module == ptx::HISTOGRAM_NVCC));
        assert_eq!((all[10].compiler, all[10].kernel.entry), (Compiler::Cpp, "histogram_x8k2"));
    }

    #[test]
    fn every_variant_entry_is_in_both_modules() {
        for candidate in [candidates(Family::Grayscale), candidates(Family::Histogram)].concat() {
            let entry = format!(".entry {}(", candidate.variant.entry);
            assert!(
                candidate.kernel.module.ptx.contains(&entry),
                "{} lacks {entry}",
                candidate.kernel.module.file
            );
        }
    }

    #[test]
    fn datasheet_peaks_match_driver_names() {
        assert_eq!(datasheet_peak("NVIDIA H200"), Some(4800.0));
        assert_eq!(datasheet_peak("NVIDIA H100 80GB HBM3"), Some(3350.0));
        assert_eq!(datasheet_peak("Tesla T4"), Some(320.0));
        assert_eq!(datasheet_peak("NVIDIA GeForce GTX 1080"), None);
    }

    #[test]
    fn grids_shrink_with_pixels_per_trip_and_copy_is_the_ceiling() {
        use crate::kernel::workload::Params;
        use crate::kernel::workload::grayscale::GrayscaleWorkload;
        use crate::measure::backend::KernelArg;
        use crate::measure::workload::Workload as _;
        let picked = [candidates(Family::Grayscale)[0], candidates(Family::Grayscale)[4]];
        let mut gpu = MockGpu::h200_with(&picked.map(|candidate| candidate.kernel));
        gpu.kernel_time_factors = vec![(picked[1].kernel, 0.9)];
        gpu.copy_gb_per_s = 4250.0;
        let mut workload = GrayscaleWorkload::new(&Params { offset: 1, ..Params::frame(100, 100) }).unwrap();
        workload.upload(&mut gpu).unwrap();
        let timing = Timing::launch(1, 3);
        let result =
            run(&mut gpu, Family::Grayscale, &mut workload, &picked, &[256], timing, 1, |_, _| Ok(()))
                .unwrap();
        // 10,000 pixels: k1 needs ceil(10000/256) = 40 blocks, k8 ceil(1250/256) = 5.
        let grids: Vec<u32> = result.rows.iter().map(|row| row.grid_blocks).collect();
        assert_eq!(grids, [40, 5]);
        assert!((result.copy_gigabytes_per_second() - 4250.0).abs() < 1.0);
        assert_eq!(result.fastest(None).unwrap().candidate, picked[1]);
        assert_eq!(result.fastest(Some(Compiler::Rust)).unwrap().candidate, picked[1]);
        assert_eq!(result.fastest(Some(Compiler::Cpp)), None);
        assert!(result.failures.is_empty());
        let args = &gpu.last_launch.as_ref().unwrap().args;
        assert!(matches!(args[0], KernelArg::Buffer(_, 4)), "one float in: {args:?}");
    }

    #[test]
    fn histogram_rows_ask_each_shapes_shared_memory_and_are_checked() {
        use crate::kernel::workload::Params;
        use crate::kernel::workload::histogram::{HistogramWorkload, SHAPES, shape_of_entry};
        use crate::measure::workload::Workload as _;
        let all = candidates(Family::Histogram);
        let mut gpu = MockGpu::h200_with(&all.iter().map(|candidate| candidate.kernel).collect::<Vec<_>>());
        gpu.copy_gb_per_s = 4000.0;
        let params = Params { bins: 256, offset: 3, ..Params::frame(1001, 7) };
        let mut workload = HistogramWorkload::new(&params, &SHAPES[0]).unwrap();
        workload.upload(&mut gpu).unwrap();
        let result = run(
            &mut gpu,
            Family::Histogram,
            &mut workload,
            &all,
            &[64, 1024],
            Timing::launch(1, 2),
            3,
            |workload, candidate| {
                workload.set_shape(shape_of_entry(candidate.kernel.entry).expect("a histogram shape"));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(result.rows.len(), 28);
        assert!(result.failures.is_empty(), "{:?}", result.failures);
        // 256 bins: 1 KiB a block, or 32 copies of them (32 KiB) for the spread shapes.
        let queries = gpu.occupancy_queries.borrow().clone();
        let spread = [(64, 32768), (1024, 32768)];
        let plain = [(64, 1024), (1024, 1024)];
        let want: Vec<(u32, u32)> =
            [plain, plain, plain, plain, plain, spread, spread].concat().repeat(2).into_iter().collect();
        assert_eq!(queries, want);
        // 7007 pixels; x8k4 covers 32 a thread a trip: 219 trips, 4 blocks of 64.
        let x8k4 = result.rows.iter().find(|row| row.candidate.variant.name == "x8k4").unwrap();
        assert_eq!(x8k4.grid_blocks, 4);
        // The copy reads and writes half of the 14014 bytes a pass reads.
        assert!((result.copy_gigabytes_per_second() - 4000.0).abs() < 1.0);
    }
}
