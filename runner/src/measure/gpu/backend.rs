/*!
The measuring backend: what the sweep needs from a GPU, behind one trait.

[`Gpu`] knows devices, kernels, buffers and launches, and nothing of any one kernel: a
[`crate::measure::sampling::workload::Workload`] allocates its buffers through it ([`Gpu::alloc_and_upload`]),
launches with its own argument list ([`KernelArg`]) and dynamic shared memory ([`Launch`]),
and checks what it downloads.

[`crate::measure::gpu::cuda::CudaGpu`] implements it with cust and the real driver; in tests, `mock::MockGpu`
(the `mock` feature, never in a release build) implements it on the CPU with scripted answers,
running each launch through the workload's CPU emulation
(registered with `mock::MockGpu::emulate`) over an [`EmulatedMemory`], so the whole pipeline
(sweep, checks, table, exit status) runs in tests on a machine with no GPU, for every kernel.
*/

use crate::measure::gpu::compat::Refusal;
use crate::measure::gpu::ptx::{self, KernelRef};
use crate::measure::sampling::timing::Op;
pub use crate::measure::sampling::timing::Timing;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::comparison::{ElementComparison, Mismatches};
use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
use anyhow::{Context as _, Result, anyhow, bail, ensure};
use std::thread::JoinHandle;
use std::time::Duration;

/// Why a device could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// No driver, no GPU, or no device with that ordinal.
    NoDevice(anyhow::Error),
    /// The device is there but could not be set up.
    Setup(anyhow::Error),
}

/// Why a module could not be loaded on an open device.
#[derive(Debug)]
pub enum LoadError {
    /// The driver refused the module: it cannot load it here (see [`crate::measure::gpu::compat`]).
    Refused(Refusal),
    /// Anything else, such as a module without the kernel asked for.
    Setup(anyhow::Error),
}

/// What every command runs on: the CUDA driver ([`crate::measure::gpu::cuda::CudaDriver`]), or in
/// tests (the `mock` feature) `mock::MockDriver`. Sealed: the library opens its devices, checks
/// each module against its CUDA version (the PTX ISA check) and loads those that pass.
pub trait Driver: DeviceSource {}

impl<T: DeviceSource> Driver for T {}

/// Where devices come from: [`Driver`]'s methods, the library's alone.
pub trait DeviceSource {
    /// The devices it opens.
    type Device: Device;

    /// The CUDA version the driver supports, as `cuDriverGetVersion` encodes it (12080 for
    /// 12.8); 0 when it does not say.
    fn cuda_version(&self) -> i32;

    /// Visible devices; no driver or no GPU is an error.
    fn device_count(&self) -> Result<u32>;

    /// Opens device `ordinal`, with no module loaded yet.
    fn open(&self, ordinal: u32) -> Result<Self::Device, OpenError>;

    /// Device `ordinal`'s name and compute capability, read without opening it (no context):
    /// what `--split` compares the GPUs by.
    fn model(&self, ordinal: u32) -> Result<(String, (u32, u32))>;

    /// Starts opening device `ordinal` on a thread of its own ([`EarlyOpen`]); by default
    /// nothing, where opening costs nothing worth overlapping.
    fn open_early(&self, _ordinal: u32) -> EarlyOpen {
        EarlyOpen::default()
    }

    /// What reads each row's hardware counters outside the timed samples (`--counters`): by
    /// default Nsight Compute over a replay of this program with its arguments
    /// ([`crate::measure::profiler::ncu`]).
    fn counter_source(&self) -> Box<dyn crate::measure::profiler::CounterSource> {
        Box::new(crate::measure::profiler::ncu::Ncu::for_this_program())
    }
}

/// A device being opened on a thread of its own while the caller builds its inputs
/// ([`crate::open_early`]): the CUDA driver's start and the device's primary context, about
/// 0.2 s on an H200, which the sweep's own open then finds done. Dropping it waits for the
/// thread and lets go of what it opened; the sweep holds the context on its own meanwhile, so
/// an early open dropped too soon costs its overlap and nothing else.
#[derive(Debug, Default)]
#[must_use = "the early open lasts as long as this value: bind it to a name (`_device`), not `_`"]
pub struct EarlyOpen {
    /// The thread; what it returns is held until the drop (a retained context).
    pub(crate) thread: Option<JoinHandle<Option<Box<dyn Send>>>>,
}

impl EarlyOpen {
    /// Runs `open` on a thread of its own, keeping what it returns until the drop. Where no
    /// thread can start, nothing is opened early and the sweep opens the device itself.
    pub(crate) fn on_thread(open: impl FnOnce() -> Option<Box<dyn Send>> + Send + 'static) -> Self {
        let thread = std::thread::Builder::new().name("block-size-open".into()).spawn(open).ok();
        Self { thread }
    }
}

impl Drop for EarlyOpen {
    fn drop(&mut self) {
        // Joined, never detached: a process must not exit while the driver is starting.
        if let Some(thread) = self.thread.take() {
            drop(thread.join());
        }
    }
}

/// An open device: a [`Gpu`] whose kernels are loaded one by one.
pub trait Device: Gpu {
    /// The device's UUID, which tells two GPUs of one name apart (a journal's key holds it).
    fn uuid(&self) -> Option<String> {
        None
    }

    /// Device memory free now, in bytes.
    fn free_memory(&self) -> Result<u64>;

    /// Loads `kernel`'s module; [`Gpu::select_kernel`] then takes `kernel` as its handle, and
    /// the first kernel loaded is active.
    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError>;
}

/// A launch that failed on the device ([`Gpu::launch_fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchFault {
    /// The fault poisons the context (an illegal address, an illegal instruction, a failed
    /// launch): nothing more can run in this process, and a fresh worker must go on.
    pub context_lost: bool,
}

/// A device buffer, as `Gpu::alloc_zeroed` hands it out: valid on the device that made it,
/// until the device is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferId(pub(crate) usize);

impl BufferId {
    /// Its position in the device's list of buffers.
    pub fn index(self) -> usize {
        self.0
    }
}

/// One kernel argument, in the kernel's parameter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelArg {
    /// The device address of a buffer, `byte_offset` bytes in (a 64-bit pointer).
    Buffer(BufferId, usize),
    /// A `u32` parameter.
    U32(u32),
    /// A `u64` parameter.
    U64(u64),
    /// A `usize` (`size_t`) parameter: 64 bits on every target this project builds for.
    Usize(usize),
}

impl KernelArg {
    /// Whether this argument fits a PTX parameter of type `ty` (`u64`, `u32`, ...).
    pub fn fits(&self, ty: &str) -> bool {
        match self {
            Self::Buffer(..) | Self::U64(_) | Self::Usize(_) => matches!(ty, "u64" | "b64" | "s64"),
            Self::U32(_) => matches!(ty, "u32" | "b32" | "s32"),
        }
    }

    /// The value of a `usize` or `u64` argument.
    pub fn as_usize(&self) -> Result<usize> {
        match *self {
            Self::Usize(value) => Ok(value),
            Self::U64(value) => usize::try_from(value).context("a u64 argument above usize"),
            other => bail!("expected a usize argument, got {other:?}"),
        }
    }

    /// The value of a `u32` argument.
    pub fn as_u32(&self) -> Result<u32> {
        match *self {
            Self::U32(value) => Ok(value),
            other => bail!("expected a u32 argument, got {other:?}"),
        }
    }
}

/// Checks `args` against the parameter types of `kernel`'s entry in its PTX: the same count,
/// and each argument the size of its parameter. Both backends run this before every launch,
/// so a workload whose argument list does not match its kernel is an error, not a launch
/// that reads garbage.
pub fn check_args(kernel: &KernelRef, params: &[String], args: &[KernelArg]) -> Result<()> {
    ensure!(
        params.len() == args.len(),
        "the {} kernel `{}` takes {} parameters, the launch passes {}",
        kernel.module.label,
        kernel.entry,
        params.len(),
        args.len()
    );
    for (index, (param, arg)) in params.iter().zip(args).enumerate() {
        ensure!(
            arg.fits(param),
            "parameter {index} of the {} kernel `{}` is .{param}, the launch passes {arg:?}",
            kernel.module.label,
            kernel.entry
        );
    }
    Ok(())
}

/// The parameter types of `kernel`'s entry, read from its PTX; an entry the PTX lacks is an
/// error.
pub fn kernel_params(kernel: &KernelRef) -> Result<Vec<String>> {
    ptx::entry_params(kernel.module.ptx, kernel.entry)
        .with_context(|| format!("the {} PTX has no kernel `{}`", kernel.module.label, kernel.entry))
}

/// One launch configuration of the active kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The grid's blocks in x, y and z.
    pub grid: GridShape,
    /// The block's threads in x, y and z.
    pub block: BlockShape,
    /// Bytes of dynamic shared memory per block (`sharedMemBytes` of `cuLaunchKernel`).
    pub dynamic_shared_memory: u32,
    /// The kernel's arguments, in its parameter order.
    pub args: Vec<KernelArg>,
    /// Buffers set to zero before every launch, outside the timed interval: the outputs of a
    /// kernel that adds to them (the histogram), so that each launch's result is one pass.
    pub zero_before_each: Vec<BufferId>,
}

impl Launch {
    /// Blocks in the grid, `x * y * z` (within `u32` for every grid a device launches).
    pub fn grid_blocks(&self) -> u32 {
        self.grid.blocks_within_u32()
    }

    /// Threads per block, `x * y * z`.
    pub fn threads_per_block(&self) -> u32 {
        self.block.threads()
    }
}

/// How much dynamic shared memory a block of a given size needs: what the driver's
/// occupancy calculation (`cuOccupancyMaxPotentialBlockSize`'s callback) asks for.
pub type SharedMemoryFn<'a> = &'a dyn Fn(u32) -> u32;

/// One device with kernels loaded, one of them active, and buffers allocated.
pub trait Gpu {
    /// What the driver reports about this device.
    fn limits(&self) -> &DeviceLimits;

    /// The watchdog every blocking wait on this device runs under.
    fn watchdog(&self) -> &crate::measure::supervision::watchdog::Watchdog;

    /// Makes loaded kernel `kernel` the one every other method uses.
    fn select_kernel(&mut self, kernel: KernelRef) -> Result<()>;

    /// Registers and static shared memory of the active kernel.
    fn kernel_resources(&self) -> Result<KernelResources>;

    /// The most threads a block of the selected kernel may have
    /// (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`: the device's, lowered by the PTX's
    /// `.maxntid` or `.reqntid` and by the kernel's registers).
    fn max_threads_per_block(&self) -> Result<u32>;

    /// Blocks of `threads_per_block` threads of the active kernel, each with
    /// `dynamic_shared_memory` bytes of dynamic shared memory, that fit on one SM, from the
    /// driver (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> Result<u32>;

    /// The driver's own block size and grid for the active kernel
    /// (`cuOccupancyMaxPotentialBlockSize`), given the dynamic shared memory each block size
    /// needs.
    fn suggestion(&self, dynamic_shared_memory: SharedMemoryFn) -> Result<Suggestion>;

    /// Allocates `bytes` bytes of device memory, set to zero.
    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId>;

    /// Copies `bytes` into `buffer` from `byte_offset` on.
    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()>;

    /// A new buffer holding `bytes`.
    fn alloc_and_upload(&mut self, bytes: &[u8]) -> Result<BufferId> {
        let buffer = self.alloc_zeroed(bytes.len())?;
        self.upload(buffer, 0, bytes)?;
        Ok(buffer)
    }

    /// Sets every byte of `buffer` to zero.
    fn zero(&mut self, buffer: BufferId) -> Result<()>;

    /// Copies `out.len()` bytes of `buffer`, from `byte_offset` on, into `out`, once every
    /// launch before it has finished.
    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()>;

    /// Copies `bytes` bytes from `from` to `to`, each a buffer and a byte offset in it, once
    /// every launch before it has finished: the first row's output kept on the device for
    /// [`crate::Check::same_as_first`]. By default through the host.
    fn copy(&mut self, from: (BufferId, usize), to: (BufferId, usize), bytes: usize) -> Result<()> {
        let mut staging = crate::measure::gpu::memory::host_vec::<u8>(bytes, "a copy through the host")?;
        staging.resize(bytes, 0);
        self.download(from.0, from.1, &mut staging)?;
        self.upload(to.0, to.1, &staging)
    }

    /// Compares `count` elements of `got` with `expected` (each a buffer and a byte offset in
    /// it) on the device as `comparison` says, once every launch before it has finished, and
    /// copies back what it found alone: the check of a row without its output copied back.
    /// `None` where this backend cannot: the caller then copies the output back and compares
    /// on the host.
    fn count_mismatches(
        &mut self,
        got: (BufferId, usize),
        expected: (BufferId, usize),
        count: usize,
        comparison: ElementComparison,
    ) -> Result<Option<Mismatches>> {
        let _ = (got, expected, count, comparison);
        Ok(None)
    }

    /// A row of a sweep is finished (measured and checked, or taken from a journal): what a
    /// wrapper that shows progress ([`crate::measure::supervision::progress::WithProgress`]) counts.
    fn row_finished(&mut self) {}

    /// Device-to-device copies of `bytes` (`cuMemcpyDtoDAsync`), after `timing.warmups`
    /// untimed ones, each timed between its own events: the bandwidth ceiling for kernels that
    /// move the same bytes.
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>>;

    /// Executes `ops` ([`crate::measure::sampling::timing::schedule`]) on the measuring stream with `launch` as
    /// the [`Op::Launch`]: its function handle and argument list are prepared before the first
    /// op, so between a sample's events there is the launch alone; so is the graph an
    /// [`Op::Graph`] replays, where no schedule of the same launch and count captured it yet.
    /// Returns the milliseconds of each [`Op::Sample`], in order. Where a schedule fails after [`Op::Block`], the blocking
    /// kernel is released before the error returns.
    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>>;

    /// Whether `error`, from a launch or a wait for one, is a fault of the launch itself (an
    /// illegal address, too many resources, a failed launch) rather than of the program, and
    /// whether it left the context unusable. The sweep marks such a configuration failed and
    /// goes on: in this process where the context survives, in a fresh worker where it does not.
    fn launch_fault(&self, error: &anyhow::Error) -> Option<LaunchFault> {
        let _ = error;
        None
    }

    /// Host time since an arbitrary start, which the noise-driven stop
    /// ([`crate::measure::sampling::checked::sample`]) budgets each row against: the wall clock since the
    /// device was opened for the driver, scripted in tests.
    fn clock(&self) -> Duration;

    /// The device's clock and energy sensors (NVML, [`crate::measure::sensors`]); `Err`: why
    /// it has none, one line.
    fn sensors(&mut self) -> Result<&mut dyn crate::measure::sensors::Sensors, String> {
        Err("this backend reads no sensors".into())
    }

    /// One launch between its own pair of events (launch mode, no warm-up); its milliseconds.
    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        let ops = crate::measure::sampling::timing::schedule(
            &Timing::launch(0, 1),
            0,
            1,
            !launch.zero_before_each.is_empty(),
        );
        let samples = self.run_schedule(launch, &ops)?;
        samples.first().copied().ok_or_else(|| anyhow!("a timed launch gave no sample"))
    }

    /// Runs the warm-ups, then the samples `timing` asks for, a fixed count of them
    /// ([`crate::measure::sampling::checked::sample`] adds the noise-driven stop), and returns every sample's
    /// milliseconds.
    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        let zero = !launch.zero_before_each.is_empty();
        self.run_schedule(
            launch,
            &crate::measure::sampling::timing::schedule(&timing, timing.warmups, timing.runs, zero),
        )
    }
}

#[cfg(any(test, feature = "mock"))]
/// Device memory as a kernel's CPU emulation sees it: the bytes behind a pointer argument.
/// The mock backend implements it; the emulations ([`crate::measure::gpu::backend::Emulation`]) read
/// their inputs and write their outputs through it.
pub trait EmulatedMemory {
    /// The bytes a pointer argument points at: its buffer from its offset on.
    fn at(&self, arg: &KernelArg) -> Result<&[u8]>;

    /// As [`EmulatedMemory::at`], to write.
    fn at_mut(&mut self, arg: &KernelArg) -> Result<&mut [u8]>;
}

#[cfg(any(test, feature = "mock"))]
/// The CPU emulation of a kernel, for the mock backend (`mock::MockGpu`): runs `launch` over
/// `memory` as the kernel would. With `fault`, output element `fault` comes out wrong (a
/// pixel of a wrong value, a bin counted once too often), so tests can show the checks
/// catching a wrong kernel.
pub type Emulation = fn(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()>;

/// The [`Gpu`] methods a wrapper of `self.inner` (a `&mut dyn Gpu`) passes on as they are: the
/// device's facts, the kernel selection, the occupancy queries, the clock and the fault test.
/// A wrapper ([`crate::measure::supervision::progress::WithProgress`], [`crate::measure::sampling::wall_time::Timed`])
/// writes the methods it watches itself and this for the rest.
macro_rules! pass_on_gpu_queries {
    () => {
        fn limits(&self) -> &crate::model::limits::DeviceLimits {
            self.inner.limits()
        }
        fn watchdog(&self) -> &crate::measure::supervision::watchdog::Watchdog {
            self.inner.watchdog()
        }
        fn select_kernel(&mut self, kernel: crate::measure::gpu::ptx::KernelRef) -> anyhow::Result<()> {
            self.inner.select_kernel(kernel)
        }
        fn max_threads_per_block(&self) -> anyhow::Result<u32> {
            self.inner.max_threads_per_block()
        }
        fn kernel_resources(&self) -> anyhow::Result<crate::model::limits::KernelResources> {
            self.inner.kernel_resources()
        }
        fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> anyhow::Result<u32> {
            self.inner.blocks_per_sm(threads_per_block, dynamic_shared_memory)
        }
        fn suggestion(
            &self,
            dynamic_shared_memory: crate::measure::gpu::backend::SharedMemoryFn,
        ) -> anyhow::Result<crate::model::limits::Suggestion> {
            self.inner.suggestion(dynamic_shared_memory)
        }
        fn clock(&self) -> std::time::Duration {
            self.inner.clock()
        }
        fn launch_fault(&self, error: &anyhow::Error) -> Option<crate::measure::gpu::backend::LaunchFault> {
            self.inner.launch_fault(error)
        }
    };
}
pub(crate) use pass_on_gpu_queries;
