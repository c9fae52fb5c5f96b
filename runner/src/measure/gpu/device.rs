/*!
What every subcommand that measures a GPU does around its measurement: open the device, load
the modules this driver can load ([`compat`]), check the request against the device (block
sizes, dynamic shared memory, free device memory, available host memory: each a pure function
of the device's numbers), build the workload, and gather the run's provenance ([`Facts`]).
A run ends with an exit status ([`exit`]) or a [`Error`], printed on a `Console`.
*/

use crate::error::{Error, exit, failed, shown};
use crate::measure::gpu::backend::{Device, Driver, Gpu, LoadError, OpenError};
use crate::measure::gpu::compat::{self, Unloadable};
use crate::measure::gpu::ptx;
use crate::measure::record::provenance::{self, Environment, Provenance};
use crate::model::frame_size::mib;
use crate::model::limits::{DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits};
use crate::model::ptx_facts::PtxFacts;
use std::ffi::OsString;

/// Memory a run needs before anything is allocated: checked against the device's free memory
/// and the host's available memory, so a run too large for either is bad input (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footprint {
    /// What needs the memory, in the messages: "a 3840 x 2160 frame", "the kernel".
    pub subject: String,
    /// Device bytes of the workload's buffers; `None` where the count overflows 64 bits.
    pub device_bytes: Option<u64>,
    /// What they are, for the message: "its buffers (x, y)".
    pub device_what: String,
    /// Host bytes of its inputs and read-back; `None` where the count overflows.
    pub host_bytes: Option<u64>,
    /// What they are, for the message.
    pub host_what: String,
}

/// A device with the kernels this driver could load.
pub(crate) struct Opened<G> {
    /// The open device.
    pub gpu: G,
    /// The kernels asked for that loaded, in the order asked.
    pub loaded: Vec<ptx::KernelRef>,
    /// The modules the driver cannot load, each once.
    pub left_out: Vec<Unloadable>,
}

/// Opens device `ordinal` and loads each of `kernels` whose module passes
/// [`compat::check`] and the driver accepts.
pub(crate) fn open_loading<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernels: &[ptx::KernelRef],
) -> Result<Opened<D::Device>, Error> {
    let mut gpu = driver.open(ordinal).map_err(open_stop)?;
    let version = driver.cuda_version();
    let mut loaded = Vec::new();
    let mut left_out: Vec<Unloadable> = Vec::new();
    for kernel in kernels {
        if left_out.iter().any(|unloadable| unloadable.module == kernel.module) {
            continue;
        }
        if let Err(unloadable) = compat::check(kernel.module, version) {
            left_out.push(unloadable);
            continue;
        }
        match gpu.load(kernel) {
            Ok(()) => loaded.push(*kernel),
            Err(LoadError::Refused(refusal)) => {
                left_out.push(Unloadable::refused(kernel.module, version, refusal));
            }
            Err(LoadError::Setup(error)) => return Err(failed(error)),
        }
    }
    Ok(Opened { gpu, loaded, left_out })
}

/// The error of a command none of whose modules this driver can load (each was named on
/// standard error before): exit 3.
pub(crate) fn none_loadable(cuda_version: i32) -> Error {
    Error::new(
        exit::NO_DEVICE,
        format!(
            "this driver (CUDA {}) can load none of the modules this command measures: each is named above",
            compat::driver_version_text(cuda_version)
        ),
    )
}

/// Checks the request against the open device: every block size launchable with the
/// kernel's dynamic shared memory (`shared`), its buffers (`footprint`) and `scratch` more
/// within free device memory, its host data within available host memory. The footprint names
/// what needs the memory in the messages ("a 3840 x 2160 frame", "the kernel").
pub(crate) fn check_request(
    gpu: &dyn Device,
    block_sizes: &[u32],
    shared: &dyn Fn(u32) -> u32,
    footprint: &Footprint,
    scratch: u64,
) -> Result<(), Error> {
    let usage = |message| Error::new(exit::USAGE, message);
    check_block_size_limits(block_sizes, gpu.limits()).map_err(usage)?;
    check_dynamic_shared_memory(block_sizes, shared).map_err(usage)?;
    let free = gpu.free_memory().map_err(failed)?;
    check_frame_fits(footprint, scratch, free).map_err(usage)?;
    check_host_memory(footprint, host_memory_available()).map_err(usage)?;
    Ok(())
}

/// The command line a run's provenance records: this process's.
pub(crate) fn command_line() -> Vec<OsString> {
    std::env::args_os().collect()
}

/// `args` as one line of text, separated by spaces, as a run's provenance records its command.
pub(crate) fn joined(args: &[OsString]) -> String {
    args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
}

/// What a run's provenance is made of: the driver, the modules of the loaded kernels (one per
/// module) with their registers, the command line and the date.
pub(crate) struct Facts {
    /// The driver and the loaded modules.
    pub environment: Environment,
    /// The command line, as one string.
    pub command: String,
    /// When the run started (RFC 3339, UTC).
    pub date: String,
}

impl Facts {
    /// Gathers the facts of a run of `kernels`, all loaded; the first of them is active
    /// afterwards.
    pub fn gather(
        gpu: &mut dyn Gpu,
        cuda_version: i32,
        kernels: &[ptx::KernelRef],
        args: &[OsString],
    ) -> anyhow::Result<Self> {
        let mut loaded = Vec::new();
        for &kernel in kernels {
            gpu.select_kernel(kernel)?;
            loaded.push((kernel.module, gpu.kernel_resources().ok().map(|r| r.registers_per_thread)));
        }
        if let Some(&first) = kernels.first() {
            gpu.select_kernel(first)?;
        }
        let environment = Environment {
            driver_release: provenance::driver_release(),
            driver_api_version: cuda_version,
            modules: loaded,
            ptx_facts: kernels.first().and_then(|kernel| PtxFacts::of(kernel.module.ptx, kernel.entry)),
        };
        let date = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        Ok(Self { environment, command: joined(args), date })
    }

    /// The `--provenance` lines: one per module.
    pub fn lines(&self, limits: &DeviceLimits) -> String {
        provenance::lines(limits, &self.environment, &self.command, &self.date)
    }

    /// The same for the JSON export.
    pub fn provenance(&self, limits: &DeviceLimits) -> Provenance {
        Provenance::new(limits, &self.environment, &self.command, &self.date)
    }
}

fn open_stop(error: OpenError) -> Error {
    match error {
        OpenError::NoDevice(error) => Error::new(exit::NO_DEVICE, format!("{error:#}")),
        OpenError::Setup(error) => failed(error),
    }
}

/// Host memory available to a new allocation: `MemAvailable` of `/proc/meminfo`, where
/// this system has it.
pub fn host_memory_available() -> Option<u64> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// The `MemAvailable:` line of a `/proc/meminfo` text, in bytes.
pub fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|line| line.strip_prefix("MemAvailable:"))?;
    let mut words = line.split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// Every block size must be launchable on this device.
pub(crate) fn check_block_size_limits(block_sizes: &[u32], limits: &DeviceLimits) -> Result<(), String> {
    match block_sizes.iter().find(|&&size| size > limits.max_threads_per_block) {
        Some(size) => Err(format!(
            "block size {size} is above {}'s limit of {} threads per block",
            shown(&limits.name),
            limits.max_threads_per_block
        )),
        None => Ok(()),
    }
}

/// A block's dynamic shared memory must be within the 48 KiB every CUDA device gives a block
/// without the `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` opt-in, which this program
/// does not set. No kernel here asks for more (4096 bins are 16 KiB); a new one that does must
/// opt in first.
pub(crate) fn check_dynamic_shared_memory(
    block_sizes: &[u32],
    shared: &dyn Fn(u32) -> u32,
) -> Result<(), String> {
    match block_sizes
        .iter()
        .map(|&size| (size, shared(size)))
        .find(|&(_, bytes)| bytes > DEFAULT_SHARED_MEMORY_LIMIT)
    {
        Some((size, bytes)) => Err(format!(
            "at {size} threads per block the kernel needs {bytes} B of dynamic shared memory per block, \
             above the {DEFAULT_SHARED_MEMORY_LIMIT} B a block gets without opting in"
        )),
        None => Ok(()),
    }
}

/// The workload's device buffers, and `scratch_bytes` more (the L2 flush buffer), must fit in
/// the device memory that is free now. Byte counts are checked: a frame whose count overflows
/// 64 bits (1073741824 x 1073741824 pixels and up, for grayscale) is too large, not 0 bytes.
pub(crate) fn check_frame_fits(
    footprint: &Footprint,
    scratch_bytes: u64,
    free_bytes: u64,
) -> Result<(), String> {
    let (subject, what) = (&footprint.subject, &footprint.device_what);
    let Some(needed) = footprint.device_bytes.and_then(|bytes| bytes.checked_add(scratch_bytes)) else {
        return Err(format!(
            "{subject} needs more than 16 EiB of device memory for {what}; no device has that"
        ));
    };
    if needed > free_bytes {
        return Err(format!(
            "{subject} needs {:.1} MiB of device memory for {what} (and any L2 flush buffer), but only {:.1} MiB is free",
            mib(needed as f64),
            mib(free_bytes as f64)
        ));
    }
    Ok(())
}

/// The workload's host data (for grayscale: the frame's three planes, its CPU reference and
/// the output read back) must fit in the host memory available now (`MemAvailable`; `None`
/// where the system does not say, and then only the allocations themselves can tell).
pub(crate) fn check_host_memory(footprint: &Footprint, available_bytes: Option<u64>) -> Result<(), String> {
    let subject = &footprint.subject;
    let Some(needed) = footprint.host_bytes else {
        return Err(format!("{subject} needs more than 16 EiB of host memory; no machine has that"));
    };
    match available_bytes {
        Some(available) if needed > available => Err(format!(
            "{subject} needs {:.1} MiB of host memory ({}), but only {:.1} MiB is available",
            mib(needed as f64),
            footprint.host_what,
            mib(available as f64)
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::mock::MockGpu;
    use crate::model::frame_size::FrameSize;

    /// A frame of four float planes on the device and five on the host, as the grayscale
    /// kernel's was counted.
    fn grayscale_footprint(width: u32, height: u32) -> Footprint {
        let frame = FrameSize::new(width, height);
        Footprint {
            subject: format!("a {frame} frame"),
            device_bytes: frame.pixels().checked_mul(16),
            device_what: "its four planes".into(),
            host_bytes: frame.pixels().checked_mul(20),
            host_what: "three input planes, the CPU reference and the output read back".into(),
        }
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let meminfo = "MemTotal:       131072000 kB\nMemFree:         1000 kB\nMemAvailable:   65536000 kB\n";
        assert_eq!(parse_mem_available(meminfo), Some(65_536_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn block_sizes_above_the_device_limit_are_rejected() {
        let limits = MockGpu::h200_like().limits;
        assert_eq!(check_block_size_limits(&[1, 1024], &limits), Ok(()));
        assert_eq!(
            check_block_size_limits(&[256, 1025], &limits).unwrap_err(),
            "block size 1025 is above Mock H200's limit of 1024 threads per block"
        );
        let odd = DeviceLimits { name: "Fake\nGPU".into(), ..limits };
        assert_eq!(
            check_block_size_limits(&[1025], &odd).unwrap_err(),
            "block size 1025 is above \"Fake\\nGPU\"'s limit of 1024 threads per block"
        );
    }

    #[test]
    fn frame_must_fit_in_free_memory() {
        let footprint = grayscale_footprint(3840, 2160);
        assert_eq!(check_frame_fits(&footprint, 0, 132_710_400), Ok(()));
        assert_eq!(
            check_frame_fits(&footprint, 0, 132_710_399).unwrap_err(),
            "a 3840 x 2160 frame needs 126.6 MiB of device memory for its four planes (and any L2 flush buffer), \
             but only 126.6 MiB is free"
        );
        assert!(check_frame_fits(&footprint, 1, 132_710_400).is_err(), "the flush buffer counts");
    }

    #[test]
    fn a_frame_whose_byte_count_overflows_is_too_large_not_empty() {
        // 2^30 x 2^30 pixels x 16 bytes = 2^64 bytes, which wrapped to 0 and fitted anywhere.
        let message = "a 1073741824 x 1073741824 frame needs more than 16 EiB of device memory for its four planes; \
                       no device has that";
        let fits =
            |width, height, scratch| check_frame_fits(&grayscale_footprint(width, height), scratch, u64::MAX);
        assert_eq!(fits(1 << 30, 1 << 30, 0).unwrap_err(), message);
        assert!(fits(u32::MAX, u32::MAX, 0).unwrap_err().contains("more than 16 EiB"));
        // Just below the overflow, the flush buffer's bytes are added with a check too.
        assert!(fits(1 << 30, (1 << 30) - 1, u64::MAX).is_err());
        let footprint = grayscale_footprint(u32::MAX, u32::MAX);
        assert!(check_host_memory(&footprint, None).unwrap_err().contains("16 EiB of host memory"));
    }

    #[test]
    fn the_frame_must_fit_in_available_host_memory() {
        // 4K: 20 bytes a pixel, 158.2 MiB.
        let footprint = grayscale_footprint(3840, 2160);
        assert_eq!(check_host_memory(&footprint, Some(165_888_000)), Ok(()));
        assert_eq!(check_host_memory(&footprint, None), Ok(()), "unknown: the allocations decide");
        assert_eq!(
            check_host_memory(&footprint, Some(100 << 20)).unwrap_err(),
            "a 3840 x 2160 frame needs 158.2 MiB of host memory (three input planes, the CPU reference and the \
             output read back), but only 100.0 MiB is available"
        );
    }

    #[test]
    fn dynamic_shared_memory_above_48_kib_is_rejected() {
        assert_eq!(check_dynamic_shared_memory(&[64, 1024], &|_| 16 * 1024), Ok(()));
        assert_eq!(check_dynamic_shared_memory(&[64], &|_| 48 * 1024), Ok(()));
        assert_eq!(
            check_dynamic_shared_memory(&[64, 1024], &|threads| threads * 64).unwrap_err(),
            "at 1024 threads per block the kernel needs 65536 B of dynamic shared memory per block, \
             above the 49152 B a block gets without opting in"
        );
    }
}
