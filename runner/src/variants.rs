/*!
`block-size variants`: after the block size, the memory operations. The same conversion as
five kernels, each in Rust (cuda_builder) and CUDA C++ (nvcc): one pixel per thread per trip
(`k1`, the sweep's kernel), 16-byte vector accesses (`vec4`), and 2, 4 or 8 pixels per trip with
their loads issued first (`k2`, `k4`, `k8`). Every (kernel, block size) gets the driver's
occupancy and a one-wave grid, a CPU reference check and its timed runs; a device-to-device copy
moving the same bytes, timed in the same run, is the practical ceiling.
*/

use crate::backend::{DeviceLimits, Gpu, Timing};
use crate::checked::{self, Checked};
use crate::occupancy::one_wave_grid;
use crate::ptx::{self, KernelRef};
use crate::stats::RunStats;
use crate::sweep::CheckFailure;
use crate::workload::Pass;
use crate::workload::grayscale::GrayscaleWorkload;
use anyhow::{Context as _, Result};

/// One shape of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Its name in the table: `k1`, `vec4`, `k2`, `k4`, `k8`.
    pub name: &'static str,
    /// Entry point, the same in the Rust and the C++ module.
    pub entry: &'static str,
    /// Pixels one thread converts per loop trip; a grid needs this many times fewer
    /// threads to cover the frame in one trip.
    pub pixels_per_trip: u32,
}

/// Every shape, in the table's order.
pub const VARIANTS: [Variant; 5] = [
    Variant { name: "k1", entry: "grayscale", pixels_per_trip: 1 },
    Variant { name: "vec4", entry: "grayscale_vec4", pixels_per_trip: 4 },
    Variant { name: "k2", entry: "grayscale_k2", pixels_per_trip: 2 },
    Variant { name: "k4", entry: "grayscale_k4", pixels_per_trip: 4 },
    Variant { name: "k8", entry: "grayscale_k8", pixels_per_trip: 8 },
];

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

    /// The module its variants are in.
    pub fn module(self) -> ptx::EmbeddedPtx {
        match self {
            Self::Rust => ptx::RUST_CUDA,
            Self::Cpp => ptx::NVCC,
        }
    }
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

/// Every variant from cuda_builder, then every variant from nvcc.
pub fn candidates() -> Vec<Candidate> {
    Compiler::ALL
        .into_iter()
        .flat_map(|compiler| {
            VARIANTS.into_iter().map(move |variant| Candidate {
                compiler,
                variant,
                kernel: compiler.module().kernel(variant.entry),
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
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass is: the grayscale kernel's frame and bytes.
    pub pass: Pass,
    /// Elements every buffer starts past an aligned address.
    pub offset: usize,
    /// How each row was timed.
    pub timing: Timing,
    /// The kernels measured, in order.
    pub candidates: Vec<Candidate>,
    /// The device-to-device copy of half the bytes a pass moves (it reads and writes them).
    pub copy: RunStats,
    /// One row per kernel and block size.
    pub rows: Vec<VariantRow>,
    /// Every check that failed, with the kernel's name.
    pub failures: Vec<(String, CheckFailure)>,
}

impl Variants {
    /// Bytes one pass moves.
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

/// Runs every candidate, each loaded in `gpu`, at every block size, on `workload` (uploaded,
/// its planes `offset` floats past an aligned address).
pub fn run(
    gpu: &mut dyn Gpu,
    workload: &mut GrayscaleWorkload,
    candidates: &[Candidate],
    block_sizes: &[u32],
    timing: Timing,
    offset: usize,
) -> Result<Variants> {
    use crate::workload::Workload as _;
    let limits = gpu.limits().clone();
    let pass = workload.pass().clone();
    let pixels = pass.frame.pixels();
    // The frame is in host memory, so its byte count fits.
    let bytes = pass
        .frame
        .bytes(crate::workload::grayscale::frame::BYTES_PER_PIXEL)
        .and_then(|bytes| usize::try_from(bytes).ok());
    let bytes = bytes.context("the frame's byte count does not fit this machine's address space")?;
    let copy = RunStats::of(&gpu.time_copy(bytes / 2, timing).context("timing the device-to-device copy")?);

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for &candidate in candidates {
        gpu.select_kernel(candidate.kernel)?;
        let registers_per_thread = gpu.kernel_resources()?.registers_per_thread;
        let label = format!("{} {}", candidate.compiler, candidate.variant.name);
        let trips = pixels.div_ceil(u64::from(candidate.variant.pixels_per_trip));
        for &threads_per_block in block_sizes {
            let blocks_per_sm = gpu.blocks_per_sm(threads_per_block, 0)?;
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
                blocks_per_sm,
                grid_blocks,
                stats: RunStats::of(&run_ms),
            });
        }
    }
    Ok(Variants { limits, pass, offset, timing, candidates: candidates.to_vec(), copy, rows, failures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockGpu;

    #[test]
    fn ten_candidates_rust_first() {
        let all = candidates();
        assert_eq!(all.len(), 10);
        assert_eq!(
            (all[0].compiler, all[0].variant.name, all[0].kernel.entry),
            (Compiler::Rust, "k1", "grayscale")
        );
        assert_eq!((all[6].compiler.to_string(), all[6].variant.name), ("C++".to_string(), "vec4"));
        assert_eq!(all[6].kernel.module, ptx::NVCC);
    }

    #[test]
    fn every_variant_entry_is_in_both_modules() {
        for candidate in candidates() {
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
        use crate::backend::KernelArg;
        use crate::workload::{Params, Workload as _};
        let picked = [candidates()[0], candidates()[4]];
        let mut gpu = MockGpu::h200_with(&picked.map(|candidate| candidate.kernel));
        gpu.kernel_time_factors = vec![(picked[1].kernel, 0.9)];
        gpu.copy_gb_per_s = 4250.0;
        let mut workload = GrayscaleWorkload::new(&Params { offset: 1, ..Params::frame(100, 100) }).unwrap();
        workload.upload(&mut gpu).unwrap();
        let timing = Timing::launch(1, 3);
        let result = run(&mut gpu, &mut workload, &picked, &[256], timing, 1).unwrap();
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
}
