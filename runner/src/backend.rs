/*!
The measuring backend: what the sweep needs from a GPU, behind one trait.

[`crate::cuda::CudaGpu`] implements it with cust and the real driver; [`MockGpu`] implements
it on the CPU with scripted answers, so the whole pipeline (sweep, checks, table, exit
status) runs in tests on a machine with no GPU.
*/

use crate::compat::Refusal;
use crate::frame::{Frame, luma};
use crate::ptx::KernelRef;
use anyhow::{Result, anyhow, bail};
use serde::Serialize;

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

    /// Loads `kernel`'s module; it becomes kernel number (kernels loaded before it), and the
    /// first one loaded is active.
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

/// One loaded kernel on one device, with the frame's buffers allocated.
pub trait Gpu {
    fn limits(&self) -> &DeviceLimits;

    /// Copies the three input planes to the device and allocates the output.
    fn upload(&mut self, frame: &Frame) -> Result<()> {
        self.upload_at(frame, 0)
    }

    /// As [`Gpu::upload`], with every plane starting `offset` floats into its allocation, so
    /// that kernels get pointers `4 offset` bytes past an aligned address.
    fn upload_at(&mut self, frame: &Frame, offset: usize) -> Result<()>;

    /// Device-to-device copies of `bytes` (`cuMemcpyDtoDAsync`), after `timing.warmups`
    /// untimed ones, each timed between its own events: the bandwidth ceiling for kernels that
    /// move the same bytes.
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>>;

    /// Registers and static shared memory of the loaded kernel.
    fn kernel_resources(&self) -> Result<KernelResources>;

    /// Blocks of `threads_per_block` threads that fit on one SM for this kernel, from the driver.
    fn blocks_per_sm(&self, threads_per_block: u32) -> Result<u32>;

    /// The driver's own block size and grid for this kernel.
    fn suggestion(&self) -> Result<Suggestion>;

    /// Sets every output value to 0.0, so a launch that misses pixels is caught.
    fn zero_output(&mut self) -> Result<()>;

    /// Makes loaded kernel `index` the one every other method uses (0 is loaded first).
    fn select_kernel(&mut self, index: usize) -> Result<()>;

    /// One launch between its own pair of events; its milliseconds.
    fn time_one_launch(&mut self, grid_blocks: u32, threads_per_block: u32) -> Result<f32>;

    /// Runs the warm-ups, then each timed launch between its own pair of events (after an
    /// L2 flush where asked), and returns every timed launch's milliseconds.
    fn time_launches(&mut self, grid_blocks: u32, threads_per_block: u32, timing: Timing)
    -> Result<Vec<f32>>;

    /// Copies the output back into `out`, which has one value per pixel.
    fn download(&mut self, out: &mut [f32]) -> Result<()>;

    /// Writes `value` into output pixel `index` on the device: the fault that
    /// `--corrupt-pixel` injects to show the reference check catching it.
    fn overwrite_output(&mut self, index: usize, value: f32) -> Result<()>;
}

/// A CPU stand-in for a GPU, for tests: scripted occupancy and times, outputs computed on
/// the CPU, and an optional failing launch.
#[derive(Debug, Clone)]
pub struct MockGpu {
    pub limits: DeviceLimits,
    pub resources: KernelResources,
    /// Blocks/SM answered for a block size; sizes not listed get `default_blocks_per_sm`.
    pub blocks_per_sm: Vec<(u32, u32)>,
    pub default_blocks_per_sm: u32,
    pub suggestion: Suggestion,
    /// Milliseconds answered for a block size; sizes not listed get 1.0.
    pub milliseconds: Vec<(u32, f32)>,
    /// Fail `time_launches` at this block size with a driver-like error.
    pub fail_launch_at: Option<u32>,
    /// Per loaded kernel, a factor on the scripted times; its length is the number of
    /// kernels `select_kernel` accepts.
    pub kernel_time_factors: Vec<f32>,
    /// Kernel whose launches write a wrong value into pixel 0.
    pub wrong_kernel: Option<usize>,
    pub active: usize,
    /// Calls to `time_one_launch`, in order: (kernel, block size).
    pub timed: Vec<(usize, u32)>,
    /// Relative spread of the scripted per-run times (0 for identical runs).
    pub run_spread: f32,
    /// L2 flushes done so far.
    pub l2_flushes: usize,
    /// The offset the frame was uploaded at.
    pub offset: usize,
    /// Bandwidth the scripted device-to-device copy reaches, counting read and write.
    pub copy_gb_per_s: f64,
    inputs: Option<Frame>,
    output: Vec<f32>,
    /// Every (grid, block) launched, in order, warm-ups included.
    pub launches: Vec<(u32, u32)>,
    /// Device memory free, in bytes.
    pub free_memory: u64,
    /// Modules (by file) the driver refuses on this device, and how.
    pub refuses: Vec<(&'static str, Refusal)>,
    /// Kernels loaded through [`Device::load`], in order.
    pub loaded: Vec<KernelRef>,
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
            default_blocks_per_sm: 1,
            suggestion: Suggestion { threads_per_block: 1024, grid_blocks: 264 },
            milliseconds: Vec::new(),
            fail_launch_at: None,
            kernel_time_factors: vec![1.0],
            wrong_kernel: None,
            active: 0,
            timed: Vec::new(),
            run_spread: 0.0,
            l2_flushes: 0,
            offset: 0,
            copy_gb_per_s: 4000.0,
            inputs: None,
            output: Vec::new(),
            launches: Vec::new(),
            // An H200 has 141 GB; a little of it is the driver's.
            free_memory: 140_000_000_000,
            refuses: Vec::new(),
            loaded: Vec::new(),
        }
    }

    fn scripted_ms(&self, threads_per_block: u32) -> f32 {
        self.milliseconds.iter().find(|(threads, _)| *threads == threads_per_block).map_or(1.0, |(_, ms)| *ms)
    }

    /// One "launch": a grid-stride loop of any grid covers every pixel, so the mock
    /// computes them all.
    fn launch(&mut self, grid_blocks: u32, threads_per_block: u32) {
        self.launches.push((grid_blocks, threads_per_block));
        let frame = self.inputs.as_ref().expect("upload before launch");
        for (i, out) in self.output.iter_mut().enumerate() {
            *out = luma::luma(frame.red[i], frame.green[i], frame.blue[i]);
        }
        if self.wrong_kernel == Some(self.active)
            && let Some(first) = self.output.first_mut()
        {
            *first = 2.0;
        }
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
        if !kernel.module.ptx.contains(&format!(".entry {}(", kernel.entry)) {
            return Err(LoadError::Setup(anyhow!(
                "the {} PTX has no kernel `{}`",
                kernel.module.label,
                kernel.entry
            )));
        }
        self.loaded.push(*kernel);
        if self.loaded.len() > self.kernel_time_factors.len() {
            self.kernel_time_factors.push(1.0);
        }
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
        Ok(device)
    }
}

impl Gpu for MockGpu {
    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn upload_at(&mut self, frame: &Frame, offset: usize) -> Result<()> {
        self.output = vec![f32::NAN; frame.pixels()];
        self.inputs = Some(frame.clone());
        self.offset = offset;
        Ok(())
    }

    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        // A scripted ceiling: `copy_gb_per_s` for every run.
        let milliseconds = bytes as f64 * 2.0 / (self.copy_gb_per_s * 1e9) * 1e3;
        Ok(vec![milliseconds as f32; timing.runs as usize])
    }

    fn kernel_resources(&self) -> Result<KernelResources> {
        Ok(self.resources)
    }

    fn blocks_per_sm(&self, threads_per_block: u32) -> Result<u32> {
        Ok(self
            .blocks_per_sm
            .iter()
            .find(|(threads, _)| *threads == threads_per_block)
            .map_or(self.default_blocks_per_sm, |(_, blocks)| *blocks))
    }

    fn suggestion(&self) -> Result<Suggestion> {
        Ok(self.suggestion)
    }

    fn zero_output(&mut self) -> Result<()> {
        self.output.fill(0.0);
        Ok(())
    }

    fn select_kernel(&mut self, index: usize) -> Result<()> {
        if index >= self.kernel_time_factors.len() {
            bail!("kernel {index} is not loaded");
        }
        self.active = index;
        Ok(())
    }

    fn time_one_launch(&mut self, grid_blocks: u32, threads_per_block: u32) -> Result<f32> {
        self.timed.push((self.active, threads_per_block));
        self.launch(grid_blocks, threads_per_block);
        Ok(self.scripted_ms(threads_per_block) * self.kernel_time_factors[self.active])
    }

    fn time_launches(
        &mut self,
        grid_blocks: u32,
        threads_per_block: u32,
        timing: Timing,
    ) -> Result<Vec<f32>> {
        if self.fail_launch_at == Some(threads_per_block) {
            bail!("launch failed: mock driver error at {threads_per_block} threads per block");
        }
        for _ in 0..timing.warmups + timing.runs {
            self.launch(grid_blocks, threads_per_block);
        }
        if timing.flush_l2 {
            self.l2_flushes += timing.runs as usize;
        }
        // Scripted times with a small spread: the n-th run takes (1 + spread x (n mod 3 - 1)).
        let base = self.scripted_ms(threads_per_block) * self.kernel_time_factors[self.active];
        Ok((0..timing.runs).map(|run| base * (1.0 + self.run_spread * ((run % 3) as f32 - 1.0))).collect())
    }

    fn download(&mut self, out: &mut [f32]) -> Result<()> {
        out.copy_from_slice(&self.output);
        Ok(())
    }

    fn overwrite_output(&mut self, index: usize, value: f32) -> Result<()> {
        match self.output.get_mut(index) {
            Some(pixel) => *pixel = value,
            None => bail!("pixel {index} is outside the output"),
        }
        Ok(())
    }
}
