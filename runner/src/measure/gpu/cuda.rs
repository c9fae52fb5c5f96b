/*!
The real backend: cust 0.3.2 over the CUDA driver API, with the committed PTX.

Errors are sorted by who must act: [`OpenError::NoDevice`] when there is no usable driver or
GPU, or no device at the requested index (exit 3); [`LoadError::Refused`] when the driver
cannot load a module (exit 3, or the module left out where others can run); anything after
that is the run failing (exit 1).
*/

use crate::measure::gpu::backend::{
    BufferId, DeviceSource, EarlyOpen, Gpu, KernelArg, Launch, LoadError, SharedMemoryFn, Timing, check_args,
    kernel_params,
};
use crate::measure::supervision::watchdog::Watchdog;

use crate::measure::gpu::compat::Refusal;
use crate::measure::gpu::ptx::BLOCKING_MODULE;
use crate::measure::gpu::ptx::KernelRef;
use crate::measure::sampling::timing::{BLOCKING_KERNEL, BLOCKING_TIMEOUT, Op};
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::comparison::{ElementComparison, Mismatches};
use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
use anyhow::{Context as _, Result, anyhow, bail};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::error::CudaError;
use cust::event::{Event, EventFlags};
use cust::function::{BlockSize, Function, FunctionAttribute};
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer, DeviceSlice, LockedBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::sys::{CUdevice_attribute as RawAttribute, CUfunction};
use rayon::prelude::*;
use std::cell::Cell;
use std::ffi::{c_int, c_void};

pub use crate::measure::gpu::backend::OpenError;

/// The CUDA driver, as [`crate::Driver`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CudaDriver;

impl DeviceSource for CudaDriver {
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

    fn model(&self, ordinal: u32) -> Result<(String, (u32, u32))> {
        CudaGpu::device_count()?;
        let device = Device::get_device(ordinal).map_err(|e| anyhow!("reading device {ordinal}: {e}"))?;
        let name = device.name().context("reading the device name")?;
        let major = attribute(&device, DeviceAttribute::ComputeCapabilityMajor)?;
        let minor = attribute(&device, DeviceAttribute::ComputeCapabilityMinor)?;
        Ok((name, (major, minor)))
    }

    /// cuInit and device `ordinal`'s primary context, retained, on a thread: the sweep's
    /// [`CudaGpu::open`] retains the same context, created by then. A failure here is the
    /// open's to report, so it is dropped.
    fn open_early(&self, ordinal: u32) -> EarlyOpen {
        EarlyOpen::on_thread(move || {
            cust::init(cust::CudaFlags::empty()).ok()?;
            let device = Device::get_device(ordinal).ok()?;
            Context::new(device).ok().map(|context| Box::new(context) as Box<dyn Send>)
        })
    }
}

/// The comparison kernels of the checks on the GPU (`kernels/src/mismatch.rs`), from the
/// runner's own module ([`BLOCKING_MODULE`]): their functions, looked up the first time each is
/// used, and the two words each comparison leaves its count and first index in.
struct Comparer {
    functions: Vec<(&'static str, CUfunction)>,
    found: DeviceBuffer<u64>,
    /// The module, where no kernel of it was loaded already.
    module: Option<Module>,
}

/// Graphs kept for later schedules of their launch: a race in rungs comes back to each of its
/// configurations rung after rung, and a capture costs about as much as a sample of a short
/// kernel.
const GRAPHS_KEPT: usize = 256;

/// Threads a block of a comparison kernel has.
const COMPARE_THREADS: u32 = 256;

/// One loaded kernel: its module, its function handle (looked up once, at load), and its PTX
/// parameter types, against which every launch's arguments are checked.
struct Loaded {
    module: Module,
    kernel: KernelRef,
    /// `cuModuleGetFunction`'s handle of the entry, valid as long as `module` is loaded.
    function: CUfunction,
    params: Vec<String>,
}

/// One argument's value, where the driver reads it from.
#[derive(Clone, PartialEq)]
enum Slot {
    U32(u32),
    U64(u64),
}

/// A launch with everything the driver needs ready: the function handle and the argument
/// values. What [`Op::Launch`] does with it is `cuLaunchKernel` alone.
#[derive(Clone, PartialEq)]
struct Prepared {
    function: CUfunction,
    grid: GridShape,
    block: BlockShape,
    dynamic_shared_memory: u32,
    slots: Vec<Slot>,
}

impl Prepared {
    /// The address of each argument's value, as `cuLaunchKernel`'s `kernelParams`; valid while
    /// `self` is neither moved nor dropped.
    fn pointers(&self) -> Vec<*mut c_void> {
        self.slots
            .iter()
            .map(|slot| match slot {
                Slot::U32(value) => std::ptr::from_ref(value).cast_mut().cast(),
                Slot::U64(value) => std::ptr::from_ref(value).cast_mut().cast(),
            })
            .collect()
    }

    /// Enqueues the launch on `stream`.
    ///
    /// # Safety
    ///
    /// `pointers` must be [`Prepared::pointers`] of `self`, whose arguments have the count and
    /// sizes of the function's PTX parameters, every pointer argument inside a live buffer that
    /// outlives the launch.
    unsafe fn launch(&self, stream: &Stream, pointers: &mut [*mut c_void]) -> Result<()> {
        use cust::sys::{CUresult, cuLaunchKernel};
        // SAFETY: the caller's contract; the driver copies the values before it returns.
        let status = unsafe {
            cuLaunchKernel(
                self.function,
                self.grid.x,
                self.grid.y,
                self.grid.z,
                self.block.x,
                self.block.y,
                self.block.z,
                self.dynamic_shared_memory,
                stream.as_inner(),
                pointers.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if status != CUresult::CUDA_SUCCESS {
            bail!("cuLaunchKernel: {status:?}");
        }
        Ok(())
    }
}

/// The CUDA graph [`Op::Graph`] replays: `launches` launches of `prepared`, captured from the
/// stream, and its executable. Dropped, both are destroyed.
struct CapturedGraph {
    /// What the kernel nodes were captured from: a schedule of another launch (another row, or
    /// other arguments) or count captures again.
    prepared: Prepared,
    launches: u32,
    graph: cust::sys::CUgraph,
    exec: cust::sys::CUgraphExec,
}

impl CapturedGraph {
    /// Captures `launches` launches of `prepared` on `stream` into a graph (stream capture,
    /// thread-local mode: nothing else this thread does may touch the capture, and nothing of
    /// it runs), instantiates it and uploads the executable on `stream`, so that its first
    /// replay does not upload it. The capture holds the launches alone: the stream's other
    /// work (zeroing, L2 flushes, events) stays outside the graph.
    ///
    /// # Safety
    ///
    /// As [`Prepared::launch`]: `prepared`'s arguments fit the function's parameters and point
    /// into buffers that outlive every replay of the graph; `stream` is not capturing already.
    unsafe fn capture(stream: &Stream, prepared: &Prepared, launches: u32) -> Result<Self> {
        use cust::sys::{
            CUresult, CUstreamCaptureMode, cuGraphInstantiateWithFlags, cuGraphUpload,
            cuStreamBeginCapture_v2, cuStreamEndCapture,
        };
        // SAFETY: a live stream of the current context, not capturing (the caller's contract;
        // every capture begun here is ended below, on every path).
        let status = unsafe {
            cuStreamBeginCapture_v2(
                stream.as_inner(),
                CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
        };
        if status != CUresult::CUDA_SUCCESS {
            bail!("beginning a graph's capture (cuStreamBeginCapture): {status:?}");
        }
        let mut pointers = prepared.pointers();
        let mut launched = Ok(());
        for nth in 1..=launches {
            // SAFETY: the caller's contract, as for Op::Launch; captured, the launch does not run,
            // and the driver copies the argument values into the graph's kernel node.
            launched = unsafe { prepared.launch(stream, &mut pointers) }
                .with_context(|| format!("capturing launch {nth} of {launches} into a graph"));
            if launched.is_err() {
                break;
            }
        }
        // Owned from here on: dropped, whatever it holds is destroyed.
        let mut captured = Self {
            prepared: prepared.clone(),
            launches,
            graph: std::ptr::null_mut(),
            exec: std::ptr::null_mut(),
        };
        // SAFETY: the stream capturing since above; a pointer to one writable graph handle, null
        // where the capture was invalidated.
        let status = unsafe { cuStreamEndCapture(stream.as_inner(), &mut captured.graph) };
        launched?;
        if status != CUresult::CUDA_SUCCESS {
            bail!("ending a graph's capture (cuStreamEndCapture): {status:?}");
        }
        // SAFETY: the graph just captured; a pointer to one writable executable handle; no flags.
        let status = unsafe { cuGraphInstantiateWithFlags(&mut captured.exec, captured.graph, 0) };
        if status != CUresult::CUDA_SUCCESS {
            bail!("instantiating a graph of {launches} launches (cuGraphInstantiateWithFlags): {status:?}");
        }
        // SAFETY: the executable just instantiated, on a live stream of its context.
        let status = unsafe { cuGraphUpload(captured.exec, stream.as_inner()) };
        if status != CUresult::CUDA_SUCCESS {
            bail!("uploading a graph of {launches} launches (cuGraphUpload): {status:?}");
        }
        Ok(captured)
    }

    /// Whether this graph holds `launches` launches of `prepared`.
    fn holds(&self, prepared: &Prepared, launches: u32) -> bool {
        self.launches == launches && self.prepared == *prepared
    }
}

impl Drop for CapturedGraph {
    fn drop(&mut self) {
        use cust::sys::{cuGraphDestroy, cuGraphExecDestroy};
        // SAFETY: each handle created by `capture` (null where it was not), destroyed once. A
        // replay still in flight is not cut short: the driver frees its executable when it
        // completes. A failure here has no one to tell (the context is going, or the handle
        // is already gone), so the status is dropped as cuMemFreeHost's is.
        unsafe {
            if !self.exec.is_null() {
                let _ = cuGraphExecDestroy(self.exec);
            }
            if !self.graph.is_null() {
                let _ = cuGraphDestroy(self.graph);
            }
        }
    }
}

/// Two `u32`s of mapped pinned host memory (`cuMemHostAlloc` with `DEVICEMAP`): the blocking
/// kernel's release flag, which the host writes while the kernel spins on it, and the
/// kernel's report that it gave up waiting.
struct MappedFlag {
    host: *mut u32,
    device: u64,
}

impl MappedFlag {
    fn new() -> Result<Self> {
        use cust::sys::{
            CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE, CUresult, cuMemHostAlloc,
            cuMemHostGetDevicePointer_v2,
        };
        let mut host: *mut c_void = std::ptr::null_mut();
        // SAFETY: a pointer to one writable pointer; 8 bytes of page-locked, mapped memory.
        let status =
            unsafe { cuMemHostAlloc(&mut host, 8, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE) };
        if status != CUresult::CUDA_SUCCESS {
            bail!("allocating the blocking kernel's flag (cuMemHostAlloc): {status:?}");
        }
        // Owned from here on: dropped, it is freed.
        let mut flag = Self { host: host.cast(), device: 0 };
        // SAFETY: `host` was just allocated with DEVICEMAP; a pointer to one writable address.
        let status = unsafe { cuMemHostGetDevicePointer_v2(&mut flag.device, host, 0) };
        if status != CUresult::CUDA_SUCCESS {
            bail!("mapping the blocking kernel's flag (cuMemHostGetDevicePointer): {status:?}");
        }
        flag.hold();
        Ok(flag)
    }

    /// Clears both words, before a blocking kernel is enqueued (no kernel reads them then).
    fn hold(&self) {
        // SAFETY: `host` points to two u32s this struct owns; volatile, as the device reads them.
        unsafe {
            std::ptr::write_volatile(self.host, 0);
            std::ptr::write_volatile(self.host.add(1), 0);
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }

    /// Lets the blocking kernel go.
    fn release(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: as in `hold`.
        unsafe { std::ptr::write_volatile(self.host, 1) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the last blocking kernel gave up waiting (read after it has finished).
    fn timed_out(&self) -> bool {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: as in `hold`.
        unsafe { std::ptr::read_volatile(self.host.add(1)) != 0 }
    }
}

impl Drop for MappedFlag {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc in `new`, freed once; no kernel reads it any more
        // (CudaGpu's drop releases and synchronises first).
        unsafe { cust::sys::cuMemFreeHost(self.host.cast()) };
    }
}

/// Bytes of one pinned staging buffer: large transfers go through two of them in turn.
const STAGING_BYTES: usize = 32 << 20;

/// Transfers this large and larger are staged; smaller ones go straight from the caller's
/// memory, where one pageable copy costs less than setting up the pipeline.
const STAGED_FROM_BYTES: usize = 2 * STAGING_BYTES;

/// Two page-locked host buffers and an event each, for chunked transfers: while the DMA
/// engine copies one chunk through one buffer, every core copies the next chunk into (or the
/// previous one out of) the other. A pageable `cuMemcpy` instead stages through the driver's
/// own pinned memory with one thread.
struct Staging {
    buffers: [LockedBuffer<u8>; 2],
    /// Recorded after the copy through the buffer of the same index.
    done: [Event; 2],
}

impl Staging {
    fn new() -> Result<Self> {
        let buffer = || LockedBuffer::new(&0u8, STAGING_BYTES).context("allocating a pinned staging buffer");
        let event = || Event::new(EventFlags::DEFAULT).context("creating an event");
        Ok(Self { buffers: [buffer()?, buffer()?], done: [event()?, event()?] })
    }
}

/// `source` into `target` (the same length), a slice per core.
fn parallel_copy(target: &mut [u8], source: &[u8]) {
    const PIECE: usize = 1 << 20;
    target
        .par_chunks_mut(PIECE)
        .zip(source.par_chunks(PIECE))
        .for_each(|(to, from)| to.copy_from_slice(from));
}

/// The blocking kernel of cold timing, ready to launch: its function handle, the module it
/// came from where no loaded module had it, and its flag.
struct Blocker {
    function: CUfunction,
    flag: MappedFlag,
    _module: Option<Module>,
}

/// One device with one or more modules loaded, one kernel active, and the workloads'
/// buffers. Fields drop in order, so buffers, events, stream and modules are released before
/// their context.
pub struct CudaGpu {
    /// The device's UUID (`GPU-` and 32 hex digits), where the driver says.
    uuid: Option<String>,
    /// The device's NVML sensors, opened the first time they are asked for; `Err`: why there
    /// are none.
    sensors: Option<Result<crate::measure::sensors::nvml::NvmlSensors, String>>,
    /// The graphs graph schedules replayed ([`Op::Graph`]), the latest last, at most
    /// [`GRAPHS_KEPT`]: kept for the schedules of the same launch after it (a row's chunks under
    /// the noise-driven stop, each rung of a race in rungs); destroyed before the buffers their
    /// kernel nodes point into are freed.
    graphs: Vec<CapturedGraph>,
    /// The buffers [`Gpu::alloc_zeroed`] handed out, by [`BufferId`].
    buffers: Vec<DeviceBuffer<u8>>,
    l2_scratch: Option<DeviceBuffer<u8>>,
    /// The events schedules record, by index ([`Op::Record`]); grown as schedules need more.
    events: Vec<Event>,
    /// The blocking kernel and its flag, once a cold schedule has asked for them.
    blocker: Option<Blocker>,
    /// The comparison kernels, once a check has asked for one.
    comparer: Option<Comparer>,
    /// L2 flushes so far (each writes its count, so no two in a row write the same bytes).
    flushes: u8,
    stream: Stream,
    modules: Vec<Loaded>,
    active: usize,
    /// Source and destination of the device-to-device copy ceiling.
    copy_buffers: Option<(DeviceBuffer<u8>, DeviceBuffer<u8>)>,
    /// Pinned buffers for large uploads and downloads, once one has needed them.
    staging: Option<Staging>,
    limits: DeviceLimits,
    watchdog: Watchdog,
    /// When the device was opened: [`Gpu::clock`] counts from it.
    opened: std::time::Instant,
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

/// How the driver refused a module, where it did so for a reason [`crate::measure::gpu::compat`] explains.
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

/// Loads one module and looks up the kernel's function handle.
fn load(kernel: &KernelRef) -> Result<(Module, CUfunction), LoadError> {
    let label = kernel.module.label;
    let module =
        Module::from_ptx(kernel.module.ptx, &[]).map_err(|e| match refusal(e, kernel.module.ptx) {
            Some(refusal) => LoadError::Refused(refusal),
            None => LoadError::Setup(anyhow!("the driver could not load the {label} PTX: {e}")),
        })?;
    let function = module
        .get_function(kernel.entry)
        .map_err(|e| LoadError::Setup(anyhow!("the {label} PTX has no kernel `{}` ({e})", kernel.entry)))?
        .to_raw();
    Ok((module, function))
}

/// What the driver says of `device` (ordinal `ordinal`): its name, compute capability and the
/// limits the occupancy model and the request checks read.
fn device_limits(device: &Device, ordinal: u32) -> Result<DeviceLimits> {
    Ok(DeviceLimits {
        ordinal,
        name: device.name().context("reading the device name")?,
        compute_capability: (
            attribute(device, DeviceAttribute::ComputeCapabilityMajor)?,
            attribute(device, DeviceAttribute::ComputeCapabilityMinor)?,
        ),
        multiprocessors: attribute(device, DeviceAttribute::MultiprocessorCount)?,
        max_threads_per_sm: attribute(device, DeviceAttribute::MaxThreadsPerMultiprocessor)?,
        warp_size: attribute(device, DeviceAttribute::WarpSize)?,
        max_blocks_per_sm: raw_attribute(
            device,
            RawAttribute::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
        )?,
        max_threads_per_block: attribute(device, DeviceAttribute::MaxThreadsPerBlock)?,
        registers_per_sm: attribute(device, DeviceAttribute::MaxRegistersPerMultiprocessor)?,
        max_registers_per_block: attribute(device, DeviceAttribute::MaxRegistersPerBlock)?,
        shared_memory_per_sm: attribute(device, DeviceAttribute::MaxSharedMemoryPerMultiprocessor)?,
        max_shared_memory_per_block: raw_attribute(
            device,
            RawAttribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        reserved_shared_memory_per_block: raw_attribute(
            device,
            RawAttribute::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
        )?,
        l2_cache_bytes: attribute(device, DeviceAttribute::L2CacheSize)?,
        max_block_dimensions: dimensions(
            device,
            [DeviceAttribute::MaxBlockDimX, DeviceAttribute::MaxBlockDimY, DeviceAttribute::MaxBlockDimZ],
        )?,
        max_grid_dimensions: dimensions(
            device,
            [DeviceAttribute::MaxGridDimX, DeviceAttribute::MaxGridDimY, DeviceAttribute::MaxGridDimZ],
        )?,
    })
}

/// The three attributes of one bound in x, y and z.
fn dimensions(device: &Device, attributes: [DeviceAttribute; 3]) -> Result<[u32; 3]> {
    let [x, y, z] = attributes;
    Ok([attribute(device, x)?, attribute(device, y)?, attribute(device, z)?])
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
        let limits = device_limits(&device, ordinal).map_err(setup)?;
        let stream =
            Stream::new(StreamFlags::DEFAULT, None).map_err(|e| setup(anyhow!("creating a stream: {e}")))?;
        let events = (0..2)
            .map(|_| Event::new(EventFlags::DEFAULT))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| setup(anyhow!("creating an event: {e}")))?;

        Ok(Self {
            buffers: Vec::new(),
            l2_scratch: None,
            events,
            blocker: None,
            comparer: None,
            graphs: Vec::new(),
            flushes: 0,
            stream,
            modules: Vec::new(),
            active: 0,
            copy_buffers: None,
            staging: None,
            limits,
            uuid: device_uuid(&device),
            sensors: None,
            watchdog: Watchdog::new(),
            opened: std::time::Instant::now(),
            _context: context,
        })
    }

    /// Overwrites a scratch buffer of twice the L2 on the stream, before the start event:
    /// whatever the last launch left in L2 is evicted, and the timed launch reads from DRAM.
    fn flush_l2(&mut self) -> Result<()> {
        self.flushes = self.flushes.wrapping_add(1);
        let scratch = self.l2_scratch.as_mut().context("no L2 flush buffer")?;
        // SAFETY: the buffer lives in self until after the stream is synchronised.
        unsafe { scratch.set_8_async(self.flushes, &self.stream) }.context("flushing L2")?;
        Ok(())
    }

    /// The scratch buffer of twice the L2 that [`CudaGpu::flush_l2`] overwrites. Allocated
    /// before a schedule runs, never inside one: its synchronous memset would wait on a stream
    /// the blocking kernel holds.
    fn ensure_l2_scratch(&mut self) -> Result<()> {
        if self.l2_scratch.is_none() {
            let bytes = 2 * self.limits.l2_cache_bytes as usize;
            self.l2_scratch = Some(DeviceBuffer::zeroed(bytes).context("allocating the L2 flush buffer")?);
        }
        Ok(())
    }

    /// Copies `bytes` to device address `device` through the pinned staging buffers, a chunk
    /// at a time: the host fills one buffer (on every core) while the previous chunk's
    /// `cuMemcpyHtoDAsync` runs from the other. Returns once every chunk has arrived.
    fn staged_upload(&mut self, device: u64, bytes: &[u8]) -> Result<()> {
        use cust::sys::{CUresult, cuMemcpyHtoDAsync_v2};
        if self.staging.is_none() {
            self.staging = Some(Staging::new()?);
        }
        let staging = self.staging.as_mut().expect("allocated above");
        for (index, chunk) in bytes.chunks(STAGING_BYTES).enumerate() {
            let slot = index % 2;
            // The copy out of this buffer two chunks ago has finished (an event never recorded
            // is complete).
            self.watchdog
                .wait(|| staging.done[slot].synchronize())
                .context("a staged copy to the device failed")?;
            let buffer = &mut staging.buffers[slot][..chunk.len()];
            parallel_copy(buffer, chunk);
            let target = device + (index * STAGING_BYTES) as u64;
            // SAFETY: `buffer` is page-locked and lives in self, untouched until `done[slot]`
            // says the copy is over; `target` is inside the caller's range (`range` checked it).
            let status = unsafe {
                cuMemcpyHtoDAsync_v2(target, buffer.as_ptr().cast(), chunk.len(), self.stream.as_inner())
            };
            if status != CUresult::CUDA_SUCCESS {
                bail!("cuMemcpyHtoDAsync: {status:?}");
            }
            staging.done[slot].record(&self.stream)?;
        }
        self.watchdog.wait(|| self.stream.synchronize()).context("a staged copy to the device failed")?;
        Ok(())
    }

    /// Copies from device address `device` into `out` through the pinned staging buffers, a
    /// chunk at a time: the next chunk's `cuMemcpyDtoHAsync` runs into one buffer while every
    /// core copies the last one out of the other.
    fn staged_download(&mut self, device: u64, out: &mut [u8]) -> Result<()> {
        use cust::sys::{CUresult, cuMemcpyDtoHAsync_v2};
        if self.staging.is_none() {
            self.staging = Some(Staging::new()?);
        }
        let staging = self.staging.as_mut().expect("allocated above");
        let mut chunks: Vec<&mut [u8]> = out.chunks_mut(STAGING_BYTES).collect();
        let count = chunks.len();
        for index in 0..=count {
            if index < count {
                let slot = index % 2;
                let len = chunks[index].len();
                let source = device + (index * STAGING_BYTES) as u64;
                let buffer = &mut staging.buffers[slot][..len];
                // SAFETY: `buffer` is page-locked and lives in self; the chunk that last used
                // it was copied out at the step before; `source` is inside the caller's range.
                let status = unsafe {
                    cuMemcpyDtoHAsync_v2(buffer.as_mut_ptr().cast(), source, len, self.stream.as_inner())
                };
                if status != CUresult::CUDA_SUCCESS {
                    bail!("cuMemcpyDtoHAsync: {status:?}");
                }
                staging.done[slot].record(&self.stream)?;
            }
            if index > 0 {
                let slot = (index - 1) % 2;
                self.watchdog
                    .wait(|| staging.done[slot].synchronize())
                    .context("a staged copy from the device failed")?;
                let chunk = &mut chunks[index - 1];
                let len = chunk.len();
                parallel_copy(chunk, &staging.buffers[slot][..len]);
            }
        }
        Ok(())
    }

    /// At least `count` events.
    fn ensure_events(&mut self, count: usize) -> Result<()> {
        while self.events.len() < count {
            self.events.push(Event::new(EventFlags::DEFAULT).context("creating an event")?);
        }
        Ok(())
    }

    /// The blocking kernel, from the cuda_builder module where it is loaded, else from a copy
    /// of that module loaded for it; and its flag.
    fn ensure_blocker(&mut self) -> Result<()> {
        if self.blocker.is_some() {
            return Ok(());
        }
        let kernel = BLOCKING_KERNEL;
        let params = kernel_params(&kernel)?;
        check_args(&kernel, &params, &[KernelArg::U64(0), KernelArg::U64(0)])?;
        let (function, module) =
            match self.modules.iter().find(|loaded| loaded.kernel.module == kernel.module) {
                Some(loaded) => (loaded.module.get_function(kernel.entry)?.to_raw(), None),
                None => {
                    let module = Module::from_ptx(kernel.module.ptx, &[]).with_context(|| {
                        format!("loading the {} PTX for its blocking kernel", kernel.module.label)
                    })?;
                    (module.get_function(kernel.entry)?.to_raw(), Some(module))
                }
            };
        self.blocker = Some(Blocker { function, flag: MappedFlag::new()?, _module: module });
        Ok(())
    }

    /// The function of comparison kernel `entry`, its arguments checked against `args`; the
    /// runner's module loaded for it where no kernel of it is.
    fn comparison_function(&mut self, entry: &'static str, args: &[KernelArg]) -> Result<CUfunction> {
        if let Some(&(_, function)) = self
            .comparer
            .as_ref()
            .and_then(|comparer| comparer.functions.iter().find(|(name, _)| *name == entry))
        {
            return Ok(function);
        }
        let kernel = BLOCKING_MODULE.kernel(entry);
        check_args(&kernel, &kernel_params(&kernel)?, args)?;
        if self.comparer.is_none() {
            let loaded = self.modules.iter().any(|loaded| loaded.kernel.module == BLOCKING_MODULE);
            let module = if loaded {
                None
            } else {
                Some(Module::from_ptx(BLOCKING_MODULE.ptx, &[]).with_context(|| {
                    format!("loading the {} PTX for its comparison kernels", BLOCKING_MODULE.label)
                })?)
            };
            let found = DeviceBuffer::zeroed(2).context("allocating a comparison's result")?;
            self.comparer = Some(Comparer { functions: Vec::new(), found, module });
        }
        let comparer = self.comparer.as_mut().expect("set above");
        let module = match &comparer.module {
            Some(module) => module,
            None => {
                &self
                    .modules
                    .iter()
                    .find(|loaded| loaded.kernel.module == BLOCKING_MODULE)
                    .context("the runner's module is not loaded")?
                    .module
            }
        };
        let function = module
            .get_function(entry)
            .with_context(|| format!("the {} PTX has no kernel `{entry}`", BLOCKING_MODULE.label))?
            .to_raw();
        comparer.functions.push((entry, function));
        Ok(function)
    }

    /// The graph of `launches` launches of `prepared` for [`Op::Graph`]: one kept where it holds
    /// them, else captured now (before the schedule's first op), the oldest kept destroyed
    /// first where [`GRAPHS_KEPT`] are.
    fn ensure_graph(&mut self, prepared: &Prepared, launches: u32) -> Result<()> {
        if self.graphs.iter().any(|graph| graph.holds(prepared, launches)) {
            return Ok(());
        }
        if self.graphs.len() >= GRAPHS_KEPT {
            self.graphs.remove(0);
        }
        // SAFETY: `prepared` checked against the kernel's parameters by `prepare`, its buffers in
        // self until the device is dropped (which destroys the graph first); a graph is replayed
        // only by a schedule whose own launch is the one captured, with the same live addresses.
        // The stream is not capturing: captures begin and end in `capture` alone.
        self.graphs.push(unsafe { CapturedGraph::capture(&self.stream, prepared, launches) }?);
        Ok(())
    }

    /// `launch` of the active kernel, ready for [`Op::Launch`]: its arguments checked against
    /// the kernel's PTX parameters and turned into values, its function handle the one looked
    /// up at load.
    fn prepare(&self, launch: &Launch) -> Result<Prepared> {
        let loaded = self.active()?;
        check_args(&loaded.kernel, &loaded.params, &launch.args)?;
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
        Ok(Prepared {
            function: loaded.function,
            grid: launch.grid,
            block: launch.block,
            dynamic_shared_memory: launch.dynamic_shared_memory,
            slots,
        })
    }

    /// Holds the stream behind the blocking kernel, spinning on its flag until
    /// [`Op::Release`] (or its timeout), so that the launches queued behind it start together.
    /// `held` is set once the flag holds, before the launch, so that a failed launch is
    /// released as a failed later op is.
    fn hold_stream(&self, held: &mut bool) -> Result<()> {
        let blocker = self.blocker.as_ref().context("no blocking kernel")?;
        blocker.flag.hold();
        *held = true;
        let blocking = Prepared {
            function: blocker.function,
            grid: GridShape::linear(1),
            block: BlockShape::linear(1),
            dynamic_shared_memory: 0,
            slots: vec![Slot::U64(blocker.flag.device), Slot::U64(BLOCKING_TIMEOUT.as_nanos() as u64)],
        };
        let mut blocking_pointers = blocking.pointers();
        // SAFETY: the blocking kernel's two u64 parameters (checked in
        // ensure_blocker), the flag mapped and alive in self until after the
        // stream is synchronised.
        unsafe { blocking.launch(&self.stream, &mut blocking_pointers) }
            .context("launching the blocking kernel")?;
        Ok(())
    }

    /// Executes `ops` with `prepared` as the launch; `held` says whether a blocking kernel
    /// waits for a release, so that the caller can release it when an op fails.
    fn execute(
        &mut self,
        launch: &Launch,
        prepared: &Prepared,
        ops: &[Op],
        held: &mut bool,
    ) -> Result<Vec<f32>> {
        let mut pointers = prepared.pointers();
        // The executable of the graph of `prepared`'s launches, looked up before the first op
        // (not between a sample's events), and its count.
        let graphs: Vec<_> = self
            .graphs
            .iter()
            .filter(|graph| graph.prepared == *prepared)
            .map(|graph| (graph.exec, graph.launches))
            .collect();
        let mut samples = Vec::new();
        let mut released = false;
        for &op in ops {
            match op {
                Op::Zero => self.zero_async(&launch.zero_before_each)?,
                Op::FlushL2 => self.flush_l2()?,
                Op::Record(event) => self.events[event].record(&self.stream).context("cuEventRecord")?,
                // SAFETY: `pointers` are `prepared`'s, checked against the kernel's parameters
                // by `prepare`; every buffer lives in self past the schedule's synchronisation.
                // That the kernel stays inside its buffers is the workload's contract with its
                // kernel (its element counts are the buffers' own), checked on the CPU by the
                // workload's tests and on a GPU by compute-sanitizer (runner/tests/gpu.rs).
                Op::Launch => unsafe { prepared.launch(&self.stream, &mut pointers) }?,
                Op::Graph { launches } => {
                    use cust::sys::{CUresult, cuGraphLaunch};
                    let exec =
                        graphs.iter().find(|(_, captured)| *captured == launches).map(|&(exec, _)| exec);
                    let exec = exec.with_context(|| format!("no graph of {launches} launches captured"))?;
                    // SAFETY: an executable self.graphs owns, of `prepared`'s launches, captured
                    // under the contract of Op::Launch above; every buffer lives in self past the
                    // schedule's synchronisation.
                    let status = unsafe { cuGraphLaunch(exec, self.stream.as_inner()) };
                    if status != CUresult::CUDA_SUCCESS {
                        bail!("cuGraphLaunch: {status:?}");
                    }
                }
                Op::Block => {
                    self.hold_stream(held)?;
                }
                Op::Release => {
                    self.blocker.as_ref().context("no blocking kernel")?.flag.release();
                    *held = false;
                    released = true;
                }
                Op::WaitFor(event) => {
                    let event = &self.events[event];
                    self.watchdog.wait(|| event.synchronize()).context("a timed launch failed")?;
                }
                Op::Synchronize => {
                    self.watchdog.wait(|| self.stream.synchronize()).context("a timed launch failed")?;
                    if std::mem::take(&mut released)
                        && self.blocker.as_ref().is_some_and(|b| b.flag.timed_out())
                    {
                        bail!(
                            "the blocking kernel stopped waiting after {} s, before the host had enqueued \
                             the samples queued behind it: cold samples from this window are not trustworthy",
                            BLOCKING_TIMEOUT.as_secs()
                        );
                    }
                }
                Op::Sample { start, stop, launches } => {
                    let ms = self.events[stop]
                        .elapsed_time_f32(&self.events[start])
                        .context("cuEventElapsedTime")?;
                    samples.push(ms / launches.max(1) as f32);
                }
            }
        }
        Ok(samples)
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

/// `device`'s UUID as `GPU-` and 32 hex digits, where the driver gives it.
fn device_uuid(device: &Device) -> Option<String> {
    let mut uuid = cust::sys::CUuuid { bytes: [0; 16] };
    // SAFETY: the driver writes the 16 bytes of `uuid`, a live local.
    let status = unsafe { cust::sys::cuDeviceGetUuid(&mut uuid, device.as_raw()) };
    (status == cust::sys::CUresult::CUDA_SUCCESS).then(|| {
        format!("GPU-{}", uuid.bytes.iter().map(|&byte| format!("{:02x}", byte as u8)).collect::<String>())
    })
}

impl crate::measure::gpu::backend::Device for CudaGpu {
    fn uuid(&self) -> Option<String> {
        self.uuid.clone()
    }

    fn free_memory(&self) -> Result<u64> {
        let (free, _total) = cust::memory::mem_get_info().context("asking the driver for free memory")?;
        Ok(free as u64)
    }

    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError> {
        let (module, function) = load(kernel)?;
        let params = kernel_params(kernel).map_err(LoadError::Setup)?;
        self.modules.push(Loaded { module, kernel: *kernel, function, params });
        Ok(())
    }
}

impl Gpu for CudaGpu {
    fn launch_fault(&self, error: &anyhow::Error) -> Option<crate::measure::gpu::backend::LaunchFault> {
        let code = error.chain().find_map(|cause| cause.downcast_ref::<CudaError>())?;
        let context_lost = match code {
            // Sticky: the context can run nothing more (CUDA's "the process must be restarted").
            CudaError::IllegalAddress
            | CudaError::LaunchFailed
            | CudaError::MisalignedAddress
            | CudaError::IllegalInstruction
            | CudaError::InvalidAddressSpace
            | CudaError::HardwareStackError
            | CudaError::AssertError
            | CudaError::LaunchTimeout => true,
            // The launch was refused (too many registers or threads, more shared memory than a
            // block may have, which the occupancy model prunes first); the context is intact.
            CudaError::LaunchOutOfResources
            | CudaError::LaunchIncompatibleTexturing
            | CudaError::InvalidValue => false,
            _ => return None,
        };
        Some(crate::measure::gpu::backend::LaunchFault { context_lost })
    }

    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn watchdog(&self) -> &Watchdog {
        &self.watchdog
    }

    fn clock(&self) -> std::time::Duration {
        self.opened.elapsed()
    }

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId> {
        let buffer = DeviceBuffer::zeroed(bytes.max(1))
            .with_context(|| format!("allocating {bytes} bytes of device memory"))?;
        self.buffers.push(buffer);
        Ok(BufferId(self.buffers.len() - 1))
    }

    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        self.watchdog.wait(|| self.stream.synchronize())?;
        let mut target = self.range(buffer, byte_offset, bytes.len())?;
        if bytes.len() < STAGED_FROM_BYTES {
            return self.watchdog.wait(|| target.copy_from(bytes)).context("copying to the device");
        }
        self.staged_upload(target.as_device_ptr().as_raw(), bytes).context("copying to the device")
    }

    fn zero(&mut self, buffer: BufferId) -> Result<()> {
        self.watchdog.wait(|| self.stream.synchronize())?;
        self.buffer_mut(buffer)?.set_zero().context("zeroing a device buffer")?;
        Ok(())
    }

    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        self.watchdog.wait(|| self.stream.synchronize())?;
        let source = self.range(buffer, byte_offset, out.len())?;
        if out.len() < STAGED_FROM_BYTES {
            return self.watchdog.wait(|| source.copy_to(out)).context("copying from the device");
        }
        self.staged_download(source.as_device_ptr().as_raw(), out).context("copying from the device")
    }

    fn copy(&mut self, from: (BufferId, usize), to: (BufferId, usize), bytes: usize) -> Result<()> {
        use cust::sys::{CUresult, cuMemcpyDtoDAsync_v2};
        let source = self.range(from.0, from.1, bytes)?.as_device_ptr().as_raw();
        let target = self.range(to.0, to.1, bytes)?.as_device_ptr().as_raw();
        // SAFETY: both ranges checked inside live buffers of self, which outlive the
        // synchronisation below.
        let status = unsafe { cuMemcpyDtoDAsync_v2(target, source, bytes, self.stream.as_inner()) };
        if status != CUresult::CUDA_SUCCESS {
            bail!("cuMemcpyDtoDAsync: {status:?}");
        }
        self.watchdog.wait(|| self.stream.synchronize()).context("a copy on the device failed")
    }

    fn count_mismatches(
        &mut self,
        got: (BufferId, usize),
        expected: (BufferId, usize),
        count: usize,
        comparison: ElementComparison,
    ) -> Result<Option<Mismatches>> {
        let entry = comparison.entry().with_context(|| format!("no comparison kernel for {comparison:?}"))?;
        let bytes = count.checked_mul(comparison.element_size()).context("a comparison past 64 bits")?;
        let got = self.range(got.0, got.1, bytes)?.as_device_ptr().as_raw();
        let expected = self.range(expected.0, expected.1, bytes)?.as_device_ptr().as_raw();
        // The parameters' shapes, for the check against the PTX: the values come below.
        let mut args = vec![KernelArg::U64(got), KernelArg::U64(expected), KernelArg::Usize(count)];
        if let Some(tolerance) = comparison.tolerance() {
            args.push(KernelArg::U64(tolerance.to_bits()));
        }
        args.push(KernelArg::U64(0));
        let function = self.comparison_function(entry, &args)?;
        self.watchdog.wait(|| self.stream.synchronize())?;
        let comparer = self.comparer.as_mut().expect("set by comparison_function");
        comparer.found.copy_from(&[0, u64::MAX]).context("clearing a comparison's result")?;
        let found = comparer.found.as_device_ptr().as_raw();
        let mut slots = vec![Slot::U64(got), Slot::U64(expected), Slot::U64(count as u64)];
        if let Some(tolerance) = comparison.tolerance() {
            slots.push(Slot::U64(tolerance.to_bits()));
        }
        slots.push(Slot::U64(found));
        // One wave of full SMs at most; the kernel's grid-stride loop takes the rest.
        let per_sm = (self.limits.max_threads_per_sm / COMPARE_THREADS).max(1);
        let blocks = (count as u64)
            .div_ceil(u64::from(COMPARE_THREADS))
            .clamp(1, u64::from(per_sm * self.limits.multiprocessors));
        let prepared = Prepared {
            function,
            grid: GridShape::linear(blocks as u32),
            block: BlockShape::linear(COMPARE_THREADS),
            dynamic_shared_memory: 0,
            slots,
        };
        let mut pointers = prepared.pointers();
        // SAFETY: the arguments checked against the entry's PTX parameters above; both ranges
        // inside live buffers of self and the result's two words in the comparer, all of them
        // alive past the synchronisation below.
        unsafe { prepared.launch(&self.stream, &mut pointers) }.context("launching a comparison kernel")?;
        self.watchdog.wait(|| self.stream.synchronize()).context("a comparison kernel failed")?;
        let mut words = [0u64; 2];
        self.comparer
            .as_ref()
            .expect("set above")
            .found
            .copy_to(&mut words[..])
            .context("reading a comparison's result")?;
        Ok(Some(Mismatches { count: words[0], first: (words[0] > 0).then_some(words[1]) }))
    }

    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        if self.copy_buffers.as_ref().is_none_or(|(source, _)| source.len() != bytes) {
            self.copy_buffers = None;
            let source = DeviceBuffer::zeroed(bytes).context("allocating the copy source")?;
            let destination = DeviceBuffer::zeroed(bytes).context("allocating the copy destination")?;
            self.copy_buffers = Some((source, destination));
        }
        self.ensure_events(2)?;
        let (source, destination) = self.copy_buffers.as_mut().expect("allocated above");
        let (start, stop) = (&self.events[0], &self.events[1]);
        let mut milliseconds = Vec::with_capacity(timing.runs as usize);
        for run in 0..timing.warmups + timing.runs {
            start.record(&self.stream)?;
            // SAFETY: both buffers live in self past the synchronisation below.
            unsafe { destination.async_copy_from(&*source, &self.stream) }.context("cuMemcpyDtoDAsync")?;
            stop.record(&self.stream)?;
            self.watchdog.wait(|| stop.synchronize()).context("a device-to-device copy failed")?;
            if run >= timing.warmups {
                milliseconds.push(stop.elapsed_time_f32(start)?);
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
            local_bytes_per_thread: read(FunctionAttribute::LocalSizeBytes)?,
        })
    }

    fn max_threads_per_block(&self) -> Result<u32> {
        let value = self
            .function()?
            .get_attribute(FunctionAttribute::MaxThreadsPerBlock)
            .context("reading the kernel's MaxThreadsPerBlock")?;
        u32::try_from(value).map_err(|_| anyhow!("the driver reported MaxThreadsPerBlock = {value}"))
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

    fn sensors(&mut self) -> Result<&mut dyn crate::measure::sensors::Sensors, String> {
        let uuid = self.uuid.clone();
        let sensors = self.sensors.get_or_insert_with(|| match uuid {
            Some(uuid) => crate::measure::sensors::nvml::NvmlSensors::open(&uuid),
            None => Err("the driver gave no UUID to find the GPU by in NVML".into()),
        });
        match sensors {
            Ok(sensors) => Ok(sensors),
            Err(why) => Err(why.clone()),
        }
    }

    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>> {
        // Everything the host prepares happens here, before the first op: the argument values,
        // the events, the blocking kernel and the L2 scratch buffer.
        let prepared = self.prepare(launch)?;
        let events =
            ops.iter().filter_map(|op| if let Op::Record(i) = op { Some(i + 1) } else { None }).max();
        self.ensure_events(events.unwrap_or(0))?;
        if ops.contains(&Op::Block) {
            self.ensure_blocker()?;
        }
        if ops.contains(&Op::FlushL2) {
            self.ensure_l2_scratch()?;
        }
        if let Some(&Op::Graph { launches }) = ops.iter().find(|op| matches!(op, Op::Graph { .. })) {
            self.ensure_graph(&prepared, launches)?;
        }
        let mut held = false;
        let result = self.execute(launch, &prepared, ops, &mut held);
        if held {
            // A failed op left the blocking kernel waiting: let it go rather than time out.
            if let Some(blocker) = &self.blocker {
                blocker.flag.release();
            }
        }
        result
    }
}

impl Drop for CudaGpu {
    fn drop(&mut self) {
        // Nothing may still read the flag when it is freed: release a blocking kernel a failed
        // schedule left behind, and wait for the stream.
        if let Some(blocker) = &self.blocker {
            blocker.flag.release();
        }
        let _ = self.stream.synchronize();
    }
}
