/*!
Pruning by the occupancy model: a configuration that the device cannot launch at all (more
threads, registers or shared memory than one block may have) is not measured. Its row says why
([`crate::search::sweep::Row::pruned`]) and the sweep goes on; the rest are launched, and the driver keeps
the last word: a launch it refuses anyway is a failed row with the driver's message.
*/

use crate::model::limits::DEFAULT_SHARED_MEMORY_LIMIT;
use crate::model::limits::{DeviceLimits, KernelResources};
use crate::model::sm::{Limiter, SmModel};

/// Why a block of `threads_per_block` threads of a kernel with `resources`, launched with
/// `dynamic_shared_memory` bytes, cannot launch on the device of `limits`; `None` where it can
/// by every limit the model knows. `model` is the device's occupancy model, where there is one
/// (without it, the registers are counted without the allocation rules).
pub fn cannot_launch(
    limits: &DeviceLimits,
    model: Option<&SmModel>,
    resources: KernelResources,
    threads_per_block: u32,
    dynamic_shared_memory: u32,
) -> Option<String> {
    if threads_per_block > limits.max_threads_per_block {
        return Some(format!(
            "{threads_per_block} threads per block, above the device's {}",
            limits.max_threads_per_block
        ));
    }
    if dynamic_shared_memory > DEFAULT_SHARED_MEMORY_LIMIT {
        return Some(format!(
            "{dynamic_shared_memory} B of dynamic shared memory, above the {DEFAULT_SHARED_MEMORY_LIMIT} B a block gets without opting in"
        ));
    }
    let shared = resources.static_shared_memory.saturating_add(dynamic_shared_memory);
    if shared > limits.max_shared_memory_per_block {
        return Some(format!(
            "{shared} B of shared memory ({} static + {dynamic_shared_memory} dynamic), above the {} B a block may have",
            resources.static_shared_memory, limits.max_shared_memory_per_block
        ));
    }
    let registers = resources.registers_per_thread;
    let over_registers = match model {
        Some(model) => model
            .limits(threads_per_block, registers, shared)
            .iter()
            .any(|&(limiter, blocks)| limiter == Limiter::Registers && blocks == 0),
        None => {
            u64::from(registers) * u64::from(threads_per_block) > u64::from(limits.max_registers_per_block)
        }
    };
    over_registers.then(|| {
        format!(
            "{registers} registers a thread x {threads_per_block} threads, above the {} registers a block may hold",
            limits.max_registers_per_block
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h200() -> (DeviceLimits, SmModel) {
        let limits = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        let model = SmModel::from_device(&limits).expect("the model knows sm_90");
        (limits, model)
    }

    const LIGHT: KernelResources =
        KernelResources { registers_per_thread: 16, static_shared_memory: 0, local_bytes_per_thread: 0 };

    #[test]
    fn what_fits_is_launched() {
        let (limits, model) = h200();
        for threads in [1, 32, 1000, 1024] {
            assert_eq!(cannot_launch(&limits, Some(&model), LIGHT, threads, 48 * 1024), None, "{threads}");
        }
        // 64 registers x 1024 threads = 65536: exactly a block's.
        let heavy =
            KernelResources { registers_per_thread: 64, static_shared_memory: 0, local_bytes_per_thread: 0 };
        assert_eq!(cannot_launch(&limits, Some(&model), heavy, 1024, 0), None);
    }

    #[test]
    fn each_limit_is_named() {
        let (limits, model) = h200();
        assert_eq!(
            cannot_launch(&limits, Some(&model), LIGHT, 2048, 0).unwrap(),
            "2048 threads per block, above the device's 1024"
        );
        assert_eq!(
            cannot_launch(&limits, Some(&model), LIGHT, 256, 48 * 1024 + 4).unwrap(),
            "49156 B of dynamic shared memory, above the 49152 B a block gets without opting in"
        );
        let static_heavy = KernelResources {
            registers_per_thread: 16,
            static_shared_memory: 200 * 1024,
            local_bytes_per_thread: 0,
        };
        assert_eq!(
            cannot_launch(&limits, Some(&model), static_heavy, 256, 40 * 1024).unwrap(),
            format!(
                "245760 B of shared memory (204800 static + 40960 dynamic), above the {} B a block may have",
                limits.max_shared_memory_per_block
            )
        );
        // 72 registers: 2304 a warp; 32 warps need 73728 > 65536.
        let heavy =
            KernelResources { registers_per_thread: 72, static_shared_memory: 0, local_bytes_per_thread: 0 };
        let why = "72 registers a thread x 1024 threads, above the 65536 registers a block may hold";
        assert_eq!(cannot_launch(&limits, Some(&model), heavy, 1024, 0).unwrap(), why);
        assert_eq!(cannot_launch(&limits, None, heavy, 1024, 0).unwrap(), why);
        assert_eq!(cannot_launch(&limits, Some(&model), heavy, 512, 0), None);
    }
}
