/*!
The measuring backend: what the sweep needs from a GPU, behind one trait.

[`Gpu`] knows devices, kernels, buffers and launches, and nothing of any one kernel: a
[`crate::workload::Workload`] allocates its buffers through it ([`Gpu::alloc_and_upload`]),
launches with its own argument list ([`KernelArg`]) and dynamic shared memory ([`Launch`]),
and checks what it downloads.

[`crate::cuda::CudaGpu`] implements it with cust and the real driver; [`MockGpu`] implements
it on the CPU with scripted answers, running each launch through the workload's CPU emulation
([`crate::workload::KernelSpec::emulate`]), so the whole pipeline (sweep, checks, table, exit
status) runs in tests on a machine with no GPU, for every kernel.
*/

use crate::compat::Refusal;
use crate::ptx::{self, KernelRef};
use anyhow::{Context as _, Result, anyhow, bail, ensure};
use serde::Serialize;
use std::cell::RefCell;

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
    /// The driver refused the module: it cannot load it here (see [`crate::compat`]).
    Refused(Refusal),
    /// Anything else, such as a module without the kernel asked for.
    Setup(anyhow::Error),
}

/// Where devices come from: the CUDA driver ([`crate::cuda::CudaDriver`]), or in tests
/// [`MockDriver`]. The program opens a device, checks each module against the driver's
/// CUDA version ([`crate::compat::check`]) and loads those that pass.
pub trait Driver {
    type Device: Device;

    /// The CUDA version the driver supports, as `cuDriverGetVersion` encodes it (12080 for
    /// 12.8); 0 when it does not say.
    fn cuda_version(&self) -> i32;

    /// Visible devices; no driver or no GPU is an error.
    fn device_count(&self) -> Result<u32>;

    /// Opens device `ordinal`, with no module loaded yet.
    fn open(&self, ordinal: u32) -> Result<Self::Device, OpenError>;
}

/// An open device: a [`Gpu`] whose kernels are loaded one by one.
pub trait Device: Gpu {
    /// Device memory free now, in bytes.
    fn free_memory(&self) -> Result<u64>;

    /// Loads `kernel`'s module; [`Gpu::select_kernel`] then takes `kernel` as its handle, and
    /// the first kernel loaded is active.
    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError>;
}

/// What the driver reports about one device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceLimits {
    pub ordinal: u32,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub max_threads_per_sm: u32,
    pub warp_size: u32,
    /// Resident-block cap per SM (device attribute 106).
    pub max_blocks_per_sm: u32,
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM, and per block.
    pub registers_per_sm: u32,
    pub max_registers_per_block: u32,
    /// Shared memory per SM, the most one block may opt in to, and the driver's reserve
    /// per block, in bytes.
    pub shared_memory_per_sm: u32,
    pub max_shared_memory_per_block: u32,
    pub reserved_shared_memory_per_block: u32,
    /// L2 cache size in bytes.
    pub l2_cache_bytes: u32,
}

/// What the compiled kernel asks of an SM, as the driver reports it after its JIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KernelResources {
    pub registers_per_thread: u32,
    pub static_shared_memory: u32,
}

impl DeviceLimits {
    /// Resident warps per SM. The driver reports threads per SM, not warps.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size.max(1)
    }
}

/// `cuOccupancyMaxPotentialBlockSize`'s answer: the block size that reaches the highest
/// occupancy and the smallest grid that fills the device at that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub threads_per_block: u32,
    pub grid_blocks: u32,
}

/// How each row is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Timing {
    /// Untimed launches first, so the row does not pay for lazy module loading or clocks.
    pub warmups: u32,
    /// Timed launches, each between its own pair of events.
    pub runs: u32,
    /// Overwrite a scratch buffer of twice the L2 before each timed launch, outside the
    /// timed interval, so no launch finds the previous one's data in L2.
    pub flush_l2: bool,
}

/// A device buffer, as [`Gpu::alloc_zeroed`] hands it out: valid on the device that made it,
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
    U32(u32),
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
    pub grid_blocks: u32,
    pub threads_per_block: u32,
    /// Bytes of dynamic shared memory per block (`sharedMemBytes` of `cuLaunchKernel`).
    pub dynamic_shared_memory: u32,
    pub args: Vec<KernelArg>,
    /// Buffers set to zero before every launch, outside the timed interval: the outputs of a
    /// kernel that adds to them (the histogram), so that each launch's result is one pass.
    pub zero_before_each: Vec<BufferId>,
}

/// How much dynamic shared memory a block of a given size needs: what the driver's
/// occupancy calculation (`cuOccupancyMaxPotentialBlockSize`'s callback) asks for.
pub type SharedMemoryFn<'a> = &'a dyn Fn(u32) -> u32;

/// One device with kernels loaded, one of them active, and buffers allocated.
pub trait Gpu {
    fn limits(&self) -> &DeviceLimits;

    /// Makes loaded kernel `kernel` the one every other method uses.
    fn select_kernel(&mut self, kernel: KernelRef) -> Result<()>;

    /// Registers and static shared memory of the active kernel.
    fn kernel_resources(&self) -> Result<KernelResources>;

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

    /// Device-to-device copies of `bytes` (`cuMemcpyDtoDAsync`), after `timing.warmups`
    /// untimed ones, each timed between its own events: the bandwidth ceiling for kernels that
    /// move the same bytes.
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>>;

    /// One launch between its own pair of events; its milliseconds.
    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32>;

    /// Runs the warm-ups, then each timed launch between its own pair of events (after an
    /// L2 flush where asked), and returns every timed launch's milliseconds.
    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>>;
}

/// The mock's device memory: one buffer per allocation, each 8-byte aligned as a device
/// allocation is (more than) aligned, so emulations can view it as values in place.
#[derive(Debug, Clone, Default)]
pub struct MockMemory {
    /// Each buffer's words and its length in bytes.
    buffers: Vec<(Vec<u64>, usize)>,
}

impl MockMemory {
    fn alloc(&mut self, bytes: usize) -> BufferId {
        self.buffers.push((vec![0; bytes.div_ceil(8)], bytes));
        BufferId(self.buffers.len() - 1)
    }

    /// Every byte of `buffer`.
    pub fn bytes(&self, buffer: BufferId) -> Result<&[u8]> {
        let (words, len) = self.buffers.get(buffer.0).ok_or_else(|| anyhow!("no buffer {}", buffer.0))?;
        Ok(&crate::workload::as_bytes(words)[..*len])
    }

    /// Every byte of `buffer`, to write.
    pub fn bytes_mut(&mut self, buffer: BufferId) -> Result<&mut [u8]> {
        let (words, len) = self.buffers.get_mut(buffer.0).ok_or_else(|| anyhow!("no buffer {}", buffer.0))?;
        Ok(&mut crate::workload::as_bytes_mut(words)[..*len])
    }

    /// The bytes a pointer argument points at: its buffer from its offset on.
    pub fn at(&self, arg: &KernelArg) -> Result<&[u8]> {
        match *arg {
            KernelArg::Buffer(buffer, offset) => {
                self.bytes(buffer)?.get(offset..).ok_or_else(|| anyhow!("offset {offset} is past its buffer"))
            }
            other => bail!("expected a pointer argument, got {other:?}"),
        }
    }

    /// As [`MockMemory::at`], to write.
    pub fn at_mut(&mut self, arg: &KernelArg) -> Result<&mut [u8]> {
        match *arg {
            KernelArg::Buffer(buffer, offset) => self
                .bytes_mut(buffer)?
                .get_mut(offset..)
                .ok_or_else(|| anyhow!("offset {offset} is past its buffer")),
            other => bail!("expected a pointer argument, got {other:?}"),
        }
    }

    /// Buffers allocated so far.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }
}

/// A CPU stand-in for a GPU, for tests: scripted occupancy and times, launches run by the
/// workloads' CPU emulations on [`MockMemory`], and faults to inject.
#[derive(Debug, Clone)]
pub struct MockGpu {
    pub limits: DeviceLimits,
    pub resources: KernelResources,
    /// Blocks/SM answered for a block size, whatever the dynamic shared memory; sizes not
    /// listed get `default_blocks_per_sm`.
    pub blocks_per_sm: Vec<(u32, u32)>,
    /// Blocks/SM answered for (block size, dynamic shared memory per block), before
    /// `blocks_per_sm` is consulted: residency that shared memory limits.
    pub shared_memory_residency: Vec<(u32, u32, u32)>,
    pub default_blocks_per_sm: u32,
    pub suggestion: Suggestion,
    /// Milliseconds answered for a block size; sizes not listed get 1.0.
    pub milliseconds: Vec<(u32, f32)>,
    /// Fail `time_launches` at this block size with a driver-like error.
    pub fail_launch_at: Option<u32>,
    /// Per kernel, in load order, a factor on the scripted times; kernels past its end get 1.0.
    pub kernel_time_factors: Vec<f32>,
    /// Kernel (in load order) whose launches get output element `wrong_element` wrong: a
    /// pixel of a wrong value, or a bin counted once too often.
    pub wrong_kernel: Option<usize>,
    pub wrong_element: usize,
    /// Position in `loaded` of the active kernel.
    active: usize,
    /// Calls to `time_one_launch`, in order: (kernel, block size).
    pub timed: Vec<(KernelRef, u32)>,
    /// Relative spread of the scripted per-run times (0 for identical runs).
    pub run_spread: f32,
    /// L2 flushes done so far.
    pub l2_flushes: usize,
    /// Bandwidth the scripted device-to-device copy reaches, counting read and write.
    pub copy_gb_per_s: f64,
    /// The device memory the launches work on.
    pub memory: MockMemory,
    /// Every (grid, block) launched, in order, warm-ups included.
    pub launches: Vec<(u32, u32)>,
    /// The last launch, whole: its dynamic shared memory and arguments.
    pub last_launch: Option<Launch>,
    /// Every occupancy query, in order: (block size, dynamic shared memory). A cell because
    /// the queries take `&self`, as the driver's change nothing.
    pub occupancy_queries: RefCell<Vec<(u32, u32)>>,
    /// For each suggestion asked for, the dynamic shared memory the caller's function gave
    /// at 32, 256 and 1024 threads per block.
    pub suggestion_queries: RefCell<Vec<[u32; 3]>>,
    /// Device memory free, in bytes.
    pub free_memory: u64,
    /// Modules (by file) the driver refuses on this device, and how.
    pub refuses: Vec<(&'static str, Refusal)>,
    /// Kernels loaded through [`Device::load`], in order, with their PTX parameter types.
    pub loaded: Vec<(KernelRef, Vec<String>)>,
}

impl MockGpu {
    /// A device shaped like the H200 measured for this project: 132 SMs, 64 warps/SM,
    /// 32 blocks/SM, 1024 threads per block.
    pub fn h200_like() -> Self {
        let sizes = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];
        let residency = [32, 32, 32, 21, 16, 16, 12, 10, 8, 5, 4, 2, 2];
        Self {
            limits: DeviceLimits {
                ordinal: 0,
                name: "Mock H200".into(),
                compute_capability: (9, 0),
                multiprocessors: 132,
                max_threads_per_sm: 2048,
                warp_size: 32,
                max_blocks_per_sm: 32,
                max_threads_per_block: 1024,
                registers_per_sm: 65536,
                max_registers_per_block: 65536,
                shared_memory_per_sm: 233_472,
                max_shared_memory_per_block: 232_448,
                reserved_shared_memory_per_block: 1024,
                l2_cache_bytes: 62_914_560,
            },
            resources: KernelResources { registers_per_thread: 16, static_shared_memory: 0 },
            blocks_per_sm: sizes.into_iter().zip(residency).collect(),
            shared_memory_residency: Vec::new(),
            default_blocks_per_sm: 1,
            suggestion: Suggestion { threads_per_block: 1024, grid_blocks: 264 },
            milliseconds: Vec::new(),
            fail_launch_at: None,
            kernel_time_factors: Vec::new(),
            wrong_kernel: None,
            wrong_element: 0,
            active: 0,
            timed: Vec::new(),
            run_spread: 0.0,
            l2_flushes: 0,
            copy_gb_per_s: 4000.0,
            memory: MockMemory::default(),
            launches: Vec::new(),
            last_launch: None,
            occupancy_queries: RefCell::default(),
            suggestion_queries: RefCell::default(),
            // An H200 has 141 GB; a little of it is the driver's.
            free_memory: 140_000_000_000,
            refuses: Vec::new(),
            loaded: Vec::new(),
        }
    }

    /// [`MockGpu::h200_like`] with `kernels` loaded, the first one active.
    pub fn h200_with(kernels: &[KernelRef]) -> Self {
        let mut gpu = Self::h200_like();
        for kernel in kernels {
            gpu.load(kernel).expect("the mock loads every embedded kernel");
        }
        gpu
    }

    fn scripted_ms(&self, threads_per_block: u32) -> f32 {
        let ms = self
            .milliseconds
            .iter()
            .find(|(threads, _)| *threads == threads_per_block)
            .map_or(1.0, |(_, ms)| *ms);
        ms * self.kernel_time_factors.get(self.active).copied().unwrap_or(1.0)
    }

    fn active_kernel(&self) -> Result<&(KernelRef, Vec<String>)> {
        self.loaded.get(self.active).ok_or_else(|| anyhow!("no kernel loaded"))
    }

    /// One "launch": the active kernel's CPU emulation over the mock's memory. A grid-stride
    /// loop of any grid covers every element, so the emulation computes them all.
    fn launch(&mut self, launch: &Launch) -> Result<()> {
        let (kernel, params) = self.active_kernel()?;
        let kernel = *kernel;
        check_args(&kernel, params, &launch.args)?;
        self.launches.push((launch.grid_blocks, launch.threads_per_block));
        self.last_launch = Some(launch.clone());
        for &buffer in &launch.zero_before_each {
            self.memory.bytes_mut(buffer)?.fill(0);
        }
        let spec = crate::workload::spec_of_entry(kernel.entry)
            .with_context(|| format!("no workload emulates the kernel `{}`", kernel.entry))?;
        let fault = (self.wrong_kernel == Some(self.active)).then_some(self.wrong_element);
        (spec.emulate)(launch, &mut self.memory, fault)
    }
}

impl Device for MockGpu {
    fn free_memory(&self) -> Result<u64> {
        Ok(self.free_memory)
    }

    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError> {
        if let Some(&(_, refusal)) = self.refuses.iter().find(|(file, _)| *file == kernel.module.file) {
            return Err(LoadError::Refused(refusal));
        }
        let params = kernel_params(kernel).map_err(LoadError::Setup)?;
        self.loaded.push((*kernel, params));
        Ok(())
    }
}

/// A scripted driver for tests: its CUDA version, and its devices by ordinal.
#[derive(Debug, Clone)]
pub struct MockDriver {
    /// What `cuDriverGetVersion` answers (12080 for 12.8).
    pub cuda_version: i32,
    pub devices: Vec<MockGpu>,
}

impl MockDriver {
    /// One H200-like device on a CUDA 13.0 driver.
    pub fn h200() -> Self {
        Self { cuda_version: 13000, devices: vec![MockGpu::h200_like()] }
    }
}

impl Driver for MockDriver {
    type Device = MockGpu;

    fn cuda_version(&self) -> i32 {
        self.cuda_version
    }

    fn device_count(&self) -> Result<u32> {
        match self.devices.len() {
            0 => bail!("the CUDA driver reports no GPU"),
            count => Ok(count as u32),
        }
    }

    fn open(&self, ordinal: u32) -> Result<MockGpu, OpenError> {
        let mut device = self.devices.get(ordinal as usize).cloned().ok_or_else(|| {
            OpenError::NoDevice(anyhow!(
                "there is no CUDA device {ordinal}: this machine has {} (ordinals 0 to {})",
                self.devices.len(),
                self.devices.len().saturating_sub(1)
            ))
        })?;
        device.limits.ordinal = ordinal;
        device.loaded.clear();
        device.active = 0;
        Ok(device)
    }
}

impl Gpu for MockGpu {
    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn select_kernel(&mut self, kernel: KernelRef) -> Result<()> {
        self.active =
            self.loaded.iter().position(|(loaded, _)| *loaded == kernel).ok_or_else(|| {
                anyhow!("the {} kernel `{}` is not loaded", kernel.module.label, kernel.entry)
            })?;
        Ok(())
    }

    fn kernel_resources(&self) -> Result<KernelResources> {
        Ok(self.resources)
    }

    fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> Result<u32> {
        self.occupancy_queries.borrow_mut().push((threads_per_block, dynamic_shared_memory));
        let scripted = self
            .shared_memory_residency
            .iter()
            .find(|&&(threads, shared, _)| threads == threads_per_block && shared == dynamic_shared_memory)
            .map(|&(_, _, blocks)| blocks);
        Ok(scripted.unwrap_or_else(|| {
            self.blocks_per_sm
                .iter()
                .find(|(threads, _)| *threads == threads_per_block)
                .map_or(self.default_blocks_per_sm, |(_, blocks)| *blocks)
        }))
    }

    fn suggestion(&self, dynamic_shared_memory: SharedMemoryFn) -> Result<Suggestion> {
        self.suggestion_queries.borrow_mut().push([32, 256, 1024].map(dynamic_shared_memory));
        Ok(self.suggestion)
    }

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId> {
        Ok(self.memory.alloc(bytes))
    }

    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        let target = self.memory.bytes_mut(buffer)?;
        let end = byte_offset.checked_add(bytes.len()).filter(|&end| end <= target.len());
        let end =
            end.ok_or_else(|| anyhow!("{} bytes at {byte_offset} do not fit the buffer", bytes.len()))?;
        target[byte_offset..end].copy_from_slice(bytes);
        Ok(())
    }

    fn zero(&mut self, buffer: BufferId) -> Result<()> {
        self.memory.bytes_mut(buffer)?.fill(0);
        Ok(())
    }

    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        let source = self.memory.bytes(buffer)?;
        let end = byte_offset.checked_add(out.len()).filter(|&end| end <= source.len());
        let end = end.ok_or_else(|| anyhow!("{} bytes at {byte_offset} are past the buffer", out.len()))?;
        out.copy_from_slice(&source[byte_offset..end]);
        Ok(())
    }

    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        // A scripted ceiling: `copy_gb_per_s` for every run.
        let milliseconds = bytes as f64 * 2.0 / (self.copy_gb_per_s * 1e9) * 1e3;
        Ok(vec![milliseconds as f32; timing.runs as usize])
    }

    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        let kernel = self.active_kernel()?.0;
        self.timed.push((kernel, launch.threads_per_block));
        self.launch(launch)?;
        Ok(self.scripted_ms(launch.threads_per_block))
    }

    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        let threads_per_block = launch.threads_per_block;
        if self.fail_launch_at == Some(threads_per_block) {
            bail!("launch failed: mock driver error at {threads_per_block} threads per block");
        }
        for _ in 0..timing.warmups + timing.runs {
            self.launch(launch)?;
        }
        if timing.flush_l2 {
            self.l2_flushes += timing.runs as usize;
        }
        // Scripted times with a small spread: the n-th run takes (1 + spread x (n mod 3 - 1)).
        let base = self.scripted_ms(threads_per_block);
        Ok((0..timing.runs).map(|run| base * (1.0 + self.run_spread * ((run % 3) as f32 - 1.0))).collect())
    }
}
