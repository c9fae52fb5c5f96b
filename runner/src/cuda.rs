/*!
The real backend: cust 0.3.2 over the CUDA driver API, with the committed PTX.

Errors are sorted by who must act: [`OpenError::NoDevice`] when there is no usable driver or
GPU, or no device at the requested index (exit 3); [`LoadError::Refused`] when the driver
cannot load a module (exit 3, or the module left out where others can run); anything after
that is the run failing (exit 1).
*/

use crate::backend::{DeviceLimits, Driver, Gpu, KernelResources, LoadError, Suggestion, Timing};
use crate::compat::Refusal;
use crate::frame::Frame;
use crate::ptx::KernelRef;
use anyhow::{Context as _, Result, anyhow};
use cust::context::Context;
use cust::device::{Device, DeviceAttribute};
use cust::error::CudaError;
use cust::event::{Event, EventFlags};
use cust::function::{BlockSize, Function, FunctionAttribute};
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::sys::CUdevice_attribute as RawAttribute;
use std::ffi::c_void;

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

/// The four planes, each `offset + pixels` floats long; kernels see them from `offset` on,
/// so an offset of 1 to 3 hands them pointers that are not 16-byte aligned.
struct Buffers {
    red: DeviceBuffer<f32>,
    green: DeviceBuffer<f32>,
    blue: DeviceBuffer<f32>,
    out: DeviceBuffer<f32>,
    pixels: usize,
    offset: usize,
}

/// One device with one or more grayscale modules loaded, one of them active. Fields drop in
/// order, so buffers, events, stream and modules are released before their context.
pub struct CudaGpu {
    buffers: Option<Buffers>,
    l2_scratch: Option<DeviceBuffer<u8>>,
    start: Event,
    stop: Event,
    stream: Stream,
    /// One loaded module per kernel, with the kernel's entry point.
    modules: Vec<(Module, &'static str)>,
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
            buffers: None,
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

    fn function(&self) -> Result<Function<'_>> {
        let (module, entry) = self.modules.get(self.active).ok_or_else(|| anyhow!("no kernel loaded"))?;
        Ok(module.get_function(entry)?)
    }

    fn buffers(&self) -> Result<&Buffers> {
        self.buffers.as_ref().ok_or_else(|| anyhow!("no frame uploaded"))
    }

    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<()> {
        let buffers = self.buffers()?;
        let function = self.function()?;
        let skip = (buffers.offset * std::mem::size_of::<f32>()) as u64;
        let red = buffers.red.as_device_ptr().as_raw() + skip;
        let green = buffers.green.as_device_ptr().as_raw() + skip;
        let blue = buffers.blue.as_device_ptr().as_raw() + skip;
        let out = buffers.out.as_device_ptr().as_raw() + skip;
        let pixels = buffers.pixels;
        // Parameter order and types are the kernel's: four pointers and a usize count.
        let args = [
            &red as *const u64 as *mut c_void,
            &green as *const u64 as *mut c_void,
            &blue as *const u64 as *mut c_void,
            &out as *const u64 as *mut c_void,
            &pixels as *const usize as *mut c_void,
        ];
        // SAFETY: the arguments match the kernel's signature, every buffer holds `pixels`
        // floats from `offset` on, and the kernel touches no index at or past `pixels`.
        unsafe { self.stream.launch(&function, grid_blocks, threads_per_block, 0, &args) }
            .context("cuLaunchKernel")
    }
}

impl crate::backend::Device for CudaGpu {
    fn free_memory(&self) -> Result<u64> {
        let (free, _total) = cust::memory::mem_get_info().context("asking the driver for free memory")?;
        Ok(free as u64)
    }

    fn load(&mut self, kernel: &KernelRef) -> Result<(), LoadError> {
        let module = load(kernel)?;
        self.modules.push((module, kernel.entry));
        Ok(())
    }
}

impl Gpu for CudaGpu {
    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn upload_at(&mut self, frame: &Frame, offset: usize) -> Result<()> {
        self.buffers = None;
        let pixels = frame.pixels();
        let copy = |plane: &[f32], name: &str| -> Result<DeviceBuffer<f32>> {
            let buffer = DeviceBuffer::zeroed(offset + pixels)
                .with_context(|| format!("allocating the {name} plane"))?;
            buffer
                .index(offset..offset + pixels)
                .copy_from(plane)
                .with_context(|| format!("copying the {name} plane to the device"))?;
            Ok(buffer)
        };
        self.buffers = Some(Buffers {
            red: copy(&frame.red, "red")?,
            green: copy(&frame.green, "green")?,
            blue: copy(&frame.blue, "blue")?,
            out: DeviceBuffer::zeroed(offset + pixels).context("allocating the output plane")?,
            pixels,
            offset,
        });
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

    fn blocks_per_sm(&self, threads_per_block: u32) -> Result<u32> {
        let function = self.function()?;
        Ok(function.max_active_blocks_per_multiprocessor(BlockSize::x(threads_per_block), 0)?)
    }

    fn suggestion(&self) -> Result<Suggestion> {
        let function = self.function()?;
        let (grid_blocks, threads_per_block) = function.suggested_launch_configuration(0, BlockSize::x(0))?;
        Ok(Suggestion { threads_per_block, grid_blocks })
    }

    fn zero_output(&mut self) -> Result<()> {
        let buffers = self.buffers.as_mut().ok_or_else(|| anyhow!("no frame uploaded"))?;
        buffers.out.set_zero().context("zeroing the output plane")?;
        Ok(())
    }

    fn select_kernel(&mut self, index: usize) -> Result<()> {
        if index >= self.modules.len() {
            return Err(anyhow!("kernel {index} is not loaded ({} are)", self.modules.len()));
        }
        self.active = index;
        Ok(())
    }

    fn time_one_launch(&mut self, grid_blocks: u32, threads_per_block: u32) -> Result<f32> {
        self.start.record(&self.stream)?;
        self.launch(grid_blocks, threads_per_block)?;
        self.stop.record(&self.stream)?;
        self.stop.synchronize().context("a timed launch failed")?;
        Ok(self.stop.elapsed_time_f32(&self.start)?)
    }

    fn time_launches(
        &mut self,
        grid_blocks: u32,
        threads_per_block: u32,
        timing: Timing,
    ) -> Result<Vec<f32>> {
        // Warm up this configuration, not just the module: the first launches pay for
        // lazy loading and for clocks that have not ramped yet.
        for _ in 0..timing.warmups {
            self.launch(grid_blocks, threads_per_block)?;
        }
        self.stream.synchronize().context("a warm-up launch failed")?;

        let mut milliseconds = Vec::with_capacity(timing.runs as usize);
        for run in 0..timing.runs {
            if timing.flush_l2 {
                self.flush_l2(run)?;
            }
            self.start.record(&self.stream)?;
            self.launch(grid_blocks, threads_per_block)?;
            self.stop.record(&self.stream)?;
            self.stop.synchronize().context("a timed launch failed")?;
            milliseconds.push(self.stop.elapsed_time_f32(&self.start)?);
        }
        Ok(milliseconds)
    }

    fn download(&mut self, out: &mut [f32]) -> Result<()> {
        self.stream.synchronize()?;
        let buffers = self.buffers()?;
        buffers
            .out
            .index(buffers.offset..buffers.offset + buffers.pixels)
            .copy_to(out)
            .context("copying the output plane back")?;
        Ok(())
    }

    fn overwrite_output(&mut self, index: usize, value: f32) -> Result<()> {
        self.stream.synchronize()?;
        let buffers = self.buffers.as_mut().ok_or_else(|| anyhow!("no frame uploaded"))?;
        if index >= buffers.pixels {
            return Err(anyhow!("pixel {index} is outside the {}-pixel output", buffers.pixels));
        }
        let at = buffers.offset + index;
        let mut pixel = buffers.out.index(at..at + 1);
        pixel.copy_from(&[value]).context("overwriting one output pixel")?;
        Ok(())
    }
}
