/*!
An occupancy model of one SM: how many blocks of a kernel fit, and which resource runs out first.

The same four limits the driver applies (`cuOccupancyMaxActiveBlocksPerMultiprocessor`), computed
from published per-architecture numbers so that they can be explored with no GPU (`block-size
occupancy`) and checked against the driver on every sweep.

Sources, cited beside each number:
- \[Guide\] CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications
  per Compute Capability" (resident warps, blocks, registers, shared memory per SM and block);
  and the per-architecture sections on shared memory carve-outs.
- \[Occ\] `cuda_occupancy.h` of the CUDA 12.9 toolkit, which documents the allocation rules the
  driver applies: registers are allocated per warp in units of 256, from one of 4 sub-partitions
  of the register file; shared memory in units of 256 bytes (7.x) or 128 bytes (8.x and later);
  and from 8.0 on the driver reserves 1 KiB of shared memory per block.
*/

use crate::model::limits::DeviceLimits;
use crate::model::occupancy::{WARP_SIZE, occupancy_percent, warps_per_block};

/// Registers per thread `occupancy` assumes without `--regs`: the grayscale kernel's count
/// on sm_90 (ptxas -v on the committed PTX).
pub const DEFAULT_REGISTERS: u32 = 16;

/// The resource limits of one SM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmModel {
    /// The compute capability modelled.
    pub compute_capability: (u32, u32),
    /// Resident warps per SM. \[Guide\]
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM. \[Guide\]
    pub max_blocks_per_sm: u32,
    /// 32-bit registers per SM: 64K on every architecture here. \[Guide\]
    pub registers_per_sm: u32,
    /// 32-bit registers one block may hold: 64K. \[Guide\]
    pub max_registers_per_block: u32,
    /// Registers per thread a kernel may use: 255. \[Guide\]
    pub max_registers_per_thread: u32,
    /// Registers are allocated per warp in multiples of this. \[Occ\]
    pub register_allocation_unit: u32,
    /// The register file is split into this many sub-partitions; a warp's registers come from
    /// one of them, so each holds a quarter of the warps. \[Occ\]
    pub register_sub_partitions: u32,
    /// Shared memory per SM at the largest carve-out, in bytes. \[Guide\]
    pub shared_memory_per_sm: u32,
    /// Shared memory one block may use (with the opt-in attribute), in bytes. \[Guide\]
    pub max_shared_memory_per_block: u32,
    /// Shared memory is allocated per block in multiples of this many bytes. \[Occ\]
    pub shared_memory_allocation_unit: u32,
    /// Shared memory the driver reserves for itself in every block, in bytes. \[Guide\], \[Occ\]
    pub reserved_shared_memory_per_block: u32,
}

const KIB: u32 = 1024;

impl SmModel {
    /// The model for a compute capability, where this project knows it.
    pub fn for_compute_capability(major: u32, minor: u32) -> Option<Self> {
        // (max warps/SM, max blocks/SM, shared memory/SM, max shared memory/block), [Guide].
        let (max_warps_per_sm, max_blocks_per_sm, shared_memory_per_sm, max_shared_memory_per_block) =
            match (major, minor) {
                // Turing: 1024 threads/SM, 16 blocks, 64 KB shared memory per SM and per block.
                (7, 5) => (32, 16, 64 * KIB, 64 * KIB),
                // A100: 2048 threads/SM, 32 blocks, 164 KB per SM, 163 KB per block.
                (8, 0) => (64, 32, 164 * KIB, 163 * KIB),
                // GA10x: 1536 threads/SM, 16 blocks, 100 KB per SM, 99 KB per block.
                (8, 6) => (48, 16, 100 * KIB, 99 * KIB),
                // Ada: 1536 threads/SM, 24 blocks, 100 KB per SM, 99 KB per block.
                (8, 9) => (48, 24, 100 * KIB, 99 * KIB),
                // Hopper: 2048 threads/SM, 32 blocks, 228 KB per SM, 227 KB per block.
                (9, 0) => (64, 32, 228 * KIB, 227 * KIB),
                // Consumer Blackwell: 1536 threads/SM, 32 blocks; of its 128 KB unified L1 the
                // largest shared-memory carve-out is 100 KB, and a block may use 99 KB.
                (12, 0) => (48, 32, 100 * KIB, 99 * KIB),
                _ => return None,
            };
        Some(Self {
            compute_capability: (major, minor),
            max_warps_per_sm,
            max_blocks_per_sm,
            registers_per_sm: 64 * KIB,
            max_registers_per_block: 64 * KIB,
            max_registers_per_thread: 255,
            register_allocation_unit: 256,
            register_sub_partitions: 4,
            shared_memory_per_sm,
            max_shared_memory_per_block,
            shared_memory_allocation_unit: if major >= 8 { 128 } else { 256 },
            reserved_shared_memory_per_block: if major >= 8 { KIB } else { 0 },
        })
    }

    /// The model of a real device: its own reported limits, with the allocation rules of
    /// its architecture. `None` for an architecture this model does not know (before 7.5,
    /// and 8.7, 10.x, 11.x, 12.1 and later so far): their rules are not checked here, and
    /// a model that guessed them would fail sweeps that are right.
    pub fn from_device(limits: &DeviceLimits) -> Option<Self> {
        let (major, minor) = limits.compute_capability;
        let known = Self::for_compute_capability(major, minor)?;
        Some(Self {
            compute_capability: limits.compute_capability,
            max_warps_per_sm: limits.max_warps_per_sm(),
            max_blocks_per_sm: limits.max_blocks_per_sm,
            registers_per_sm: limits.registers_per_sm,
            max_registers_per_block: limits.max_registers_per_block,
            shared_memory_per_sm: limits.shared_memory_per_sm,
            max_shared_memory_per_block: limits.max_shared_memory_per_block,
            reserved_shared_memory_per_block: limits.reserved_shared_memory_per_block,
            ..known
        })
    }

    /// What each of the four limits alone allows: blocks of `threads_per_block` threads with
    /// `registers_per_thread` registers and `shared_memory_per_block` bytes of shared memory
    /// (static plus dynamic) by warps, by the block cap, by registers and by shared memory, in
    /// that order. `u32::MAX` where a resource is not used at all (0 registers, or no shared
    /// memory and no reserve). [`SmModel::occupancy`] is their minimum.
    pub fn limits(
        &self,
        threads_per_block: u32,
        registers_per_thread: u32,
        shared_memory_per_block: u32,
    ) -> [(Limiter, u32); 4] {
        let warps = warps_per_block(threads_per_block);
        let by_warps = self.max_warps_per_sm / warps;
        let by_blocks = self.max_blocks_per_sm;

        // Registers: per warp, rounded up to the allocation unit; warps per SM are what one
        // sub-partition holds, times the sub-partitions. A block over the per-block budget
        // (counted as if its warps filled every sub-partition evenly) does not fit at all.
        let registers_per_warp =
            (registers_per_thread * WARP_SIZE).next_multiple_of(self.register_allocation_unit);
        let by_registers = if registers_per_warp == 0 {
            u32::MAX
        } else if registers_per_thread > self.max_registers_per_thread
            || registers_per_warp * warps.next_multiple_of(self.register_sub_partitions)
                > self.max_registers_per_block
        {
            0
        } else {
            let per_sub_partition = self.registers_per_sm / self.register_sub_partitions / registers_per_warp;
            per_sub_partition * self.register_sub_partitions / warps
        };

        // Shared memory: the block's own plus the driver's reserve, rounded up to the unit.
        // Checked: a block may ask for any number of bytes (`--smem 4294967295`), and a model
        // read from a file may hold any reserve; what overflows fits no SM.
        let shared_per_block = shared_memory_per_block
            .checked_add(self.reserved_shared_memory_per_block)
            .and_then(|bytes| bytes.checked_next_multiple_of(self.shared_memory_allocation_unit));
        let by_shared_memory = match shared_per_block {
            Some(_) if shared_memory_per_block > self.max_shared_memory_per_block => 0,
            Some(bytes) => self.shared_memory_per_sm.checked_div(bytes).unwrap_or(u32::MAX),
            None => 0,
        };

        [
            (Limiter::Warps, by_warps),
            (Limiter::Blocks, by_blocks),
            (Limiter::Registers, by_registers),
            (Limiter::SharedMemory, by_shared_memory),
        ]
    }

    /// Blocks of `threads_per_block` threads of a kernel with `registers_per_thread`
    /// registers and `shared_memory_per_block` bytes of shared memory (static plus dynamic)
    /// that fit on one SM, and which limits bind.
    pub fn occupancy(
        &self,
        threads_per_block: u32,
        registers_per_thread: u32,
        shared_memory_per_block: u32,
    ) -> Occupancy {
        let warps = warps_per_block(threads_per_block);
        let limits = self.limits(threads_per_block, registers_per_thread, shared_memory_per_block);
        let blocks_per_sm = limits.iter().map(|&(_, blocks)| blocks).min().expect("four limits");
        let limiters =
            limits.iter().filter(|&&(_, blocks)| blocks == blocks_per_sm).map(|&(l, _)| l).collect();
        let warps_per_sm = blocks_per_sm * warps;
        Occupancy {
            blocks_per_sm,
            warps_per_sm,
            occupancy_percent: occupancy_percent(warps_per_sm, self.max_warps_per_sm),
            limiters,
        }
    }
}

/// A resource that caps the blocks per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limiter {
    /// Resident warps per SM.
    Warps,
    /// Resident blocks per SM.
    Blocks,
    /// Registers per SM.
    Registers,
    /// Shared memory per SM.
    SharedMemory,
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Warps => "warps",
            Self::Blocks => "blocks",
            Self::Registers => "registers",
            Self::SharedMemory => "shared memory",
        })
    }
}

/// The model's answer for one block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    /// Blocks that fit on one SM.
    pub blocks_per_sm: u32,
    /// Their warps.
    pub warps_per_sm: u32,
    /// Their warps over the SM's maximum, in percent.
    pub occupancy_percent: f64,
    /// Every limit that equals `blocks_per_sm` (several where two limits meet).
    pub limiters: Vec<Limiter>,
}

impl Occupancy {
    /// The binding limits, joined: `warps`, or `warps+blocks` where two meet.
    pub fn limiter_names(&self) -> String {
        limiter_names(&self.limiters)
    }
}

/// Limits joined as the tables print them: `warps`, `warps+blocks`, `shared memory`.
pub fn limiter_names(limiters: &[Limiter]) -> String {
    limiters.iter().map(Limiter::to_string).collect::<Vec<_>>().join("+")
}

/// A GPU the `occupancy` command knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// What `--gpu` accepts.
    pub key: &'static str,
    /// The product's name.
    pub name: &'static str,
    /// Its compute capability.
    pub compute_capability: (u32, u32),
    /// SMs on the product, from its datasheet.
    pub multiprocessors: u32,
}

impl Preset {
    /// The SM model of its compute capability.
    pub fn model(&self) -> SmModel {
        SmModel::for_compute_capability(self.compute_capability.0, self.compute_capability.1)
            .expect("every preset's compute capability is modelled")
    }
}

/// The presets. SM counts from each product's datasheet or architecture whitepaper.
pub const PRESETS: [Preset; 6] = [
    Preset { key: "t4", name: "Tesla T4", compute_capability: (7, 5), multiprocessors: 40 },
    Preset { key: "a100", name: "A100", compute_capability: (8, 0), multiprocessors: 108 },
    Preset { key: "rtx4090", name: "GeForce RTX 4090", compute_capability: (8, 9), multiprocessors: 128 },
    Preset { key: "h100", name: "H100 SXM", compute_capability: (9, 0), multiprocessors: 132 },
    Preset { key: "h200", name: "H200", compute_capability: (9, 0), multiprocessors: 132 },
    Preset { key: "rtx5090", name: "GeForce RTX 5090", compute_capability: (12, 0), multiprocessors: 170 },
];

/// The preset called `key` (case-insensitive).
pub fn preset(key: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.key.eq_ignore_ascii_case(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [u32; 13] = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];

    fn column(preset: &str, registers: u32, shared: u32) -> Vec<u32> {
        let model = super::preset(preset).unwrap().model();
        SIZES.iter().map(|&t| model.occupancy(t, registers, shared).blocks_per_sm).collect()
    }

    #[test]
    fn the_lessons_t4_column_for_the_grayscale_kernel() {
        // block_size.cu's kernel uses few registers; the lesson's T4 table.
        assert_eq!(column("t4", 16, 0), [16, 16, 16, 10, 8, 8, 6, 5, 4, 2, 2, 1, 1]);
    }

    #[test]
    fn shared_memory_past_any_sm_fits_no_block_and_overflows_nothing() {
        assert_eq!(column("h200", 16, u32::MAX), [0; 13]);
        assert_eq!(column("t4", 255, u32::MAX - 100), [0; 13]);
        let mut model = preset("h200").unwrap().model();
        model.reserved_shared_memory_per_block = u32::MAX;
        assert_eq!(model.occupancy(256, 16, 0).blocks_per_sm, 0);
    }

    #[test]
    fn the_h200_column_measured_for_this_project() {
        assert_eq!(column("h200", 16, 0), [32, 32, 32, 21, 16, 16, 12, 10, 8, 5, 4, 2, 2]);
    }

    #[test]
    fn limiters_name_the_binding_resource() {
        let t4 = preset("T4").unwrap().model();
        // 32 threads: 1 warp, so 32 blocks by warps, but only 16 block slots.
        assert_eq!(t4.occupancy(32, 16, 0).limiters, [Limiter::Blocks]);
        // 64 threads: 2 warps, 32 / 2 = 16 = the block cap: the two limits meet.
        assert_eq!(t4.occupancy(64, 16, 0).limiter_names(), "warps+blocks");
        // 96 threads: 3 warps, floor(32 / 3) = 10 blocks, 30 of 32 warps.
        let sawtooth = t4.occupancy(96, 16, 0);
        assert_eq!((sawtooth.blocks_per_sm, sawtooth.warps_per_sm), (10, 30));
        assert_eq!(sawtooth.occupancy_percent, 93.75);
        assert_eq!(sawtooth.limiters, [Limiter::Warps]);
    }

    #[test]
    fn register_limited_at_128_registers_per_thread() {
        let h200 = preset("h200").unwrap().model();
        // 128 registers x 32 lanes = 4096 registers per warp (already a multiple of 256).
        // One sub-partition has 65536 / 4 = 16384 registers: 4 warps; 4 sub-partitions: 16
        // warps per SM. A 256-thread block is 8 warps: 16 / 8 = 2 blocks, 25 % occupancy.
        let at_256 = h200.occupancy(256, 128, 0);
        assert_eq!((at_256.blocks_per_sm, at_256.warps_per_sm), (2, 16));
        assert_eq!(at_256.limiters, [Limiter::Registers]);
        assert_eq!(at_256.occupancy_percent, 25.0);
        // 1024 threads = 32 warps x 4096 = 131072 registers > 65536 per block: no block fits.
        assert_eq!(h200.occupancy(1024, 128, 0).blocks_per_sm, 0);
        // 80 registers: 80 x 32 = 2560 per warp; a sub-partition holds 16384 / 2560 = 6 warps
        // (6.4), so the SM holds 24, not the 25 that 65536 / 2560 = 25.6 would suggest:
        // warps cannot straddle sub-partitions. One-warp blocks: 24 of them.
        let at_80 = h200.occupancy(32, 80, 0);
        assert_eq!((at_80.blocks_per_sm, at_80.limiters.as_slice()), (24, &[Limiter::Registers][..]));
    }

    #[test]
    fn register_allocation_rounds_up_per_warp() {
        let t4 = preset("t4").unwrap().model();
        // 33 registers x 32 = 1056, rounded up to 1280 per warp; 16384 / 1280 = 12 warps
        // per sub-partition, 48 per SM, above the T4's 32: warps still bind at 256 threads.
        assert_eq!(t4.occupancy(256, 33, 0).limiters, [Limiter::Warps]);
        // 65 registers: 2080 -> 2304 per warp; 16384 / 2304 = 7, 28 warps per SM: 3 blocks
        // of 256 threads (8 warps) instead of 4.
        let at_65 = t4.occupancy(256, 65, 0);
        assert_eq!((at_65.blocks_per_sm, at_65.limiters.as_slice()), (3, &[Limiter::Registers][..]));
    }

    #[test]
    fn shared_memory_limited_at_48_kib_per_block() {
        // H200: 48 KiB + 1 KiB reserved = 50176 bytes (a multiple of 128);
        // 228 KiB = 233472 bytes / 50176 = 4 blocks.
        let h200 = preset("h200").unwrap().model();
        let h200_at_256 = h200.occupancy(256, 16, 48 * 1024);
        assert_eq!(h200_at_256.blocks_per_sm, 4);
        assert_eq!(h200_at_256.limiters, [Limiter::SharedMemory]);
        // T4: no reserve; 65536 / 49152 = 1 block.
        assert_eq!(preset("t4").unwrap().model().occupancy(256, 16, 48 * 1024).blocks_per_sm, 1);
        // RTX 4090: 100 KiB = 102400 / 50176 = 2 blocks.
        assert_eq!(preset("rtx4090").unwrap().model().occupancy(256, 16, 48 * 1024).blocks_per_sm, 2);
        // More than a block may have: none fits.
        assert_eq!(preset("t4").unwrap().model().occupancy(32, 16, 65 * 1024).blocks_per_sm, 0);
    }

    #[test]
    fn the_driver_reserve_alone_does_not_bind_for_a_kernel_without_shared_memory() {
        // 228 KiB / 1 KiB = 228 blocks, far above the 32-block cap.
        let h200 = preset("h200").unwrap().model();
        assert_eq!(h200.occupancy(32, 16, 0).limiters, [Limiter::Blocks]);
    }

    #[test]
    fn one_block_size_does_not_suit_every_gpu() {
        // 768 threads: 24 warps. 2 blocks fill an H100's 64 warps only to 75 %, 2 fill an
        // RTX 5090's 48 to 100 %, and a T4 takes 1 (75 %).
        let at_768 = |key| preset(key).unwrap().model().occupancy(768, 16, 0).occupancy_percent;
        assert_eq!(at_768("h100"), 75.0);
        assert_eq!(at_768("rtx5090"), 100.0);
        assert_eq!(at_768("t4"), 75.0);
    }

    #[test]
    fn dynamic_shared_memory_of_the_histogram_on_an_h200() {
        let h200 = preset("h200").unwrap().model();
        // 4096 bins: 16384 B + 1024 B reserved = 17408 B (a multiple of 128) per block;
        // 233472 / 17408 = 13.4: 13 blocks, whatever the block size, until warps bind.
        let column: Vec<(u32, String)> = SIZES
            .iter()
            .map(|&threads| {
                let occupancy = h200.occupancy(threads, 16, 16 * 1024);
                (occupancy.blocks_per_sm, occupancy.limiter_names())
            })
            .collect();
        let blocks: Vec<u32> = column.iter().map(|(blocks, _)| *blocks).collect();
        assert_eq!(blocks, [13, 13, 13, 13, 13, 13, 12, 10, 8, 5, 4, 2, 2]);
        assert!(column[..6].iter().all(|(_, limiter)| limiter == "shared memory"), "{column:?}");
        assert!(column[6..].iter().all(|(_, limiter)| limiter == "warps"), "{column:?}");
        // 2048 bins: 8192 + 1024 = 9216 B: 25 blocks, below the 32-block cap at 16 to 64 threads.
        assert_eq!(h200.occupancy(64, 16, 8 * 1024).blocks_per_sm, 25);
        assert_eq!(h200.occupancy(96, 16, 8 * 1024).limiters, [Limiter::Warps]);
        // 256 bins: 1024 + 1024 = 2048 B: 114 blocks by shared memory, far from binding.
        assert_eq!(h200.occupancy(32, 16, 1024).limiters, [Limiter::Blocks]);
    }

    #[test]
    fn shared_memory_rounds_up_after_the_reserve() {
        let h200 = preset("h200").unwrap().model();
        let by_shared = |bytes| {
            let occupancy = h200.occupancy(32, 16, bytes);
            (occupancy.blocks_per_sm, occupancy.limiters.contains(&Limiter::SharedMemory))
        };
        // 1 B + 1024 B reserved = 1025, rounded up to 1152: 202 blocks' worth; the cap binds.
        assert_eq!(by_shared(1), (32, false));
        // 13 KiB: 13312 B alone would fit 17 times in 233472 B; with the reserve, 14336 B: 16.
        assert_eq!(by_shared(13 * 1024), (16, true));
        // 12709 B + 1024 = 13733 B would fit 17 times; rounded up to 13824 B, 16 times.
        assert_eq!(by_shared(12_709), (16, true));
        assert_eq!(by_shared(12_672), (17, true), "12672 + 1024 = 13696 = 107 x 128 exactly");
        // 227 KiB, the opt-in maximum, fits once; a byte more does not fit at all.
        assert_eq!(by_shared(227 * 1024), (1, true));
        assert_eq!(by_shared(227 * 1024 + 1), (0, true));
        // Turing has no reserve and a 256-byte unit: 16 KiB + 1 B -> 16640: 65536 / 16640 = 3.
        let t4 = preset("t4").unwrap().model();
        assert_eq!(t4.occupancy(32, 16, 16 * 1024 + 1).blocks_per_sm, 3);
        assert_eq!(t4.occupancy(32, 16, 16 * 1024).blocks_per_sm, 4);
    }

    #[test]
    fn a_device_model_uses_the_devices_own_limits() {
        let limits = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        let from_device = SmModel::from_device(&limits).unwrap();
        assert_eq!(from_device, preset("h200").unwrap().model());
        let pascal = DeviceLimits { compute_capability: (6, 1), ..limits.clone() };
        assert!(SmModel::from_device(&pascal).is_none());
    }

    #[test]
    fn only_known_architectures_get_a_device_model() {
        let limits = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        let with = |compute_capability| DeviceLimits { compute_capability, ..limits.clone() };
        // B200 (10.0), GB300 (10.3), Thor (11.0), DGX Spark (12.1), V100 (7.0), Orin (8.7):
        // not modelled, so not checked.
        for unknown in [(10, 0), (10, 3), (11, 0), (12, 1), (7, 0), (8, 7)] {
            assert!(SmModel::from_device(&with(unknown)).is_none(), "{unknown:?}");
        }
        for known in [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (12, 0)] {
            assert!(SmModel::from_device(&with(known)).is_some(), "{known:?}");
        }
    }

    #[test]
    fn presets_are_found_by_key_and_unknown_ones_are_not() {
        assert_eq!(preset("H100").unwrap().multiprocessors, 132);
        assert!(preset("v100").is_none());
        assert!(SmModel::for_compute_capability(6, 1).is_none());
        for preset in PRESETS {
            assert_eq!(preset.model().compute_capability, preset.compute_capability);
        }
    }
}
