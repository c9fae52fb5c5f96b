/*!
The mock backend: a CPU stand-in for the driver and its devices, for tests only (built with
`cfg(test)` or the `mock` feature, which the runner's own integration tests and the
repository's `tests/` crate turn on; a release build has none of it).

[`MockGpu`] answers occupancy and times from scripts, runs every launch through the workload's
CPU emulation each kernel registers ([`MockGpu::emulate`]) on [`MockMemory`], and injects faults
(a failing launch, a kernel that computes one element wrong); [`MockDriver`] hands out its
devices by ordinal and says which CUDA version it supports. Kernels are named by their
[`KernelRef`], never by the order they were loaded in.
*/

pub use crate::measure::gpu::backend::Emulation;
pub use crate::measure::supervision::watchdog::Watchdog;

pub use crate::measure::gpu::backend::{BufferId, EmulatedMemory, KernelArg, Launch};

/// One thread of a launch as a kernel reads its indices: `blockIdx` and `threadIdx`, in x, y
/// and z, so that a CPU emulation can take each thread's share of the work as the kernel does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thread {
    /// `blockIdx.x`, `.y`, `.z`.
    pub block_idx: [u32; 3],
    /// `threadIdx.x`, `.y`, `.z`.
    pub thread_idx: [u32; 3],
}

impl Thread {
    /// Its index in x, y and z over the whole grid: `blockIdx * blockDim + threadIdx` in each
    /// dimension, as `u64`.
    pub fn global(&self, launch: &Launch) -> [u64; 3] {
        let block = [launch.block.x, launch.block.y, launch.block.z];
        std::array::from_fn(|axis| {
            u64::from(self.block_idx[axis]) * u64::from(block[axis]) + u64::from(self.thread_idx[axis])
        })
    }
}

/// Every thread of `launch`: blocks in x-fastest order, and within each its threads in
/// x-fastest order (the order warps are cut in).
pub fn threads(launch: &Launch) -> impl Iterator<Item = Thread> + '_ {
    let (grid, block) = (launch.grid, launch.block);
    let cube = |[x, y, z]: [u32; 3]| {
        (0..z).flat_map(move |k| (0..y).flat_map(move |j| (0..x).map(move |i| [i, j, k])))
    };
    cube([grid.x, grid.y, grid.z]).flat_map(move |block_idx| {
        cube([block.x, block.y, block.z]).map(move |thread_idx| Thread { block_idx, thread_idx })
    })
}
use crate::measure::gpu::backend::{
    Device, DeviceSource, Gpu, LoadError, OpenError, SharedMemoryFn, Timing, check_args, kernel_params,
};
use crate::measure::gpu::compat::Refusal;
pub use crate::measure::gpu::memory::{read_values, view_values, write_values};
use crate::measure::gpu::ptx::KernelRef;
use crate::measure::profiler::{CounterReading, CounterRequest, CounterSource};
use crate::measure::sampling::timing::Op;
pub use crate::measure::sensors::ClockReading;
use crate::measure::sensors::Sensors;
use crate::model::counters::Counters;

mod sensors;
use crate::model::block_shape::{MAX_BLOCK_DIMENSIONS, MAX_GRID_DIMENSIONS};
use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
use anyhow::{Context as _, Result, anyhow, bail, ensure};
pub use sensors::MockSensors;
use std::cell::RefCell;
use std::collections::HashSet;
use std::time::Duration;

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
        Ok(&crate::measure::gpu::memory::as_bytes(words)[..*len])
    }

    /// Every byte of `buffer`, to write.
    pub fn bytes_mut(&mut self, buffer: BufferId) -> Result<&mut [u8]> {
        let (words, len) = self.buffers.get_mut(buffer.0).ok_or_else(|| anyhow!("no buffer {}", buffer.0))?;
        Ok(&mut crate::measure::gpu::memory::as_bytes_mut(words)[..*len])
    }

    /// Buffers allocated so far.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// Whether no buffer was allocated.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }
}

impl EmulatedMemory for MockMemory {
    fn at(&self, arg: &KernelArg) -> Result<&[u8]> {
        match *arg {
            KernelArg::Buffer(buffer, offset) => {
                self.bytes(buffer)?.get(offset..).ok_or_else(|| anyhow!("offset {offset} is past its buffer"))
            }
            other => bail!("expected a pointer argument, got {other:?}"),
        }
    }

    fn at_mut(&mut self, arg: &KernelArg) -> Result<&mut [u8]> {
        match *arg {
            KernelArg::Buffer(buffer, offset) => self
                .bytes_mut(buffer)?
                .get_mut(offset..)
                .ok_or_else(|| anyhow!("offset {offset} is past its buffer")),
            other => bail!("expected a pointer argument, got {other:?}"),
        }
    }
}

/// A launch fault the mock injects ([`MockGpu::fault_at`]): an illegal address when it loses
/// the context, too many resources when it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MockFault {
    /// The fault poisons the context, as an illegal address does.
    pub context_lost: bool,
}

impl std::fmt::Display for MockFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.context_lost {
            "an illegal memory access was encountered (mock)"
        } else {
            "too many resources requested for launch (mock)"
        })
    }
}

impl std::error::Error for MockFault {}

/// A CPU stand-in for a GPU, for tests: scripted occupancy and times, launches run by the
/// workloads' CPU emulations on [`MockMemory`], and faults to inject.
#[derive(Debug, Clone)]
pub struct MockGpu {
    /// What the mock reports about itself.
    pub limits: DeviceLimits,
    /// Registers and static shared memory of every kernel.
    pub resources: KernelResources,
    /// Blocks/SM answered for a block size, whatever the dynamic shared memory; sizes not
    /// listed get `default_blocks_per_sm`.
    pub blocks_per_sm: Vec<(u32, u32)>,
    /// Blocks/SM answered for (block size, dynamic shared memory per block), before
    /// `blocks_per_sm` is consulted: residency that shared memory limits.
    pub shared_memory_residency: Vec<(u32, u32, u32)>,
    /// Blocks/SM answered for block sizes no script lists, where the occupancy model does not
    /// know the device's compute capability; where it does, the model answers them.
    pub default_blocks_per_sm: u32,
    /// What `cuOccupancyMaxPotentialBlockSize` answers.
    pub suggestion: Suggestion,
    /// Milliseconds answered for a block size; sizes not listed get 1.0.
    pub milliseconds: Vec<(u32, f32)>,
    /// Instead of `milliseconds`, time each launch by a model of a memory-bound kernel: the
    /// bytes of its buffers at `copy_gb_per_s`, slowed by idle lanes and a partial last wave,
    /// so that a table's times move when its bytes, block sizes or grids do.
    pub modelled_times: bool,
    /// Fail `time_launches` at this block size with a driver-like error.
    pub fail_launch_at: Option<u32>,
    /// A launch fault at this block size ([`MockFault`]): with `context_lost`, every call
    /// after it fails too, as a poisoned CUDA context does.
    pub fault_at: Option<(u32, MockFault)>,
    /// The context is poisoned: every launch fails.
    pub context_lost: bool,
    /// Launches at this block size never finish: the wait runs under the watchdog, which ends
    /// the process (for tests that run a worker process).
    pub hang_at: Option<u32>,
    /// Host time every schedule takes on top of its work, so that a test can send a real
    /// signal while a sweep runs.
    pub delay: Duration,
    /// Once this many launches at this block size have run, a SIGINT or SIGTERM arrives.
    pub signal_at: Option<(u32, usize, crate::measure::supervision::interrupt::Signal)>,
    /// A factor on the scripted times, per kernel; kernels not listed get 1.0.
    pub kernel_time_factors: Vec<(KernelRef, f32)>,
    /// The kernel whose launches get output element `wrong_element` wrong: a pixel of a wrong
    /// value, or a bin counted once too often.
    pub wrong_kernel: Option<KernelRef>,
    /// The output element `wrong_kernel` gets wrong.
    pub wrong_element: usize,
    /// Position in `loaded` of the active kernel.
    active: usize,
    /// Calls to `time_one_launch`, in order: (kernel, block size).
    pub timed: Vec<(KernelRef, u32)>,
    /// Relative spread of the scripted per-run times (0 for identical runs).
    pub run_spread: f32,
    /// Where not empty, the factors on the scripted time of successive samples, in order
    /// over the mock's life and then again from the start, instead of `run_spread`.
    pub sample_script: Vec<f32>,
    /// Samples taken from `sample_script` so far.
    pub scripted_samples: usize,
    /// Every operation of every schedule run (`Gpu::run_schedule`), in order.
    pub enqueued: Vec<Op>,
    /// The host clock `Gpu::clock` reads: it advances by each sample's scripted time, the
    /// launches of a batch sample counted each.
    pub clock: Duration,
    /// L2 flushes done so far.
    pub l2_flushes: usize,
    /// Graphs captured for `Op::Graph` so far: one for each launch and count a schedule
    /// replays where the last capture was of another.
    pub graph_captures: usize,
    /// `Op::Graph` replays so far, warm-ups included.
    pub graph_replays: usize,
    /// What the graph captured last holds: the active kernel, the launch and its count.
    graph: Option<(usize, Launch, u32)>,
    /// Bandwidth the scripted device-to-device copy reaches, counting read and write.
    pub copy_gb_per_s: f64,
    /// What `--counters` reads on this device ([`MockCounters`]).
    pub counters: MockCounters,
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
    /// Kernels loaded through `Device::load`, in order, with their PTX parameter types.
    pub loaded: Vec<(KernelRef, Vec<String>)>,
    /// The CPU emulation of each kernel ([`MockGpu::emulate`]); a launch of a kernel without
    /// one fails with its name.
    pub emulations: Vec<(KernelRef, Emulation)>,
    /// The watchdog of its waits (a hang at `hang_at` is one).
    pub watchdog: Watchdog,
    /// Its clock and energy sensors ([`MockSensors`]); `None`: none, as a GPU without NVML.
    pub sensors: Option<MockSensors>,
    /// Whether it compares buffers itself (`Gpu::count_mismatches`), as the CUDA backend's
    /// comparison kernels do; `false`: a backend without them, whose rows are checked on the
    /// host.
    pub compares_on_device: bool,
    /// Copies back (`Gpu::download`) so far.
    pub downloads: usize,
    /// Comparisons on the device (`Gpu::count_mismatches`) so far, each with its element count.
    pub device_checks: Vec<usize>,
}

/// The H200's blocks/SM at each of the sweep's default block sizes
/// (`block_size.cu`'s 13) for a kernel asking 16 KiB of dynamic shared memory
/// a block (the histogram at 4096 bins): 16 KiB and the 1 KiB reserve leave room for 13 blocks
/// of its 228 KiB, fewer than warps allow up to 128 threads a block; from 160 threads on, warps
/// bind. The driver answered these on the H200 (evidence/2026-11-30-h200-histogram/).
pub const H200_BLOCKS_PER_SM_AT_16_KIB: [u32; 13] = [13, 13, 13, 13, 13, 13, 12, 10, 8, 5, 4, 2, 2];

impl MockGpu {
    /// As the driver: the graph of a schedule's [`Op::Graph`] captured before its first op, where
    /// the last captured is of another kernel, launch or count.
    fn capture_graph(&mut self, launch: &Launch, ops: &[Op]) {
        if let Some(&Op::Graph { launches }) = ops.iter().find(|op| matches!(op, Op::Graph { .. })) {
            let captured = (self.active, launch.clone(), launches);
            if self.graph.as_ref() != Some(&captured) {
                self.graph = Some(captured);
                self.graph_captures += 1;
            }
        }
    }

    /// The buffers `launch` zeroes before each launch, zeroed.
    fn zero_before_launch(&mut self, launch: &Launch) -> Result<()> {
        for &buffer in &launch.zero_before_each {
            self.memory.bytes_mut(buffer)?.fill(0);
        }
        Ok(())
    }

    /// What the script makes of a schedule before it runs: a failed launch, a lost context, a
    /// fault, a hang (until the watchdog), a signal after so many launches; and the delay.
    fn scripted_faults(&mut self, launch: &Launch, ops: &[Op]) -> Result<()> {
        let threads_per_block = launch.threads_per_block();
        let launches = ops.iter().any(launches_kernel);
        if self.fail_launch_at == Some(threads_per_block) && launches {
            bail!("launch failed: mock driver error at {threads_per_block} threads per block");
        }
        std::thread::sleep(self.delay);
        if self.context_lost {
            return Err(anyhow!(MockFault { context_lost: true })).context("a timed launch failed");
        }
        if let Some((at, fault)) = self.fault_at
            && at == threads_per_block
            && launches
        {
            self.context_lost = fault.context_lost;
            return Err(anyhow!(fault)).context("a timed launch failed");
        }
        if self.hang_at == Some(threads_per_block) && launches {
            self.watchdog.wait(|| {
                loop {
                    std::thread::sleep(Duration::from_millis(50));
                }
            });
        }
        if let Some((at, after, signal)) = self.signal_at
            && at == threads_per_block
        {
            let taken = self.launches.iter().filter(|(_, threads)| *threads == at).count();
            if taken >= after {
                crate::measure::supervision::interrupt::simulate(signal);
            }
        }
        Ok(())
    }

    /// Answers the occupancy queries for 16 KiB of dynamic shared memory a block as the H200's
    /// driver does ([`H200_BLOCKS_PER_SM_AT_16_KIB`]); other amounts get `blocks_per_sm`.
    pub fn answer_16_kib_as_the_h200(&mut self) {
        self.shared_memory_residency = crate::model::occupancy::DEFAULT_BLOCK_SIZES
            .into_iter()
            .zip(H200_BLOCKS_PER_SM_AT_16_KIB)
            .map(|(threads, blocks)| (threads, 16384, blocks))
            .collect();
    }

    /// A device shaped like the H200 measured for this project: 132 SMs, 64 warps/SM,
    /// 32 blocks/SM, 1024 threads per block, 228 KiB of shared memory an SM. Its residency is
    /// the occupancy model's for every block size and every amount of shared memory, as the
    /// driver's is (the model agrees with the H200's driver on every configuration measured);
    /// script `blocks_per_sm` or `shared_memory_residency` to answer otherwise.
    pub fn h200_like() -> Self {
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
                max_block_dimensions: MAX_BLOCK_DIMENSIONS,
                max_grid_dimensions: MAX_GRID_DIMENSIONS,
            },
            resources: KernelResources {
                registers_per_thread: 16,
                static_shared_memory: 0,
                local_bytes_per_thread: 0,
            },
            blocks_per_sm: Vec::new(),
            shared_memory_residency: Vec::new(),
            default_blocks_per_sm: 1,
            suggestion: Suggestion { threads_per_block: 1024, grid_blocks: 264 },
            milliseconds: Vec::new(),
            modelled_times: false,
            fail_launch_at: None,
            fault_at: None,
            context_lost: false,
            hang_at: None,
            signal_at: None,
            delay: Duration::ZERO,
            kernel_time_factors: Vec::new(),
            wrong_kernel: None,
            wrong_element: 0,
            active: 0,
            timed: Vec::new(),
            run_spread: 0.0,
            sample_script: Vec::new(),
            scripted_samples: 0,
            enqueued: Vec::new(),
            clock: Duration::ZERO,
            l2_flushes: 0,
            graph_captures: 0,
            graph_replays: 0,
            graph: None,
            copy_gb_per_s: 4000.0,
            counters: MockCounters::default(),
            compares_on_device: true,
            downloads: 0,
            device_checks: Vec::new(),
            memory: MockMemory::default(),
            launches: Vec::new(),
            last_launch: None,
            occupancy_queries: RefCell::default(),
            suggestion_queries: RefCell::default(),
            // An H200 has 141 GB; a little of it is the driver's.
            free_memory: 140_000_000_000,
            refuses: Vec::new(),
            loaded: Vec::new(),
            emulations: Vec::new(),
            watchdog: Watchdog::new(),
            sensors: None,
        }
    }

    /// Runs every launch of `kernel` (a kernel of your own, `crate::kernel`) through
    /// `emulation` on the mock's memory, as a registered kernel's launches run through its
    /// emulation: the CPU stand-in that lets a sweep of that
    /// kernel run in tests. Its `fault` argument is [`MockGpu::wrong_element`] when
    /// [`MockGpu::wrong_kernel`] is `kernel`.
    pub fn emulate(&mut self, kernel: KernelRef, emulation: Emulation) -> &mut Self {
        self.emulations.retain(|(known, _)| *known != kernel);
        self.emulations.push((kernel, emulation));
        self
    }

    /// [`MockGpu::h200_like`] with `kernels` loaded, the first one active.
    pub fn h200_with(kernels: &[KernelRef]) -> Self {
        let mut gpu = Self::h200_like();
        for kernel in kernels {
            gpu.load(kernel).expect("the mock loads every embedded kernel");
        }
        gpu
    }

    /// What the occupancy model answers for this device and kernel, as the driver would: any
    /// block size, not only the scripted ones.
    fn modelled_blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> u32 {
        let shared = self.resources.static_shared_memory + dynamic_shared_memory;
        crate::model::sm::SmModel::from_device(&self.limits).map_or(self.default_blocks_per_sm, |model| {
            model.occupancy(threads_per_block, self.resources.registers_per_thread, shared).blocks_per_sm
        })
    }

    fn scripted_ms(&self, launch: &Launch) -> f32 {
        let threads_per_block = launch.threads_per_block();
        let ms = if self.modelled_times {
            self.modelled_ms(launch)
        } else {
            self.milliseconds
                .iter()
                .find(|(threads, _)| *threads == threads_per_block)
                .map_or(1.0, |(_, ms)| *ms)
        };
        let active = self.loaded.get(self.active).map(|(kernel, _)| *kernel);
        let factor = self.kernel_time_factors.iter().find(|(kernel, _)| Some(*kernel) == active);
        ms * factor.map_or(1.0, |(_, factor)| *factor)
    }

    fn active_kernel(&self) -> Result<&(KernelRef, Vec<String>)> {
        self.loaded.get(self.active).ok_or_else(|| anyhow!("no kernel loaded"))
    }

    /// One "launch": recorded (with sensors, also on their timeline), and where `emulate`, the
    /// active kernel's CPU emulation over the mock's memory. A grid-stride loop of any grid
    /// covers every element, so the emulation computes them all.
    fn launch(&mut self, launch: &Launch, emulate: bool) -> Result<()> {
        let (kernel, params) = self.active_kernel()?;
        let kernel = *kernel;
        check_args(&kernel, params, &launch.args)?;
        self.launches.push((launch.grid_blocks(), launch.threads_per_block()));
        self.last_launch = Some(launch.clone());
        // On the sensors' timeline: the GPU busy for the launch's scripted time.
        let ms = self.scripted_ms(launch);
        if let Some(sensors) = &mut self.sensors {
            sensors.run(self.clock, ms, launch.threads_per_block());
        }
        if !emulate {
            return Ok(());
        }
        let emulation = self
            .emulations
            .iter()
            .find(|(known, _)| *known == kernel)
            .map(|(_, emulation)| *emulation)
            .with_context(|| {
                format!(
                    "no CPU emulation of the {} kernel `{}` (MockGpu::emulate registers one)",
                    kernel.module.label, kernel.entry
                )
            })?;
        let fault = (self.wrong_kernel == Some(kernel)).then_some(self.wrong_element);
        emulation(launch, &mut self.memory, fault)
    }

    /// A launch's time under [`MockGpu::modelled_times`]: the bytes of its buffers at
    /// `copy_gb_per_s`, slowed by the idle lanes of its last warp and by a partial last wave.
    /// Not a GPU's numbers, but numbers that move when the bytes, the block size or the grid
    /// do, as a table's should.
    fn modelled_ms(&self, launch: &Launch) -> f32 {
        let bytes: usize = launch
            .args
            .iter()
            .filter_map(|arg| match arg {
                KernelArg::Buffer(buffer, _) => self.memory.bytes(*buffer).ok().map(<[u8]>::len),
                _ => None,
            })
            .sum();
        let threads = launch.threads_per_block().max(1);
        let lane_use = f64::from(threads) / f64::from(threads.div_ceil(32) * 32);
        let per_wave = self
            .blocks_per_sm(threads, launch.dynamic_shared_memory)
            .unwrap_or(1)
            .max(1)
            .saturating_mul(self.limits.multiprocessors.max(1));
        let waves = f64::from(launch.grid_blocks().max(1)) / f64::from(per_wave);
        let wave_use = waves / waves.ceil();
        let seconds = bytes.max(1) as f64 / (self.copy_gb_per_s * 1e9 * lane_use * wave_use);
        (seconds * 1e3).max(1e-4) as f32
    }

    /// The `k`-th sample of a schedule: the scripted time (or the modelled one), times the next
    /// factor of `sample_script`, or with `run_spread` (1 + spread x (k mod 3 - 1)).
    fn sample_ms(&mut self, launch: &Launch, k: usize) -> f32 {
        let base = self.scripted_ms(launch);
        if self.sample_script.is_empty() {
            return base * (1.0 + self.run_spread * ((k % 3) as f32 - 1.0));
        }
        let factor = self.sample_script[self.scripted_samples % self.sample_script.len()];
        self.scripted_samples += 1;
        base * factor
    }

    /// Which launches of `ops` the emulation must run for the memory to end as the device's
    /// would: a kernel that overwrites its outputs ends the same after one launch or many, so
    /// the last launch alone; one that adds to outputs zeroed before it (`zero_before_each`),
    /// every launch after the last [`Op::Zero`]. An [`Op::Graph`] is its launches: where it
    /// is emulated, all of them for a kernel that adds, the last alone for one that overwrites.
    fn emulated(ops: &[Op], accumulates: bool) -> Vec<bool> {
        let last_launch = ops.iter().rposition(launches_kernel);
        let last_zero = ops.iter().rposition(|op| *op == Op::Zero);
        (0..ops.len())
            .map(|index| {
                launches_kernel(&ops[index])
                    && if accumulates {
                        last_zero.is_none_or(|zero| index > zero)
                    } else {
                        Some(index) == last_launch
                    }
            })
            .collect()
    }
}

/// Whether `op` launches the kernel: [`Op::Launch`], or the launches of an [`Op::Graph`].
fn launches_kernel(op: &Op) -> bool {
    matches!(op, Op::Launch | Op::Graph { .. })
}

impl Device for MockGpu {
    fn uuid(&self) -> Option<String> {
        Some(format!("GPU-mock-{}", self.limits.ordinal))
    }

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
    /// Its devices by ordinal; each `open` hands out a copy.
    pub devices: Vec<MockGpu>,
}

impl MockDriver {
    /// One H200-like device on a CUDA 13.0 driver.
    pub fn h200() -> Self {
        Self { cuda_version: 13000, devices: vec![MockGpu::h200_like()] }
    }
}

/// What `--counters` reads on a mock device: scripted readings, or none and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MockCounters {
    /// Why there are none (a missing profiler's line); `None`: there are.
    pub unavailable: Option<String>,
    /// The readings at these block sizes; at any other, [`MockCounters::at`]'s.
    pub by_threads: Vec<(u32, Counters)>,
    /// Read them as the CUDA driver does instead: Nsight Compute over a replay of this program
    /// (an `ncu` that `BLOCK_SIZE_NCU` names, a stand-in in the tests), so that the replay's
    /// whole protocol runs without a GPU.
    pub through_ncu: bool,
}

impl MockCounters {
    /// The readings of a row of `threads` threads on a device whose copy reaches
    /// `copy_gb_per_s`: DRAM at 90 percent of the copy from 128 threads (50 at 64, 25 below),
    /// achieved occupancy 90 percent from 128 threads (20 below), the warp's lanes busy as
    /// the block's last warp leaves them, uniform branches, no bank conflicts, and memory
    /// stalls over barrier stalls.
    pub fn at(&self, threads: u32, copy_gb_per_s: f64) -> Counters {
        if let Some((_, counters)) = self.by_threads.iter().find(|(at, _)| *at == threads) {
            return *counters;
        }
        let fraction = match threads {
            128.. => 0.9,
            64..=127 => 0.5,
            _ => 0.25,
        };
        let warps = threads.div_ceil(32).max(1);
        Counters {
            dram_bytes_per_second: Some(fraction * copy_gb_per_s * 1e9),
            achieved_occupancy_percent: Some(if threads >= 128 { 90.0 } else { 20.0 }),
            warp_efficiency_percent: Some(f64::from(threads) / f64::from(warps * 32) * 100.0),
            branch_efficiency_percent: Some(100.0),
            l2_hit_percent: Some(10.0),
            shared_bank_conflicts: Some(0.0),
            barrier_stalls_per_issue: Some(0.1),
            memory_stalls_per_issue: Some(5.0),
        }
    }
}

/// The mock driver's counters: each asked row's [`MockCounters::at`] on the asked device.
struct MockCounterSource {
    devices: Vec<(MockCounters, f64)>,
}

impl CounterSource for MockCounterSource {
    fn read(&self, request: &CounterRequest) -> Result<CounterReading, String> {
        let (counters, copy) = self
            .devices
            .get(request.device as usize)
            .ok_or_else(|| format!("no mock device {}", request.device))?;
        if counters.through_ncu {
            return crate::measure::profiler::ncu::Ncu::for_this_program().read(request);
        }
        if let Some(why) = &counters.unavailable {
            return Err(why.clone());
        }
        Ok(CounterReading {
            profiler: "the mock's scripted counters".to_string(),
            rows: request.rows.iter().map(|row| Some(counters.at(row.block.threads(), *copy))).collect(),
        })
    }
}

impl DeviceSource for MockDriver {
    type Device = MockGpu;

    fn counter_source(&self) -> Box<dyn CounterSource> {
        Box::new(MockCounterSource {
            devices: self
                .devices
                .iter()
                .map(|device| (device.counters.clone(), device.copy_gb_per_s))
                .collect(),
        })
    }

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
        device.graph = None;
        Ok(device)
    }

    fn model(&self, ordinal: u32) -> Result<(String, (u32, u32))> {
        let device =
            self.devices.get(ordinal as usize).ok_or_else(|| anyhow!("there is no CUDA device {ordinal}"))?;
        Ok((device.limits.name.clone(), device.limits.compute_capability))
    }
}

impl Gpu for MockGpu {
    fn launch_fault(&self, error: &anyhow::Error) -> Option<crate::measure::gpu::backend::LaunchFault> {
        let fault = error.chain().find_map(|cause| cause.downcast_ref::<MockFault>())?;
        Some(crate::measure::gpu::backend::LaunchFault { context_lost: fault.context_lost })
    }

    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn watchdog(&self) -> &Watchdog {
        &self.watchdog
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

    /// The driver's folding of the selected kernel's `.maxntid` and `.reqntid` into the device's
    /// maximum, from its PTX.
    fn max_threads_per_block(&self) -> Result<u32> {
        let device = self.limits.max_threads_per_block;
        Ok(self.loaded.get(self.active).map_or(device, |(kernel, _)| {
            crate::model::launch_bounds::LaunchBounds::driver_max(kernel.module.ptx, kernel.entry, device)
        }))
    }

    fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> Result<u32> {
        self.occupancy_queries.borrow_mut().push((threads_per_block, dynamic_shared_memory));
        let scripted = self
            .shared_memory_residency
            .iter()
            .find(|&&(threads, shared, _)| threads == threads_per_block && shared == dynamic_shared_memory)
            .map(|&(_, _, blocks)| blocks);
        Ok(scripted.unwrap_or_else(|| {
            self.blocks_per_sm.iter().find(|(threads, _)| *threads == threads_per_block).map_or_else(
                || self.modelled_blocks_per_sm(threads_per_block, dynamic_shared_memory),
                |(_, blocks)| *blocks,
            )
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
        self.downloads += 1;
        let source = self.memory.bytes(buffer)?;
        let end = byte_offset.checked_add(out.len()).filter(|&end| end <= source.len());
        let end = end.ok_or_else(|| anyhow!("{} bytes at {byte_offset} are past the buffer", out.len()))?;
        out.copy_from_slice(&source[byte_offset..end]);
        Ok(())
    }

    fn copy(&mut self, from: (BufferId, usize), to: (BufferId, usize), bytes: usize) -> Result<()> {
        let source = self.memory.bytes(from.0)?.get(from.1..).and_then(|rest| rest.get(..bytes));
        let source =
            source.ok_or_else(|| anyhow!("{bytes} bytes at {} are past the buffer", from.1))?.to_vec();
        self.upload(to.0, to.1, &source)
    }

    fn count_mismatches(
        &mut self,
        got: (BufferId, usize),
        expected: (BufferId, usize),
        count: usize,
        comparison: crate::model::comparison::ElementComparison,
    ) -> Result<Option<crate::model::comparison::Mismatches>> {
        if !self.compares_on_device {
            return Ok(None);
        }
        if self.context_lost {
            bail!("{}", MockFault { context_lost: true });
        }
        ensure!(comparison.entry().is_some(), "no comparison kernel for {comparison:?}");
        let bytes = count * comparison.element_size();
        let range = |(buffer, offset): (BufferId, usize)| -> Result<Vec<u8>> {
            let bytes_there = self.memory.bytes(buffer)?.get(offset..).and_then(|rest| rest.get(..bytes));
            Ok(bytes_there
                .ok_or_else(|| anyhow!("{bytes} bytes at {offset} are past buffer {}", buffer.0))?
                .to_vec())
        };
        let (got, expected) = (range(got)?, range(expected)?);
        self.device_checks.push(count);
        Ok(Some(comparison.count_on_host(&got, &expected, count)))
    }

    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        // A scripted ceiling: `copy_gb_per_s` for every run.
        let milliseconds = bytes as f64 * 2.0 / (self.copy_gb_per_s * 1e9) * 1e3;
        Ok(vec![milliseconds as f32; timing.runs as usize])
    }

    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        let kernel = self.active_kernel()?.0;
        self.timed.push((kernel, launch.threads_per_block()));
        let zero = !launch.zero_before_each.is_empty();
        let ops = crate::measure::sampling::timing::schedule(&Timing::launch(0, 1), 0, 1, zero);
        Ok(self.run_schedule(launch, &ops)?[0])
    }

    /// Runs `ops` as a stream would, checking their order as the driver could not: a sample
    /// read before its events are recorded and synchronised, a release without a blocking
    /// kernel, a synchronisation while the stream is still held (which on a GPU waits for the
    /// blocking kernel's timeout) are errors.
    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>> {
        self.scripted_faults(launch, ops)?;
        self.capture_graph(launch, ops);
        let accumulates = !launch.zero_before_each.is_empty();
        let emulated = Self::emulated(ops, accumulates);
        let (mut recorded, mut unsynchronised) = (HashSet::new(), HashSet::new());
        let mut blocked = false;
        let mut samples = Vec::new();
        for (index, &op) in ops.iter().enumerate() {
            self.enqueued.push(op);
            match op {
                Op::Zero => self.zero_before_launch(launch)?,
                Op::FlushL2 => self.l2_flushes += 1,
                Op::Record(event) => {
                    recorded.insert(event);
                    unsynchronised.insert(event);
                    if let Some(sensors) = &mut self.sensors {
                        sensors.record(event);
                    }
                }
                Op::Launch => self.launch(launch, emulated[index])?,
                Op::WaitFor(event) => {
                    // An event of an earlier schedule of the same row: the energy window's.
                    let reached = self.sensors.as_ref().and_then(|sensors| sensors.reached(event));
                    ensure!(
                        recorded.contains(&event) || reached.is_some(),
                        "op {index}: waiting for event {event}, never recorded"
                    );
                    self.clock = self.clock.max(reached.unwrap_or_default());
                }
                Op::Graph { launches } => {
                    let captured = self.graph.as_ref().is_some_and(|(active, graphed, count)| {
                        (*active, graphed, *count) == (self.active, launch, launches)
                    });
                    ensure!(captured, "op {index}: a graph of {launches} launches was never captured");
                    self.graph_replays += 1;
                    for nth in 1..=launches {
                        self.launch(launch, emulated[index] && (accumulates || nth == launches))?;
                    }
                }
                Op::Block => {
                    ensure!(!blocked, "op {index}: a second blocking kernel before the first is released");
                    blocked = true;
                }
                Op::Release => {
                    ensure!(blocked, "op {index}: a release with no blocking kernel");
                    blocked = false;
                }
                Op::Synchronize => {
                    ensure!(!blocked, "op {index}: synchronising a stream the host has not released");
                    unsynchronised.clear();
                    // With sensors the GPU's timeline is the clock's: the host waits for it.
                    if let Some(sensors) = &self.sensors {
                        self.clock = self.clock.max(sensors.free_at);
                    }
                }
                Op::Sample { start, stop, launches } => {
                    for event in [start, stop] {
                        ensure!(recorded.contains(&event), "op {index}: event {event} was never recorded");
                        ensure!(
                            !unsynchronised.contains(&event),
                            "op {index}: event {event} read before a synchronize"
                        );
                    }
                    let ms = self.sample_ms(launch, samples.len());
                    if self.sensors.is_none() {
                        self.clock +=
                            Duration::from_secs_f64(f64::from(ms) * f64::from(launches.max(1)) / 1e3);
                    }
                    samples.push(ms);
                }
            }
        }
        ensure!(!blocked, "the schedule ends with the stream still held");
        Ok(samples)
    }

    fn clock(&self) -> Duration {
        self.clock
    }

    fn sensors(&mut self) -> Result<&mut dyn Sensors, String> {
        match self.sensors {
            Some(_) => Ok(self),
            None => Err("the mock GPU has no sensors".into()),
        }
    }
}

impl Sensors for MockGpu {
    fn clock(&mut self) -> Result<ClockReading> {
        self.sensors.as_mut().context("no sensors")?.clock_reading()
    }

    fn energy_mj(&mut self) -> Result<u64> {
        let sensors = self.sensors.as_mut().context("no sensors")?;
        self.clock += sensors.read_cost;
        Ok(sensors.counter_mj(self.clock))
    }

    fn default_sm_mhz(&self) -> u32 {
        self.sensors.as_ref().map_or(0, |sensors| sensors.default_sm_mhz)
    }
}

#[cfg(test)]
mod thread_tests {
    use super::*;
    use crate::model::block_shape::{BlockShape, GridShape};

    #[test]
    fn every_thread_of_a_launch_is_there_once_in_warp_order() {
        let launch = Launch {
            grid: GridShape { x: 3, y: 2, z: 1 },
            block: BlockShape { x: 4, y: 2, z: 2 },
            dynamic_shared_memory: 0,
            args: Vec::new(),
            zero_before_each: Vec::new(),
        };
        let all: Vec<Thread> = threads(&launch).collect();
        assert_eq!(all.len(), 3 * 2 * 16);
        assert_eq!(all[0], Thread { block_idx: [0, 0, 0], thread_idx: [0, 0, 0] });
        assert_eq!(all[1].thread_idx, [1, 0, 0], "x fastest within a block");
        assert_eq!(all[4].thread_idx, [0, 1, 0]);
        assert_eq!(all[16].block_idx, [1, 0, 0], "then the next block in x");
        assert_eq!(all[3 * 16].block_idx, [0, 1, 0]);
        let mut globals: Vec<[u64; 3]> = all.iter().map(|thread| thread.global(&launch)).collect();
        globals.sort_unstable();
        globals.dedup();
        assert_eq!(globals.len(), all.len(), "each thread has its own global index");
        assert_eq!(all.last().unwrap().global(&launch), [11, 3, 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_h200_like_mock_answers_residency_as_the_h200s_driver_did() {
        let gpu = MockGpu::h200_like();
        // block_size.cu's block sizes with no shared memory (evidence/2026-11-30-h200/): warps
        // and the 32-block limit bind.
        let sizes = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];
        let driver = [32, 32, 32, 21, 16, 16, 12, 10, 8, 5, 4, 2, 2];
        let answered: Vec<u32> =
            sizes.iter().map(|&threads| gpu.blocks_per_sm(threads, 0).unwrap()).collect();
        assert_eq!(answered, driver);
        // 16 KiB a block (the histogram at 4096 bins, evidence/2026-11-30-h200-histogram/) and
        // 32 KiB (its per-lane copies, evidence/2026-11-30-h200-variants/): shared memory binds.
        let at_16_kib: Vec<u32> =
            sizes.iter().map(|&threads| gpu.blocks_per_sm(threads, 16384).unwrap()).collect();
        assert_eq!(at_16_kib, H200_BLOCKS_PER_SM_AT_16_KIB);
        assert_eq!(gpu.blocks_per_sm(256, 32768).unwrap(), 6);
        // A block size and an amount no table lists: the model answers it too (200 threads are
        // 7 warps, and 64 warps an SM hold 9 such blocks; 5000 B and the reserve hold 38).
        assert_eq!(gpu.blocks_per_sm(200, 5000).unwrap(), 9);
    }
}
