/*!
The histogram workload: a 16-bit plane of quantised luma in, `bins` 32-bit counters out
(`kernels/src/lib.rs`'s `histogram`, twin of `kernels/cuda/histogram.cu`). Every block counts
into private bins in dynamic shared memory, `bins * 4` bytes of it per block whatever its size,
so `--bins` and the block size together decide how many blocks fit on an SM.

The kernel comes in [`SHAPES`], each a registered kernel of its own (`--kernel histogram_x8k2`)
and a row of `variants --kernel histogram`: one 2-byte load per thread per trip (`histogram`),
8- or 16-byte vector loads (`histogram_x4`, `histogram_x8`), two or four of them per trip
(`histogram_x8k2`, `histogram_x8k4`), and the same with one copy of the bins per lane
(`histogram_x8k2c`, `histogram_x8k4c`, [`reference::copies`] copies, more shared memory a
block). All take the same arguments and compute the same histogram.

The input is the 12-bit integer luma of the synthetic frame, computed on the host and
quantised to bins ([`mod@reference`]); the check is exact: every bin equals the
CPU histogram, and the bins add up to the pixel count. The kernel adds to its counters, so
the launch zeroes them before every launch, outside the timed interval, and each check sees
one pass. A pass reads 2 bytes a pixel; GB/s counts those (the bins' atomics are not
counted).
*/

pub mod reference;

use self::reference::{LUMA_LEVELS, luma12};
use super::{KernelSpec, Params};
use crate::measure::backend::{BufferId, EmulatedMemory, Gpu, KernelArg, Launch};
use crate::measure::device::Footprint;
use crate::measure::memory::{as_bytes, as_bytes_mut, host_vec, read_values, view_values, write_values};
use crate::measure::workload::Workload;
use crate::model::mismatch::Mismatch;
use crate::model::pass::Pass;

pub use self::reference::MAX_BINS;
use crate::measure::ptx;
use anyhow::{Context as _, Result, bail, ensure};
use rayon::prelude::*;

/// Bins without `--bins`: one per 8-bit luma level.
pub const DEFAULT_BINS: u32 = 256;

/// Value `--corrupt-pixel` writes into a bin: no frame this program accepts has that many
/// pixels.
pub const CORRUPT_COUNT: u32 = u32::MAX;

/// Bytes of the luma the kernel reads per pixel.
const LUMA_BYTES: u64 = 2;

/// Pixels the luma may start past its allocation's 256-byte boundary (`variants --offset`).
pub const MAX_OFFSET: usize = 1024;

/// One shape of the histogram kernel: how each thread reads the luma and where it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Its entry point, the same in the Rust and the C++ module, and its `--kernel` name.
    pub entry: &'static str,
    /// Its name in `variants`' table: `k1`, `x4`, `x8`, `x8k2`, ...
    pub variant: &'static str,
    /// Bytes of one load of the luma: 2 (one pixel), 8 or 16 (a vector of 4 or 8 pixels).
    pub load_bytes: u32,
    /// Loads per thread per trip, all issued before the first count.
    pub loads_per_trip: u32,
    /// Whether a block keeps [`reference::copies`] copies of the bins, lane `l` counting into
    /// copy `l % copies`, rather than one.
    pub spread: bool,
}

impl Shape {
    /// Pixels one thread counts per trip of the loop (a grid needs this many times fewer
    /// threads than pixels to cover the frame in one trip).
    pub const fn pixels_per_trip(&self) -> u32 {
        self.load_bytes / 2 * self.loads_per_trip
    }

    /// Copies of the bins a block keeps at `bins` bins.
    pub fn copies(&self, bins: u32) -> u32 {
        if self.spread { reference::copies(bins) } else { 1 }
    }

    /// Bytes of dynamic shared memory one block needs at `bins` bins (1 to 4096): the launch's
    /// `sharedMemBytes`, and what occupancy queries must be given.
    pub fn shared_bytes(&self, bins: u32) -> u32 {
        reference::dynamic_shared_bytes(bins) * self.copies(bins)
    }

    /// What a thread does per trip, in words: "16-byte loads, 2 a thread a trip, 32 copies of
    /// the bins a block".
    pub fn describe(&self, bins: u32) -> String {
        let load = if self.load_bytes == 2 {
            "one 2-byte load a pixel".to_string()
        } else {
            format!("{}-byte vector loads, {} a thread a trip", self.load_bytes, self.loads_per_trip)
        };
        let copies = self.copies(bins);
        if copies == 1 { load } else { format!("{load}, {copies} copies of the bins a block (one per lane)") }
    }
}

/// Every shape, in `variants`' order: the one-pixel kernel first.
pub const SHAPES: [Shape; 7] = [
    Shape { entry: reference::KERNEL_NAME, variant: "k1", load_bytes: 2, loads_per_trip: 1, spread: false },
    Shape { entry: "histogram_x4", variant: "x4", load_bytes: 8, loads_per_trip: 1, spread: false },
    Shape { entry: "histogram_x8", variant: "x8", load_bytes: 16, loads_per_trip: 1, spread: false },
    Shape { entry: "histogram_x8k2", variant: "x8k2", load_bytes: 16, loads_per_trip: 2, spread: false },
    Shape { entry: "histogram_x8k4", variant: "x8k4", load_bytes: 16, loads_per_trip: 4, spread: false },
    Shape { entry: "histogram_x8k2c", variant: "x8k2c", load_bytes: 16, loads_per_trip: 2, spread: true },
    Shape { entry: "histogram_x8k4c", variant: "x8k4c", load_bytes: 16, loads_per_trip: 4, spread: true },
];

/// The shape whose entry point is `entry`.
pub fn shape_of_entry(entry: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|shape| shape.entry == entry)
}

/// The registered kernel of shape `SHAPES[$index]`, described by `$about`.
macro_rules! histogram_kernel {
    ($index:literal, $about:literal) => {
        KernelSpec {
            name: SHAPES[$index].entry,
            about: $about,
            entry: SHAPES[$index].entry,
            entries: &[SHAPES[$index].entry],
            modules: &[ptx::RUST_CUDA, ptx::HISTOGRAM_NVCC],
            baseline: ptx::HISTOGRAM_NVCC,
            options: &["bins"],
            validate,
            outputs: |params| (u64::from(params.bins), format!("{}-bin histogram", params.bins)),
            footprint,
            dynamic_shared_memory: |params, _| SHAPES[$index].shared_bytes(params.bins),
            pass: |params| pass(params, &SHAPES[$index]),
            create: |params| Ok(Box::new(HistogramWorkload::new(params, &SHAPES[$index])?)),
            emulate: |launch, memory, fault| emulate(&SHAPES[$index], launch, memory, fault),
        }
    };
}

/// The histogram kernel, `--kernel histogram`: one 2-byte load per pixel.
pub static KERNEL: KernelSpec = histogram_kernel!(
    0,
    "luma histogram with per-block bins in dynamic shared memory (--bins x 4 bytes a block)"
);
/// `--kernel histogram_x4`.
pub static KERNEL_X4: KernelSpec = histogram_kernel!(1, "the histogram with 8-byte vector loads (4 pixels)");
/// `--kernel histogram_x8`.
pub static KERNEL_X8: KernelSpec = histogram_kernel!(2, "the histogram with 16-byte vector loads (8 pixels)");
/// `--kernel histogram_x8k2`.
pub static KERNEL_X8K2: KernelSpec =
    histogram_kernel!(3, "the histogram with two 16-byte vector loads a thread a trip");
/// `--kernel histogram_x8k4`.
pub static KERNEL_X8K4: KernelSpec =
    histogram_kernel!(4, "the histogram with four 16-byte vector loads a thread a trip");
/// `--kernel histogram_x8k2c`.
pub static KERNEL_X8K2C: KernelSpec = histogram_kernel!(
    5,
    "histogram_x8k2 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)"
);
/// `--kernel histogram_x8k4c`.
pub static KERNEL_X8K4C: KernelSpec = histogram_kernel!(
    6,
    "histogram_x8k4 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)"
);

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// The registered kernel of every shape, in [`SHAPES`]' order.
pub const KERNELS: [&KernelSpec; 7] =
    [&KERNEL, &KERNEL_X4, &KERNEL_X8, &KERNEL_X8K2, &KERNEL_X8K4, &KERNEL_X8K2C, &KERNEL_X8K4C];

/// 1 to 4096 bins; at most `u32::MAX` pixels, so that no bin can wrap; an offset of at most
/// [`MAX_OFFSET`] pixels.
fn validate(params: &Params) -> Result<(), String> {
    if !(1..=MAX_BINS).contains(&params.bins) {
        return Err(format!("--bins {} is not 1 to {MAX_BINS}", params.bins));
    }
    if params.frame.pixels() > u64::from(u32::MAX) {
        return Err(format!(
            "a {} frame has {} pixels; the histogram's 32-bit bins count at most {}",
            params.frame,
            params.frame.pixels(),
            u32::MAX
        ));
    }
    if params.offset > MAX_OFFSET {
        return Err(format!("--offset {} is not 0 to {MAX_OFFSET} pixels", params.offset));
    }
    Ok(())
}

/// The luma plane (and the pixels before it, at an offset) and the bins, on the device and on
/// the host.
fn footprint(params: &Params) -> Footprint {
    let bins = 4 * u64::from(params.bins);
    let luma =
        params.frame.bytes(LUMA_BYTES).and_then(|luma| luma.checked_add(LUMA_BYTES * params.offset as u64));
    Footprint {
        device_bytes: luma.and_then(|luma| luma.checked_add(bins)),
        device_what: "its luma plane and bins",
        host_bytes: luma.and_then(|luma| luma.checked_add(3 * bins)),
        host_what: "the luma plane, the CPU histogram and the bins read back",
    }
}

fn pass(params: &Params, shape: &Shape) -> Pass {
    let bins = params.bins.clamp(1, MAX_BINS);
    let shared = shape.shared_bytes(bins);
    let zeroed = "bins zeroed before each launch, outside the timed interval";
    let detail = if shape.entry == reference::KERNEL_NAME {
        format!(
            "Kernel: histogram of {} bins, {shared} B of dynamic shared memory per block; {zeroed}",
            params.bins
        )
    } else {
        format!(
            "Kernel: {} ({}), histogram of {} bins, {shared} B of dynamic shared memory per block; {zeroed}",
            shape.entry,
            shape.describe(bins),
            params.bins
        )
    };
    Pass {
        kernel: shape.entry,
        frame: params.frame,
        bytes_per_pass: params.frame.bytes_f64(LUMA_BYTES),
        bytes_counted: "of 16-bit luma read per pass (GB/s counts these bytes)",
        detail: Some(detail),
        items: None,
    }
}

/// The `Kernel:` line of `variants --kernel histogram`, whose rows are of every shape: the bins,
/// and where each shape's shared memory per block is said.
pub fn variants_detail(bins: u32) -> String {
    let spread: Vec<&str> = SHAPES.iter().filter(|shape| shape.spread).map(|shape| shape.variant).collect();
    format!(
        "Kernels: histogram of {bins} bins: {} B of dynamic shared memory per block, {} B for {} ({} copies of the bins, \
         one per lane; column smem/blk); bins zeroed before each launch, outside the timed interval",
        SHAPES[0].shared_bytes(bins),
        reference::copies(bins) * SHAPES[0].shared_bytes(bins),
        spread.join(" and "),
        reference::copies(bins)
    )
}

#[derive(Debug, Clone, Copy)]
struct Buffers {
    luma: BufferId,
    bins: BufferId,
}

/// The quantised luma plane, its CPU histogram, and both on the device.
pub struct HistogramWorkload {
    bins: u32,
    values: Vec<u16>,
    reference: Vec<u32>,
    output: Vec<u32>,
    shape: &'static Shape,
    offset: usize,
    pass: Pass,
    buffers: Option<Buffers>,
}

impl HistogramWorkload {
    /// The quantised luma of the synthetic frame of `params` and its CPU histogram, for the
    /// kernel of `shape`; the luma starts `params.offset` pixels into its buffer.
    pub fn new(params: &Params, shape: &'static Shape) -> Result<Self> {
        validate(params).map_err(anyhow::Error::msg)?;
        let pixels = params.frame.host_pixels()?;
        let bins = params.bins;
        let mut values = host_vec(pixels, "the luma plane")?;
        // On every core, into the capacity just reserved.
        (0..pixels)
            .into_par_iter()
            .map(|i| (u32::from(luma12(i)) * bins / LUMA_LEVELS) as u16)
            .collect_into_vec(&mut values);
        let reference = reference::histogram(&values, bins);
        Ok(Self {
            bins,
            values,
            reference,
            output: vec![0; bins as usize],
            shape,
            offset: params.offset,
            pass: pass(params, shape),
            buffers: None,
        })
    }

    /// Launches from now on are of `shape`'s kernel: its shared memory per block and its name
    /// in the report. The buffers stay.
    pub fn set_shape(&mut self, shape: &'static Shape) {
        self.shape = shape;
        let params = Params { frame: self.pass.frame, bins: self.bins, offset: self.offset };
        self.pass = pass(&params, shape);
    }

    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    /// The CPU histogram.
    pub fn reference(&self) -> &[u32] {
        &self.reference
    }
}

/// The first bin where `got` differs from `want`, and whether the bins add up to `pixels`.
pub fn compare_bins(got: &[u32], want: &[u32], pixels: u64) -> Option<Mismatch> {
    let total: u64 = got.iter().map(|&count| u64::from(count)).sum();
    let wrong_bin = got.iter().zip(want).position(|(got, want)| got != want);
    let total_text = (total != pixels).then(|| format!("the bins sum to {total}, not the {pixels} pixels"));
    let bin_text =
        wrong_bin.map(|bin| format!("bin {bin} is {}, the CPU reference says {}", got[bin], want[bin]));
    match (bin_text, total_text) {
        (None, None) if got.len() == want.len() => None,
        (None, None) => Some(Mismatch {
            index: Some(got.len().min(want.len())),
            description: format!("{} bins came back, the CPU reference has {}", got.len(), want.len()),
        }),
        (Some(bin), None) => Some(Mismatch { index: wrong_bin, description: bin }),
        (None, Some(total)) => Some(Mismatch { index: None, description: total }),
        (Some(bin), Some(total)) => {
            Some(Mismatch { index: wrong_bin, description: format!("{bin}; {total}") })
        }
    }
}

impl Workload for HistogramWorkload {
    fn pass(&self) -> &Pass {
        &self.pass
    }

    fn dynamic_shared_memory(&self, _threads_per_block: u32) -> u32 {
        self.shape.shared_bytes(self.bins)
    }

    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        let luma = if self.offset == 0 {
            gpu.alloc_and_upload(as_bytes(&self.values))?
        } else {
            let skip = self.offset * LUMA_BYTES as usize;
            let luma = gpu.alloc_zeroed(skip + self.values.len() * LUMA_BYTES as usize)?;
            gpu.upload(luma, skip, as_bytes(&self.values))?;
            luma
        };
        let bins = gpu.alloc_zeroed(self.output.len() * 4)?;
        self.buffers = Some(Buffers { luma, bins });
        Ok(())
    }

    fn launch(&self, grid_blocks: u32, threads_per_block: u32) -> Result<Launch> {
        let Buffers { luma, bins } = super::uploaded(self.buffers)?;
        // The kernel's parameters: the luma, the bins, the pixel count and the bin count.
        Ok(Launch {
            grid_blocks,
            threads_per_block,
            dynamic_shared_memory: self.dynamic_shared_memory(threads_per_block),
            args: vec![
                KernelArg::Buffer(luma, self.offset * LUMA_BYTES as usize),
                KernelArg::Buffer(bins, 0),
                KernelArg::Usize(self.values.len()),
                KernelArg::U32(self.bins),
            ],
            zero_before_each: vec![bins],
        })
    }

    fn clear_outputs(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        gpu.zero(super::uploaded(self.buffers)?.bins)
    }

    fn corrupt(&mut self, gpu: &mut dyn Gpu, index: usize) -> Result<()> {
        if index >= self.output.len() {
            bail!("bin {index} is outside the {}-bin histogram", self.output.len());
        }
        let bins = super::uploaded(self.buffers)?.bins;
        gpu.upload(bins, 4 * index, &CORRUPT_COUNT.to_ne_bytes())
    }

    fn check(&mut self, gpu: &mut dyn Gpu) -> Result<Option<Mismatch>> {
        let bins = super::uploaded(self.buffers)?.bins;
        gpu.download(bins, 0, as_bytes_mut(&mut self.output))?;
        Ok(compare_bins(&self.output, &self.reference, self.values.len() as u64))
    }
}

/// Alignment the emulation assumes of every buffer's start: `cuMemAlloc`'s 256 bytes, which
/// covers the kernels' 16-byte vectors.
const BUFFER_ALIGNMENT: usize = 256;

/// The kernel of `shape`, thread by thread, as its loops are written: each thread of the grid
/// counts the head pixels, the vectors and the tail pixels its loops reach, every vector load
/// checked to be aligned and inside the frame, and every count checked to land inside the
/// block's `launch.dynamic_shared_memory` (bin `v` of copy `lane % copies` is word
/// `v * copies + lane % copies`); the blocks' counts are then added to the bins, as the
/// kernel's merge does (wrapping at 2^32). With `fault`, bin `fault` counts one pixel too many.
/// The luma's alignment is its byte offset's: buffers start at [`BUFFER_ALIGNMENT`].
fn emulate(
    shape: &Shape,
    launch: &Launch,
    memory: &mut dyn EmulatedMemory,
    fault: Option<usize>,
) -> Result<()> {
    let [luma, hist, pixels, bins] = launch.args.as_slice() else {
        bail!("the histogram kernels take four arguments, not {}", launch.args.len());
    };
    let (pixels, bins) = (pixels.as_usize()?, bins.as_u32()?);
    let copies = shape.copies(bins);
    let words = u64::from(bins) * u64::from(copies);
    ensure!(
        u64::from(launch.dynamic_shared_memory) >= 4 * words,
        "the histogram of {bins} bins was launched with {} B of dynamic shared memory per block, not {}",
        launch.dynamic_shared_memory,
        4 * words
    );
    let KernelArg::Buffer(_, luma_offset) = *luma else { bail!("the luma is not a buffer: {luma:?}") };
    let values = view_values::<u16>(memory.at(luma)?, pixels)?;
    let mut counts = read_values::<u32>(memory.at(hist)?, bins as usize)?;
    let added = if shape.load_bytes == 2 {
        reference::histogram(&values, bins)
    } else {
        let address = luma_offset % BUFFER_ALIGNMENT;
        let threads = u64::from(launch.grid_blocks) * u64::from(launch.threads_per_block);
        let threads = usize::try_from(threads).context("the grid's thread count")?;
        ensure!(threads > 0, "a launch of no threads");
        count_by_threads(shape, &values, address, bins, threads, launch.threads_per_block)?
    };
    for (count, add) in counts.iter_mut().zip(added) {
        *count = count.wrapping_add(add);
    }
    if let Some(count) = fault.and_then(|bin| counts.get_mut(bin)) {
        *count = count.wrapping_add(1);
    }
    write_values(memory.at_mut(hist)?, &counts)
}

/// The counts of a vector shape's launch of `threads` threads in blocks of `block`, the luma
/// starting at byte `address` (modulo [`BUFFER_ALIGNMENT`]): `histogram_vectors`' three loops,
/// thread by thread, in its arithmetic.
fn count_by_threads(
    shape: &Shape,
    values: &[u16],
    address: usize,
    bins: u32,
    threads: usize,
    block: u32,
) -> Result<Vec<u32>> {
    ensure!(address.is_multiple_of(2), "the luma starts at an odd byte ({address}): not a u16 array");
    let n = values.len();
    let size = shape.load_bytes as usize;
    let per_vector = size / 2;
    let k = shape.loads_per_trip as usize;
    let copies = shape.copies(bins) as usize;
    let words = bins as usize * copies;
    let head = ((size - address % size) % size / 2).min(n);
    let vectors = (n - head) / per_vector;
    let tail = head + vectors * per_vector;
    let mut counts = vec![0u32; bins as usize];
    let step = threads;
    for first in 0..threads {
        let lane = (first % block as usize) & 31;
        let mut count = |pixel: usize| -> Result<()> {
            let value = *values.get(pixel).with_context(|| format!("pixel {pixel} of {n} read"))?;
            if u32::from(value) < bins {
                let word = usize::from(value) * copies + (lane & (copies - 1));
                ensure!(word < words, "shared word {word} of {words} counted");
                counts[usize::from(value)] = counts[usize::from(value)].wrapping_add(1);
            }
            Ok(())
        };
        let mut i = first;
        while i < head {
            count(i)?;
            i += step;
        }
        let mut vector = |v: usize| -> Result<()> {
            let pixel = head + v * per_vector;
            ensure!(
                (address + 2 * pixel).is_multiple_of(size),
                "vector {v} at byte {} is not {size}-byte aligned",
                address + 2 * pixel
            );
            ensure!(pixel + per_vector <= n, "vector {v} reads past the frame's {n} pixels");
            (pixel..pixel + per_vector).try_for_each(&mut count)
        };
        let mut v = first;
        while v + (k - 1) * step < vectors {
            (0..k).try_for_each(|trip| vector(v + trip * step))?;
            v += k * step;
        }
        while v < vectors {
            vector(v)?;
            v += step;
        }
        let mut i = tail + first;
        while i < n {
            count(i)?;
            i += step;
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::backend::Timing;
    use crate::measure::mock::MockGpu;

    const ONCE: Timing = Timing::launch(2, 3);

    fn uploaded(width: u32, height: u32, bins: u32) -> (MockGpu, HistogramWorkload) {
        let mut gpu = MockGpu::h200_with(&[KERNEL.rust_kernel()]);
        let mut workload =
            HistogramWorkload::new(&Params { bins, ..Params::frame(width, height) }, &SHAPES[0]).unwrap();
        workload.upload(&mut gpu).unwrap();
        (gpu, workload)
    }

    #[test]
    fn the_launch_passes_the_bins_shared_memory_and_zeroes_them_each_time() {
        let (mut gpu, mut workload) = uploaded(101, 7, 1000);
        let launch = workload.launch(3, 128).unwrap();
        assert_eq!(launch.dynamic_shared_memory, 4000);
        assert_eq!(launch.args[2..], [KernelArg::Usize(707), KernelArg::U32(1000)]);
        assert_eq!(launch.zero_before_each, [BufferId(1)]);
        // Five launches, each one pass: the counts are one histogram, not five.
        gpu.time_launches(&launch, ONCE).unwrap();
        assert_eq!(workload.check(&mut gpu).unwrap(), None);
        assert_eq!(workload.output.iter().map(|&c| u64::from(c)).sum::<u64>(), 707);
    }

    #[test]
    fn a_corrupted_bin_is_caught_with_its_index_and_the_wrong_total() {
        let (mut gpu, mut workload) = uploaded(64, 64, 256);
        gpu.time_launches(&workload.launch(8, 256).unwrap(), ONCE).unwrap();
        workload.corrupt(&mut gpu, 17).unwrap();
        let want = workload.reference()[17];
        let mismatch = workload.check(&mut gpu).unwrap().unwrap();
        assert_eq!(mismatch.index, Some(17));
        let total = 4096 - u64::from(want) + u64::from(u32::MAX);
        assert_eq!(
            mismatch.description,
            format!(
                "bin 17 is 4294967295, the CPU reference says {want}; the bins sum to {total}, not the 4096 pixels"
            )
        );
        assert_eq!(
            workload.corrupt(&mut gpu, 256).unwrap_err().to_string(),
            "bin 256 is outside the 256-bin histogram"
        );
    }

    #[test]
    fn a_faulty_kernel_counts_one_pixel_twice() {
        let (mut gpu, mut workload) = uploaded(50, 50, 4096);
        gpu.wrong_kernel = Some(KERNEL.rust_kernel());
        gpu.wrong_element = 4095;
        gpu.time_launches(&workload.launch(1, 1024).unwrap(), ONCE).unwrap();
        let mismatch = workload.check(&mut gpu).unwrap().unwrap();
        assert_eq!(mismatch.index, Some(4095));
        assert!(mismatch.description.ends_with("; the bins sum to 2501, not the 2500 pixels"), "{mismatch}");
    }

    #[test]
    fn a_wrong_total_is_caught_even_where_every_bin_agrees() {
        // Bins that agree with a reference that does not add up: the total check stands alone.
        assert_eq!(
            compare_bins(&[3, 4], &[3, 4], 8),
            Some(Mismatch { index: None, description: "the bins sum to 7, not the 8 pixels".into() })
        );
        assert_eq!(compare_bins(&[3, 4], &[3, 4], 7), None);
        assert_eq!(compare_bins(&[3, 4], &[4, 3], 7).unwrap().index, Some(0));
        assert_eq!(compare_bins(&[7], &[7, 0], 7).unwrap().index, Some(1));
    }

    #[test]
    fn a_launch_without_the_shared_memory_is_refused() {
        let (mut gpu, workload) = uploaded(8, 8, 64);
        let mut launch = workload.launch(1, 64).unwrap();
        launch.dynamic_shared_memory = 255;
        let error = gpu.time_launches(&launch, ONCE).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the histogram of 64 bins was launched with 255 B of dynamic shared memory per block, not 256"
        );
    }

    #[test]
    fn the_input_is_the_quantised_12_bit_luma_of_the_frame() {
        for bins in [1, 3, 256, 4096] {
            let workload =
                HistogramWorkload::new(&Params { bins, ..Params::frame(641, 7) }, &SHAPES[0]).unwrap();
            let luma = reference::synthetic_luma12(641 * 7);
            assert_eq!(workload.values, reference::quantise(&luma, bins), "bins {bins}");
            assert_eq!(workload.reference, reference::histogram(&workload.values, bins));
            assert_eq!(workload.reference.iter().map(|&c| u64::from(c)).sum::<u64>(), 641 * 7);
        }
    }

    #[test]
    fn bins_and_frames_are_validated() {
        let params = |bins, width| Params { bins, ..Params::frame(width, 65536) };
        assert_eq!(validate(&params(0, 8)).unwrap_err(), "--bins 0 is not 1 to 4096");
        assert_eq!(validate(&params(4097, 8)).unwrap_err(), "--bins 4097 is not 1 to 4096");
        assert_eq!(validate(&params(4096, 65535)), Ok(()));
        assert!(validate(&params(1, 65536)).unwrap_err().contains("count at most 4294967295"));
    }

    #[test]
    fn the_footprint_is_two_bytes_a_pixel_and_the_bins() {
        let footprint = footprint(&Params { bins: 256, ..Params::frame(3840, 2160) });
        assert_eq!(footprint.device_bytes, Some(2 * 8_294_400 + 1024));
        assert_eq!(footprint.host_bytes, Some(2 * 8_294_400 + 3 * 1024));
        let pass = pass(&Params::frame(3840, 2160), &SHAPES[0]);
        assert_eq!(pass.bytes_per_pass, 16_588_800.0);
    }

    #[test]
    fn every_shape_is_a_registered_kernel_of_its_entry() {
        let entries: Vec<&str> = SHAPES.iter().map(|shape| shape.entry).collect();
        assert_eq!(
            entries,
            [
                "histogram",
                "histogram_x4",
                "histogram_x8",
                "histogram_x8k2",
                "histogram_x8k4",
                "histogram_x8k2c",
                "histogram_x8k4c"
            ]
        );
        for (shape, spec) in SHAPES.iter().zip(KERNELS) {
            assert_eq!((spec.name, spec.entry, spec.entries), (shape.entry, shape.entry, &[shape.entry][..]));
            assert_eq!(super::super::spec(shape.entry), Some(spec));
            assert_eq!(shape_of_entry(shape.entry), Some(shape));
            assert_eq!(spec.modules, [ptx::RUST_CUDA, ptx::HISTOGRAM_NVCC]);
            let params = Params { bins: 256, ..Params::frame(64, 64) };
            assert_eq!(
                (spec.dynamic_shared_memory)(&params, 128),
                shape.shared_bytes(256),
                "{}",
                shape.entry
            );
            assert_eq!((spec.pass)(&params).kernel, shape.entry);
        }
        let trips: Vec<u32> = SHAPES.iter().map(Shape::pixels_per_trip).collect();
        assert_eq!(trips, [1, 4, 8, 16, 32, 16, 32]);
        assert_eq!(shape_of_entry("grayscale"), None);
    }

    #[test]
    fn spread_shapes_ask_for_their_copies_of_the_bins() {
        let spread = &SHAPES[5];
        assert_eq!(spread.shared_bytes(1), 128);
        assert_eq!(spread.shared_bytes(256), 32768);
        assert_eq!(spread.shared_bytes(4096), 32768);
        assert_eq!(spread.shared_bytes(1000), 32000);
        assert_eq!(SHAPES[3].shared_bytes(4096), 16384);
        assert_eq!(
            spread.describe(256),
            "16-byte vector loads, 2 a thread a trip, 32 copies of the bins a block (one per lane)"
        );
        assert_eq!(SHAPES[1].describe(7), "8-byte vector loads, 1 a thread a trip");
        assert_eq!(SHAPES[0].describe(7), "one 2-byte load a pixel");
        let detail = pass(&Params { bins: 4096, ..Params::frame(8, 8) }, spread).detail.unwrap();
        assert_eq!(
            detail,
            "Kernel: histogram_x8k2c (16-byte vector loads, 2 a thread a trip, 2 copies of the bins a block (one per lane)), \
             histogram of 4096 bins, 32768 B of dynamic shared memory per block; bins zeroed before each launch, outside the timed interval"
        );
    }

    #[test]
    fn every_shape_counts_every_pixel_once_at_any_size_offset_and_grid() {
        // Frames around the vector sizes, every start modulo 16 bytes, grids from one thread to
        // more threads than vectors.
        let grids = [(1, 1), (1, 32), (3, 100), (7, 64), (2, 1024)];
        for shape in &SHAPES {
            let spec = KERNELS.iter().find(|spec| spec.entry == shape.entry).unwrap();
            for pixels in [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001, 4099] {
                for offset in 0..8 {
                    let params = Params { bins: 7, offset, ..Params::frame(pixels, 1) };
                    let mut gpu = MockGpu::h200_with(&[spec.rust_kernel()]);
                    let mut workload = HistogramWorkload::new(&params, shape).unwrap();
                    workload.upload(&mut gpu).unwrap();
                    for (blocks, threads) in grids {
                        let launch = workload.launch(blocks, threads).unwrap();
                        assert_eq!(launch.args[0], KernelArg::Buffer(BufferId(0), 2 * offset));
                        gpu.time_launches(&launch, Timing::launch(0, 1)).unwrap();
                        assert_eq!(
                            workload.check(&mut gpu).unwrap(),
                            None,
                            "{} {pixels} pixels at offset {offset}, {blocks} x {threads}",
                            shape.entry
                        );
                    }
                    // The pixels before the luma are the allocation's, untouched.
                    assert_eq!(gpu.memory.bytes(BufferId(0)).unwrap()[..2 * offset], vec![0; 2 * offset]);
                }
            }
        }
    }

    #[test]
    fn the_emulation_follows_the_kernels_loops_and_checks_their_accesses() {
        let values: Vec<u16> = (0..100).map(|i| (i % 7) as u16).collect();
        let want = reference::histogram(&values, 7);
        for shape in &SHAPES[1..] {
            for address in (0..32).step_by(2) {
                for threads in [1, 5, 64, 300] {
                    let counts = count_by_threads(shape, &values, address, 7, threads, 32).unwrap();
                    assert_eq!(counts, want, "{} at byte {address}, {threads} threads", shape.entry);
                }
            }
        }
        let odd = count_by_threads(&SHAPES[2], &values, 3, 7, 64, 64).unwrap_err();
        assert_eq!(odd.to_string(), "the luma starts at an odd byte (3): not a u16 array");
        // Values at or above the bins count nowhere, as in the kernel.
        let counts = count_by_threads(&SHAPES[3], &[0, 9, 1, 9, 1, 65535, 2, 3, 0], 0, 3, 4, 4).unwrap();
        assert_eq!(counts, [2, 2, 1]);
    }

    #[test]
    fn a_spread_launch_without_its_copies_is_refused() {
        let mut gpu = MockGpu::h200_with(&[KERNEL_X8K2C.rust_kernel()]);
        let params = Params { bins: 256, ..Params::frame(64, 8) };
        let mut workload = HistogramWorkload::new(&params, &SHAPES[5]).unwrap();
        workload.upload(&mut gpu).unwrap();
        let mut launch = workload.launch(2, 64).unwrap();
        assert_eq!(launch.dynamic_shared_memory, 32768);
        gpu.time_launches(&launch, ONCE).unwrap();
        assert_eq!(workload.check(&mut gpu).unwrap(), None);
        launch.dynamic_shared_memory = 1024;
        assert_eq!(
            gpu.time_launches(&launch, ONCE).unwrap_err().to_string(),
            "the histogram of 256 bins was launched with 1024 B of dynamic shared memory per block, not 32768"
        );
    }

    #[test]
    fn set_shape_changes_the_shared_memory_and_the_report_not_the_buffers() {
        let mut gpu = MockGpu::h200_with(&[KERNEL.rust_kernel(), KERNEL_X8K4C.rust_kernel()]);
        let mut workload =
            HistogramWorkload::new(&Params { bins: 4096, ..Params::frame(32, 32) }, &SHAPES[0]).unwrap();
        workload.upload(&mut gpu).unwrap();
        assert_eq!(workload.dynamic_shared_memory(256), 16384);
        workload.set_shape(&SHAPES[6]);
        assert_eq!(workload.dynamic_shared_memory(256), 32768);
        assert_eq!(workload.pass().kernel, "histogram_x8k4c");
        let launch = workload.launch(4, 256).unwrap();
        assert_eq!(launch.dynamic_shared_memory, 32768);
        assert_eq!(launch.args[0], KernelArg::Buffer(BufferId(0), 0));
        gpu.select_kernel(KERNEL_X8K4C.rust_kernel()).unwrap();
        gpu.time_launches(&launch, ONCE).unwrap();
        assert_eq!(workload.check(&mut gpu).unwrap(), None);
    }

    #[test]
    fn offsets_past_1024_pixels_are_refused() {
        let params = |offset| Params { bins: 16, offset, ..Params::frame(8, 8) };
        assert_eq!(validate(&params(1024)), Ok(()));
        assert_eq!(validate(&params(1025)).unwrap_err(), "--offset 1025 is not 0 to 1024 pixels");
        assert_eq!(footprint(&params(3)).device_bytes, Some(2 * 64 + 6 + 64));
    }
}
