/*!
The real backend: cust 0.3.2 over the CUDA driver API, with the committed PTX.

Errors are sorted by who must act: [`OpenError::NoDevice`] when there is no usable driver or
GPU, or no device at the requested index (exit 3); [`LoadError::Refused`] when the driver
cannot load a module (exit 3, or the module left out where others can run); anything after
that is the run failing (exit 1).
*/

use crate::backend::{
    BufferId, DeviceLimits, Driver, Gpu, KernelArg, KernelResources, Launch, LoadError, SharedMemoryFn,
    Suggestion, Timing, check_args, kernel_params,
};
use crate::compat::Refusal;
use crate::ptx::KernelRef;
use anyhow::{Context as _, Result, anyhow};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::error::CudaError;
use cust::event::{Event, EventFlags};
use cust::function::{BlockSize, Function, FunctionAttribute};
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer, DeviceSlice};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::sys::CUdevice_attribute as RawAttribute;
use std::cell::Cell;
use std::ffi::{c_int, c_void};

pub use crate::backend::OpenError;

/// The CUDA driver, as [`Driver`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CudaDriver;

impl Driver for CudaDriver {
    type Device = CudaGpu;

    fn cuda_version(&self) -> i32 {
        // cuDriverGetVersion needs no cuInit.
        cust::CudaApiVersion::get().map_or(0, |v| v.major() * 1000 + v.minor() * 10)
    }

    fn device_count(&self) -> Result<u32> {
        CudaGpu::device_count()
    }

    fn open(&self, ordinal: u32) -> Result<CudaGpu, OpenError> {
        CudaGpu::open(ordinal)
    }
}

/// One loaded kernel: its module, its handle, and its PTX parameter types, against which
/// every launch's arguments are checked.
struct Loaded {
    module: Module,
    kernel: KernelRef,
    params: Vec<String>,
}

/// One device with one or more modules loaded, one kernel active, and the workloads'
/// buffers. Fields drop in order, so buffers, events, stream and modules are released before
/// their context.
pub struct CudaGpu {
    /// The buffers [`Gpu::alloc_zeroed`] handed out, by [`BufferId`].
    buffers: Vec<DeviceBuffer<u8>>,
    l2_scratch: Option<DeviceBuffer<u8>>,
    start: Event,
    stop: Event,
    stream: Stream,
    modules: Vec<Loaded>,
    active: usize,
    /// Source and destination of the device-to-device copy ceiling.
    copy_buffers: Option<(DeviceBuffer<u8>, DeviceBuffer<u8>)>,
    limits: DeviceLimits,
    _context: Context,
}

/// A device attribute cust 0.3.2's `DeviceAttribute` predates (the resident-block cap, the
/// shared-memory opt-in and reserve), read through the raw driver API.
fn raw_attribute(device: &Device, attribute: cust::sys::CUdevice_attribute) -> Result<u32> {
    use cust::sys::{CUresult, cuDeviceGetAttribute};
    let mut value = 0;
    // SAFETY: a valid device handle and a pointer to one writable int.
    let status = unsafe { cuDeviceGetAttribute(&mut value, attribute, device.as_raw()) };
    if status != CUresult::CUDA_SUCCESS {
        return Err(anyhow!("reading {attribute:?}: {status:?}"));
    }
    u32::try_from(value).map_err(|_| anyhow!("the driver reported {attribute:?} = {value}"))
}

/// How the driver refused a module, where it did so for a reason [`crate::compat`] explains.
/// cust 0.3.2 reads `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (222) and
/// `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` (221) as `UnknownError`; the raw driver call tells.
fn refusal(error: CudaError, ptx: &str) -> Option<Refusal> {
    match error {
        CudaError::InvalidPtx => Some(Refusal::InvalidPtx),
        CudaError::NoBinaryForGpu => Some(Refusal::NoBinaryForGpu),
        CudaError::InvalidSource => Some(Refusal::InvalidSource),
        CudaError::UnknownError => raw_load_status(ptx).and_then(|status| {
            use cust::sys::CUresult;
            match status {
                CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => Some(Refusal::UnsupportedPtxVersion),
                CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND => Some(Refusal::JitCompilerNotFound),
                CUresult::CUDA_ERROR_INVALID_PTX => Some(Refusal::InvalidPtx),
                CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU => Some(Refusal::NoBinaryForGpu),
                CUresult::CUDA_ERROR_INVALID_SOURCE => Some(Refusal::InvalidSource),
                _ => None,
            }
        }),
        _ => None,
    }
}

/// `cuModuleLoadData`'s own status for `ptx`, in the current context (the module is
/// unloaded again if it loads); `None` where the text cannot be handed over.
fn raw_load_status(ptx: &str) -> Option<cust::sys::CUresult> {
    use cust::sys::{CUmodule, CUresult, cuModuleLoadData, cuModuleUnload};
    let text = std::ffi::CString::new(ptx).ok()?;
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: a NUL-terminated PTX image and a pointer to one writable module handle; a
    // module that loads is unloaded before return.
    let status = unsafe { cuModuleLoadData(&mut module, text.as_ptr().cast()) };
    if status == CUresult::CUDA_SUCCESS {
        // SAFETY: the handle was just loaded and is used nowhere else.
        unsafe { cuModuleUnload(module) };
    }
    Some(status)
}

/// Loads one module and makes sure it has the kernel.
fn load(kernel: &KernelRef) -> Result<Module, LoadError> {
    let label = kernel.module.label;
    let module =
        Module::from_ptx(kernel.module.ptx, &[]).map_err(|e| match refusal(e, kernel.module.ptx) {
            Some(refusal) => LoadError::Refused(refusal),
            None => LoadError::Setup(anyhow!("the driver could not load the {label} PTX: {e}")),
        })?;
    module
        .get_function(kernel.entry)
        .map_err(|e| LoadError::Setup(anyhow!("the {label} PTX has no kernel `{}` ({e})", kernel.entry)))?;
    Ok(module)
}

fn attribute(device: &Device, attribute: DeviceAttribute) -> Result<u32> {
    let value = device.get_attribute(attribute).with_context(|| format!("reading {attribute:?}"))?;
    u32::try_from(value).map_err(|_| anyhow!("the driver reported {attribute:?} = {value}"))
}

impl CudaGpu {
    /// Initialises the driver and counts the visible devices; no driver or no GPU is an error.
    pub fn device_count() -> Result<u32> {
        cust::init(cust::CudaFlags::empty()).map_err(|e| {
            anyhow!("the CUDA driver found no usable GPU: {}", e.to_string().trim_matches('"'))
        })?;
        let count = Device::num_devices().map_err(|e| anyhow!("cannot count CUDA devices: {e}"))?;
        if count == 0 {
            return Err(anyhow!("the CUDA driver reports no GPU"));
        }
        Ok(count)
    }

    /// Initialises the driver and opens device `ordinal`, with no module loaded yet.
    pub fn open(ordinal: u32) -> Result<Self, OpenError> {
        let no_device = |error: anyhow::Error| OpenError::NoDevice(error);
        cust::init(cust::CudaFlags::empty()).map_err(|e| {
            no_device(anyhow!("the CUDA driver found no usable GPU: {}", e.to_string().trim_matches('"')))
        })?;
        let count =
            Device::num_devices().map_err(|e| no_device(anyhow!("cannot count CUDA devices: {e}")))?;
        if count == 0 {
            return Err(no_device(anyhow!("the CUDA driver reports no GPU")));
        }
        if ordinal >= count {
            return Err(no_device(anyhow!(
                "there is no CUDA device {ordinal}: this machine has {count} (ordinals 0 to {})",
                count - 1
            )));
        }
        let device =
            Device::get_device(ordinal).map_err(|e| no_device(anyhow!("opening device {ordinal}: {e}")))?;
        let context = Context::new(device)
            .map_err(|e| no_device(anyhow!("creating a context on device {ordinal}: {e}")))?;

        let setup = |error: anyhow::Error| OpenError::Setup(error);
        let limits = (|| -> Result<DeviceLimits> {
            Ok(DeviceLimits {
                ordinal,
                name: device.name().context("reading the device name")?,
                compute_capability: (
                    attribute(&device, DeviceAttribute::ComputeCapabilityMajor)?,
                    attribute(&device, DeviceAttribute::ComputeCapabilityMinor)?,
                ),
                multiprocessors: attribute(&device, DeviceAttribute::MultiprocessorCount)?,
                max_threads_per_sm: attribute(&device, DeviceAttribute::MaxThreadsPerMultiprocessor)?,
                warp_size: attribute(&device, DeviceAttribute::WarpSize)?,
                max_blocks_per_sm: raw_attribute(
                    &device,
                    RawAttribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                )?,
                max_threads_per_block: attribute(&device, DeviceAttribute::MaxThreadsPerBlock)?,
                registers_per_sm: attribute(&device, DeviceAttribute::MaxRegistersPerMultiprocessor)?,
                max_registers_per_block: attribute(&device, DeviceAttribute::MaxRegistersPerBlock)?,
                shared_memory_per_sm: attribute(&device, DeviceAttribute::MaxSharedMemoryPerMultiprocessor)?,
                max_shared_memory_per_block: raw_attribute(
                    &device,
                    RawAttribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                )?,
                reserved_shared_memory_per_block: raw_attribute(
                    &device,
                    RawAttribute::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                )?,
                l2_cache_bytes: attribute(&device, DeviceAttribute::L2CacheSize)?,
            })
        })()
        .map_err(setup)?;
        let stream =
            Stream::new(StreamFlags::DEFAULT, None).map_err(|e| setup(anyhow!("creating a stream: {e}")))?;
        let start = Event::new(EventFlags::DEFAULT).map_err(|e| setup(anyhow!("creating an event: {e}")))?;
        let stop = Event::new(EventFlags::DEFAULT).map_err(|e| setup(anyhow!("creating an event: {e}")))?;

        Ok(Self {
            buffers: Vec::new(),
            l2_scratch: None,
            start,
            stop,
            stream,
            modules: Vec::new(),
            active: 0,
            copy_buffers: None,
            limits,
            _context: context,
        })
    }

    /// Overwrites a scratch buffer of twice the L2 on the stream, before the start event:
    /// whatever the last launch left in L2 is evicted, and the timed launch reads from DRAM.
    fn flush_l2(&mut self, run: u32) -> Result<()> {
        if self.l2_scratch.is_none() {
            let bytes = 2 * self.limits.l2_cache_bytes as usize;
            self.l2_scratch = Some(DeviceBuffer::zeroed(bytes).context("allocating the L2 flush buffer")?);
        }
        let scratch = self.l2_scratch.as_mut().expect("allocated above");
        // SAFETY: the buffer lives in self until after the stream is synchronised.
        unsafe { scratch.set_8_async(run as u8, &self.stream) }.context("flushing L2")?;
        Ok(())
    }

    fn active(&self) -> Result<&Loaded> {
        self.modules.get(self.active).ok_or_else(|| anyhow!("no kernel loaded"))
    }

    fn function(&self) -> Result<Function<'_>> {
        let loaded = self.active()?;
        Ok(loaded.module.get_function(loaded.kernel.entry)?)
    }

    fn buffer(&self, buffer: BufferId) -> Result<&DeviceBuffer<u8>> {
        self.buffers.get(buffer.index()).ok_or_else(|| anyhow!("no buffer {}", buffer.index()))
    }

    fn buffer_mut(&mut self, buffer: BufferId) -> Result<&mut DeviceBuffer<u8>> {
        self.buffers.get_mut(buffer.index()).ok_or_else(|| anyhow!("no buffer {}", buffer.index()))
    }

    /// `len` bytes of `buffer` from `byte_offset` on, or an error where they are past its end.
    fn range(&self, buffer: BufferId, byte_offset: usize, len: usize) -> Result<DeviceSlice<u8>> {
        let device = self.buffer(buffer)?;
        let end = byte_offset.checked_add(len).filter(|&end| end <= device.len());
        let end = end.ok_or_else(|| {
            anyhow!(
                "{len} bytes at {byte_offset} are past buffer {} ({} bytes)",
                buffer.index(),
                device.len()
            )
        })?;
        Ok(device.index(byte_offset..end))
    }

    /// Zeroes `buffers` on the stream (`cuMemsetD8Async`): before a launch's start event, so
    /// that the timed interval holds the launch alone.
    fn zero_async(&mut self, buffers: &[BufferId]) -> Result<()> {
        for &buffer in buffers {
            let stream = &self.stream;
            let device = self
                .buffers
                .get_mut(buffer.index())
                .ok_or_else(|| anyhow!("no buffer {}", buffer.index()))?;
            // SAFETY: the buffer lives in self until after the stream is synchronised.
            unsafe { device.set_zero_async(stream) }.context("zeroing a buffer before a launch")?;
        }
        Ok(())
    }

    /// Launches the active kernel on the stream (the caller zeroes `zero_before_each`).
    fn launch(&self, launch: &Launch) -> Result<()> {
        let loaded = self.active()?;
        check_args(&loaded.kernel, &loaded.params, &launch.args)?;
        /// One argument's value, where the driver reads it from.
        enum Slot {
            U32(u32),
            U64(u64),
        }
        let mut slots = Vec::with_capacity(launch.args.len());
        for arg in &launch.args {
            slots.push(match *arg {
                KernelArg::Buffer(buffer, offset) => {
                    let device = self.buffer(buffer)?;
                    anyhow::ensure!(
                        offset <= device.len(),
                        "offset {offset} is past buffer {} ({} bytes)",
                        buffer.index(),
                        device.len()
                    );
                    Slot::U64(device.as_device_ptr().as_raw() + offset as u64)
                }
                KernelArg::U32(value) => Slot::U32(value),
                KernelArg::U64(value) => Slot::U64(value),
                KernelArg::Usize(value) => Slot::U64(value as u64),
            });
        }
        let pointers: Vec<*mut c_void> = slots
            .iter()
            .map(|slot| match slot {
                Slot::U32(value) => std::ptr::from_ref(value).cast_mut().cast(),
                Slot::U64(value) => std::ptr::from_ref(value).cast_mut().cast(),
            })
            .collect();
        let function = self.function()?;
        // SAFETY: the arguments have the count and sizes of the kernel's PTX parameters
        // (check_args above), every pointer argument is inside a live buffer of this device,
        // and `slots` outlives the call, which copies the values. That the kernel stays inside
        // its buffers is the workload's contract with its kernel (its element counts are the
        // buffers' own), checked on the CPU by the workload's tests and on a GPU by
        // compute-sanitizer (runner/tests/gpu.rs).
        unsafe {
            self.stream.launch(
                &function,
                launch.grid_blocks,
                launch.threads_per_block,
                launch.dynamic_shared_memory,
                &pointers,
            )
        }
        .context("cuLaunchKernel")
    }
}

thread_local! {
    /// The dynamic shared memory function of the `suggestion` call running on this thread,
    /// for [`shared_memory_of_block_size`]: the driver's callback takes no context pointer.
    static SHARED_MEMORY_FN: Cell<Option<SharedMemoryFn<'static>>> = const { Cell::new(None) };
}

/// `cuOccupancyMaxPotentialBlockSize`'s `blockSizeToDynamicSMemSize`: the function of the
/// suggestion being computed on this thread, at `block_size`.
extern "C" fn shared_memory_of_block_size(block_size: c_int) -> usize {
    let function = SHARED_MEMORY_FN.with(Cell::get);
    function.map_or(0, |function| function(u32::try_from(block_size).unwrap_or(0)) as usize)
}

impl crate::backend::Device for CudaGpu {
    fn free_memory(&self) -> Result<u64> {
        let (free, _total) = cust::memory::mem_get_info().context("asking the driver for free memory")?;
        Ok(free as u64)
    }

    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError> {
        let module = load(kernel)?;
        let params = kernel_params(kernel).map_err(LoadError::Setup)?;
        self.modules.push(Loaded { module, kernel: *kernel, params });
        Ok(())
    }
}

impl Gpu for CudaGpu {
    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId> {
        let buffer = DeviceBuffer::zeroed(bytes.max(1))
            .with_context(|| format!("allocating {bytes} bytes of device memory"))?;
        self.buffers.push(buffer);
        Ok(BufferId(self.buffers.len() - 1))
    }

    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        self.stream.synchronize()?;
        self.range(buffer, byte_offset, bytes.len())?.copy_from(bytes).context("copying to the device")?;
        Ok(())
    }

    fn zero(&mut self, buffer: BufferId) -> Result<()> {
        self.stream.synchronize()?;
        self.buffer_mut(buffer)?.set_zero().context("zeroing a device buffer")?;
        Ok(())
    }

    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        self.stream.synchronize()?;
        self.range(buffer, byte_offset, out.len())?.copy_to(out).context("copying from the device")?;
        Ok(())
    }

    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        if self.copy_buffers.as_ref().is_none_or(|(source, _)| source.len() != bytes) {
            self.copy_buffers = None;
            let source = DeviceBuffer::zeroed(bytes).context("allocating the copy source")?;
            let destination = DeviceBuffer::zeroed(bytes).context("allocating the copy destination")?;
            self.copy_buffers = Some((source, destination));
        }
        let (source, destination) = self.copy_buffers.as_mut().expect("allocated above");
        let mut milliseconds = Vec::with_capacity(timing.runs as usize);
        for run in 0..timing.warmups + timing.runs {
            self.start.record(&self.stream)?;
            // SAFETY: both buffers live in self past the synchronisation below.
            unsafe { destination.async_copy_from(&*source, &self.stream) }.context("cuMemcpyDtoDAsync")?;
            self.stop.record(&self.stream)?;
            self.stop.synchronize().context("a device-to-device copy failed")?;
            if run >= timing.warmups {
                milliseconds.push(self.stop.elapsed_time_f32(&self.start)?);
            }
        }
        Ok(milliseconds)
    }

    fn kernel_resources(&self) -> Result<KernelResources> {
        let function = self.function()?;
        let read = |attribute| -> Result<u32> {
            let value =
                function.get_attribute(attribute).with_context(|| format!("reading {attribute:?}"))?;
            u32::try_from(value).map_err(|_| anyhow!("the driver reported {attribute:?} = {value}"))
        };
        Ok(KernelResources {
            registers_per_thread: read(FunctionAttribute::NumRegisters)?,
            static_shared_memory: read(FunctionAttribute::SharedMemorySizeBytes)?,
        })
    }

    fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> Result<u32> {
        let function = self.function()?;
        Ok(function.max_active_blocks_per_multiprocessor(
            BlockSize::x(threads_per_block),
            dynamic_shared_memory as usize,
        )?)
    }

    fn suggestion(&self, dynamic_shared_memory: SharedMemoryFn) -> Result<Suggestion> {
        use cust::sys::{CUresult, cuOccupancyMaxPotentialBlockSize};
        let function = self.function()?;
        // SAFETY: the reference is stored for the duration of the driver call below only, and
        // cleared before this function returns (on every path: nothing in between can fail or
        // unwind), so the erased lifetime is never outlived.
        let erased: SharedMemoryFn<'static> = unsafe { std::mem::transmute(dynamic_shared_memory) };
        SHARED_MEMORY_FN.with(|cell| cell.set(Some(erased)));
        let (mut grid_blocks, mut threads_per_block): (c_int, c_int) = (0, 0);
        // SAFETY: valid out pointers and function handle; the callback reads the function set
        // above on this thread, which the driver calls it on.
        let status = unsafe {
            cuOccupancyMaxPotentialBlockSize(
                &mut grid_blocks,
                &mut threads_per_block,
                function.to_raw(),
                Some(shared_memory_of_block_size),
                0,
                0,
            )
        };
        SHARED_MEMORY_FN.with(|cell| cell.set(None));
        if status != CUresult::CUDA_SUCCESS {
            return Err(anyhow!("cuOccupancyMaxPotentialBlockSize: {status:?}"));
        }
        Ok(Suggestion {
            threads_per_block: u32::try_from(threads_per_block)?,
            grid_blocks: u32::try_from(grid_blocks)?,
        })
    }

    fn select_kernel(&mut self, kernel: KernelRef) -> Result<()> {
        self.active =
            self.modules.iter().position(|loaded| loaded.kernel == kernel).ok_or_else(|| {
                anyhow!("the {} kernel `{}` is not loaded", kernel.module.label, kernel.entry)
            })?;
        Ok(())
    }

    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        self.zero_async(&launch.zero_before_each)?;
        self.start.record(&self.stream)?;
        self.launch(launch)?;
        self.stop.record(&self.stream)?;
        self.stop.synchronize().context("a timed launch failed")?;
        Ok(self.stop.elapsed_time_f32(&self.start)?)
    }

    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        // Warm up this configuration, not just the module: the first launches pay for
        // lazy loading and for clocks that have not ramped yet.
        for _ in 0..timing.warmups {
            self.zero_async(&launch.zero_before_each)?;
            self.launch(launch)?;
        }
        self.stream.synchronize().context("a warm-up launch failed")?;

        let mut milliseconds = Vec::with_capacity(timing.runs as usize);
        for run in 0..timing.runs {
            self.zero_async(&launch.zero_before_each)?;
            if timing.flush_l2 {
                self.flush_l2(run)?;
            }
            self.start.record(&self.stream)?;
            self.launch(launch)?;
            self.stop.record(&self.stream)?;
            self.stop.synchronize().context("a timed launch failed")?;
            milliseconds.push(self.stop.elapsed_time_f32(&self.start)?);
        }
        Ok(milliseconds)
    }
}
