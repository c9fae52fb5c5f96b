/*!
One engine for any kernel: what the sweep, `compare`, `tail` and the checks need to know about
the kernel they measure, behind [`Workload`], and the table of kernels by name, [`KERNELS`].

A workload allocates its device buffers from host data ([`Workload::upload`]), says how the
active kernel is launched at a grid and block size ([`Workload::launch`]: its argument list,
its dynamic shared memory per block size, the buffers zeroed before each launch), checks what
the device computed against its CPU reference ([`Workload::check`]), and says what one pass
moves ([`Pass`], for GB/s). The engine (`search::sweep`, `commands::compare::engine`, `commands::tail::engine`)
knows nothing else of it; the mock backend (`mock::MockGpu`) runs its launches through the CPU
emulation its [`KernelSpec`] registers, so the whole pipeline runs in CPU tests for every
kernel.

A new kernel is one module in `kernels/` (its `#[kernel]`), one module here (its workload and
[`KernelSpec`]) and one line in [`KERNELS`].
*/

pub mod grayscale;
pub mod histogram;

use crate::measure::backend::{EmulatedMemory, Gpu, Launch};
use crate::measure::ptx::{EmbeddedPtx, KernelRef};
use crate::model::frame_size::{self, FrameSize, mib};
use anyhow::{Context as _, Result};
use serde::Serialize;

/// Every kernel `--kernel` offers, the default first.
pub const KERNELS: &[&KernelSpec] = &[
    &grayscale::KERNEL,
    &histogram::KERNEL,
    &histogram::KERNEL_X4,
    &histogram::KERNEL_X8,
    &histogram::KERNEL_X8K2,
    &histogram::KERNEL_X8K4,
    &histogram::KERNEL_X8K2C,
    &histogram::KERNEL_X8K4C,
];

/// The kernel `--kernel` names, if any.
pub fn spec(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().copied().find(|spec| spec.name == name)
}

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// The kernel whose workload launches entry point `entry` (its own, or a variant of it).
pub fn spec_of_entry(entry: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().copied().find(|spec| spec.entries.contains(&entry))
}

/// What a run was asked to build its workload from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// The frame measured over.
    pub frame: FrameSize,
    /// Histogram bins (the histogram's `--bins`).
    pub bins: u32,
    /// Elements every buffer starts past an aligned address (`variants --offset`).
    pub offset: usize,
}

impl Params {
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    /// A frame of `width` x `height` pixels with every other parameter at its default.
    pub fn frame(width: u32, height: u32) -> Self {
        Self { frame: FrameSize::new(width, height), bins: histogram::DEFAULT_BINS, offset: 0 }
    }
}

/// Memory a run needs before anything is allocated: checked against the device's free memory
/// and the host's available memory, so a run too large for either is bad input (exit 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Device bytes of the workload's buffers; `None` where the count overflows 64 bits.
    pub device_bytes: Option<u64>,
    /// What they are, for the message: "its four planes".
    pub device_what: &'static str,
    /// Host bytes of its inputs, reference and read-back; `None` where the count overflows.
    pub host_bytes: Option<u64>,
    /// What they are, for the message.
    pub host_what: &'static str,
}

/// What one pass of a kernel is, as the reports describe it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pass {
    /// The kernel's name (`--kernel`).
    pub kernel: &'static str,
    /// The frame a pass covers.
    #[serde(skip)]
    pub frame: FrameSize,
    /// Bytes one pass moves, as every GB/s column counts them.
    pub bytes_per_pass: f64,
    /// What those bytes are: "moved per pass" (grayscale: three planes read, one written).
    pub bytes_counted: &'static str,
    /// A line on the kernel's parameters, where it has any (the histogram's bins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What a pass covers where it is not a frame of pixels (a user kernel's vector): the
    /// reports then count these items instead, and [`Pass::frame`] is not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Items>,
}

/// A count of the items a pass covers, and what they are called ("values").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Items {
    /// How many.
    pub count: u64,
    /// Their name in the plural, for the header: "values", "particles".
    pub noun: &'static str,
}

impl Pass {
    /// The bytes one pass moves over `milliseconds`, in GB/s.
    pub fn gigabytes_per_second(&self, milliseconds: f64) -> f64 {
        frame_size::gigabytes_per_second(self.bytes_per_pass, milliseconds)
    }

    /// Items a pass covers, which the grid policies size grids by: [`Pass::items`]' count, or
    /// the frame's pixels.
    pub fn item_count(&self) -> u64 {
        self.items.map_or_else(|| self.frame.pixels(), |items| items.count)
    }

    /// What a pass covers, in words: "3840 x 2160 frame", or "1048576 values".
    pub fn extent(&self) -> String {
        match self.items {
            Some(items) => format!("{} {}", items.count, items.noun),
            None => format!("{} frame", self.frame),
        }
    }
}

/// Where the device computed something other than the CPU reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Mismatch {
    /// The first wrong output element (pixel, bin), where one is wrong.
    pub index: Option<usize>,
    /// What is wrong: "pixel 40960 is -1, the CPU reference says 0.5".
    pub description: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description)
    }
}

/// The CPU emulation of a kernel, for the mock backend (`mock::MockGpu`): runs `launch` over
/// `memory` as the kernel would. With `fault`, output element `fault` comes out wrong (a
/// pixel of a wrong value, a bin counted once too often), so tests can show the checks
/// catching a wrong kernel.
pub type Emulation = fn(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()>;

/// A kernel the runner can measure: its name, entry point, modules, and what its workload
/// needs before it exists (memory, validation, header).
#[derive(Debug)]
pub struct KernelSpec {
    /// What `--kernel` takes.
    pub name: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// The entry point the sweep, `compare` and `tail` launch.
    pub entry: &'static str,
    /// Every entry point [`KernelSpec::emulate`] stands in for (the entry and its variants).
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    pub entries: &'static [&'static str],
    /// The modules `compare` measures side by side, the sweep's (cuda_builder) first.
    pub modules: &'static [EmbeddedPtx],
    /// The module `compare` divides by: the CUDA C++ twin.
    pub baseline: EmbeddedPtx,
    /// The kernel-specific options this kernel reads (`bins`): any other one given is an error.
    pub options: &'static [&'static str],
    /// Checks `params` for this kernel, before any device is opened; the message is one line.
    pub validate: fn(&Params) -> Result<(), String>,
    /// Output elements, and how to say their count: (91, "91-pixel frame").
    pub outputs: fn(&Params) -> (u64, String),
    /// Device and host memory a run of `params` needs.
    pub footprint: fn(&Params) -> Footprint,
    /// Bytes of dynamic shared memory a block of the given size needs.
    pub dynamic_shared_memory: fn(&Params, u32) -> u32,
    /// What one pass of `params` is.
    pub pass: fn(&Params) -> Pass,
    /// Builds the workload on the host: inputs and CPU reference. An error is bad input (the
    /// host cannot hold it).
    pub create: fn(&Params) -> Result<Box<dyn Workload>>,
    /// Its CPU emulation, for the mock backend.
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    pub emulate: Emulation,
}

impl KernelSpec {
    /// The entry point of `module`.
    pub fn kernel_in(&self, module: EmbeddedPtx) -> KernelRef {
        module.kernel(self.entry)
    }

    /// The sweep's kernel: the entry point in the cuda_builder module.
    pub fn rust_kernel(&self) -> KernelRef {
        self.kernel_in(self.modules[0])
    }
}

/// Kernels are the same kernel when their names are.
impl PartialEq for KernelSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for KernelSpec {}

/// One kernel's inputs, outputs and CPU reference, on the host and, once uploaded, on one
/// device.
pub trait Workload {
    /// What one pass is.
    fn pass(&self) -> &Pass;

    /// Bytes of dynamic shared memory a block of `threads_per_block` threads needs.
    fn dynamic_shared_memory(&self, threads_per_block: u32) -> u32;

    /// Allocates the device buffers and copies the inputs in.
    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()>;

    /// The launch of the active kernel at `grid_blocks` x `threads_per_block`.
    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<Launch>;

    /// Zeroes the outputs, so a launch that misses an element is caught.
    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()>;

    /// Overwrites output element `index` on the device: the fault `--corrupt-pixel` injects
    /// to show the check catching it. A workload without this self-test says so.
    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        let _ = (gpu, index);
        anyhow::bail!("this workload cannot overwrite an output element (no --corrupt-pixel self-test)")
    }

    /// Copies the outputs back and compares them with the CPU reference.
    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>>;
}

/// The buffers of a workload, once uploaded.
fn uploaded<T: Copy>(buffers: Option<T>) -> Result<T> {
    buffers.context("the workload's buffers are not uploaded")
}

/// Values of a plain numeric type, which any bytes of the right length may hold: `f32`,
/// `f64`, `u16`, `u32`, `u64`, `i32`.
///
/// # Safety
///
/// Implemented only for types with no padding and no invalid bit pattern, whose size is
/// [`Plain::SIZE`]: [`as_bytes`] and [`view_values`] reinterpret bytes as values of them.
pub unsafe trait Plain: Copy + Default + 'static {
    /// `size_of::<Self>()`.
    const SIZE: usize;
    /// The value whose native-endian bytes are `bytes` (exactly [`Plain::SIZE`] of them).
    fn from_ne(bytes: &[u8]) -> Self;
    /// Its native-endian bytes.
    fn to_ne(self) -> Vec<u8>;
}

macro_rules! plain {
    ($($ty:ty),*) => {$(
        // SAFETY: a primitive number: no padding, every bit pattern valid.
        unsafe impl Plain for $ty {
            const SIZE: usize = std::mem::size_of::<$ty>();
            fn from_ne(bytes: &[u8]) -> Self {
                Self::from_ne_bytes(bytes.try_into().expect("SIZE bytes"))
            }
            fn to_ne(self) -> Vec<u8> {
                self.to_ne_bytes().to_vec()
            }
        }
    )*};
}

plain!(f32, f64, u16, u32, u64, i32);

/// `values` as the bytes the device holds them in.
pub fn as_bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: T is Plain (an unsafe trait, implemented for plain numbers only): no padding,
    // no invalid bit patterns, and u8 has alignment 1; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

/// `values` as bytes to copy the device's into.
pub fn as_bytes_mut<T: Plain>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as in as_bytes; every byte pattern written is a valid T.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(values)) }
}

/// The first `count` values of `bytes`, in place where `bytes` is aligned for `T` (mock
/// memory always is), else copied.
pub fn view_values<T: Plain>(bytes: &[u8], count: usize) -> Result<std::borrow::Cow<'_, [T]>>
where
    [T]: ToOwned<Owned = Vec<T>>,
{
    let needed = count.checked_mul(T::SIZE).filter(|&needed| needed <= bytes.len());
    let needed = needed.with_context(|| format!("{count} values do not fit in {} bytes", bytes.len()))?;
    // SAFETY: any bytes are a valid T (Plain), and align_to only hands out the aligned middle.
    let (head, values, _) = unsafe { bytes[..needed].align_to::<T>() };
    if head.is_empty() && values.len() == count {
        return Ok(std::borrow::Cow::Borrowed(values));
    }
    Ok(std::borrow::Cow::Owned(read_values(bytes, count)?))
}

/// `count` values from the start of `bytes`, copied (mock emulations).
pub fn read_values<T: Plain>(bytes: &[u8], count: usize) -> Result<Vec<T>> {
    let needed = count.checked_mul(T::SIZE).filter(|&needed| needed <= bytes.len());
    needed.with_context(|| format!("{count} values do not fit in {} bytes", bytes.len()))?;
    Ok(bytes.chunks_exact(T::SIZE).take(count).map(T::from_ne).collect())
}

/// Writes `values` at the start of `bytes` (mock emulations).
pub fn write_values<T: Plain>(bytes: &mut [u8], values: &[T]) -> Result<()> {
    let source = as_bytes(values);
    let available = bytes.len();
    let target = bytes
        .get_mut(..source.len())
        .with_context(|| format!("{} values do not fit in {available} bytes", values.len()))?;
    target.copy_from_slice(source);
    Ok(())
}

/// An empty vector with room for `len` values, or an error instead of an abort when the host
/// cannot hold them.
pub fn host_vec<T>(len: usize, what: &str) -> Result<Vec<T>> {
    let mut values = Vec::new();
    values.try_reserve_exact(len).with_context(|| {
        format!(
            "cannot allocate {:.1} MiB of host memory for {what}",
            mib(len as f64 * std::mem::size_of::<T>() as f64)
        )
    })?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_found_by_its_name_and_its_entries() {
        assert_eq!(KERNELS[0].name, "grayscale", "the default comes first");
        for spec in KERNELS {
            assert_eq!(super::spec(spec.name), Some(*spec));
            assert!(spec.entries.contains(&spec.entry), "{}", spec.name);
            for entry in spec.entries {
                assert_eq!(spec_of_entry(entry), Some(*spec), "{entry}");
            }
            assert!(spec.modules.contains(&spec.baseline), "{}", spec.name);
            assert_eq!(
                spec.modules[0],
                crate::measure::ptx::RUST_CUDA,
                "{}: the sweep's module first",
                spec.name
            );
            for module in spec.modules {
                assert!(
                    module.ptx.contains(&format!(".entry {}(", spec.entry)),
                    "{} lacks {}",
                    module.file,
                    spec.entry
                );
            }
        }
        assert_eq!(super::spec("sobel"), None);
    }

    #[test]
    fn values_round_trip_through_bytes() {
        let values = [1.5f32, -2.0, 0.25];
        let bytes = as_bytes(&values);
        assert_eq!(bytes.len(), 12);
        assert_eq!(read_values::<f32>(bytes, 3).unwrap(), values);
        let mut back = [0u16; 2];
        write_values(as_bytes_mut(&mut back), &[7u16, 65535]).unwrap();
        assert_eq!(back, [7, 65535]);
        assert!(read_values::<u32>(&[0; 7], 2).is_err());
        // In place where aligned, copied where not: the same values either way.
        let words = [0x0001_0002_0003_0004u64, 0x0005_0006_0007_0008];
        let bytes = as_bytes(&words);
        assert!(matches!(view_values::<u16>(bytes, 8).unwrap(), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            *view_values::<u16>(&bytes[2..], 7).unwrap(),
            read_values::<u16>(&bytes[2..], 7).unwrap()[..]
        );
        assert!(view_values::<u32>(bytes, 5).is_err());
        assert!(write_values(&mut [0u8; 3], &[1u32]).is_err());
    }
}
