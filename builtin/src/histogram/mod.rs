/*!
The histogram kernel, described for the runner: a 16-bit plane of quantised luma in, `bins`
32-bit counters out (`kernels/src/lib.rs`'s `histogram`, twin of `kernels/cuda/histogram.cu`).
Every block counts into private bins in dynamic shared memory, `bins * 4` bytes of it per block
whatever its size, so the bins and the block size together decide how many blocks fit on an SM.

The kernel comes in [`SHAPES`], each a kernel of its own (`--kernel histogram_x8k2`) and a row
of `variants --kernel histogram`: one 2-byte load per thread per trip (`histogram`), 8- or
16-byte vector loads (`histogram_x4`, `histogram_x8`), two or four of them per trip
(`histogram_x8k2`, `histogram_x8k4`), and the same with one copy of the bins per lane
(`histogram_x8k2c`, `histogram_x8k4c`, [`reference::copies`] copies, more shared memory a
block). All take the same arguments and compute the same histogram.

The input is the 12-bit integer luma of the synthetic frame, computed on the host and
quantised to bins ([`mod@reference`]), the input of each value of a bins axis built for its
rows; the check is exact: every bin equals the CPU histogram, and the bins add up to the pixel
count. The kernel adds to its counters, so they are zeroed before every launch, outside the
timed interval, and each check sees one pass. A pass reads 2 bytes a pixel; GB/s counts those
(the bins' atomics are not counted).
*/

pub mod reference;

use self::reference::{LUMA_LEVELS, luma12};
use crate::frame::Frame;
use crate::ptx::{HISTOGRAM_NVCC, RUST_CUDA};
use block_size_runner::{Arg, Axis, Check, Kernel, Values};
use rayon::prelude::*;
use std::cell::RefCell;

/// Bins without `--bins`: one per 8-bit luma level.
pub const DEFAULT_BINS: u32 = 256;

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

/// The bins a histogram counts: one count, or an axis of several (a column of the sweep, each
/// row's input quantised to its own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bins {
    /// One count for every row.
    One(u32),
    /// An axis named `bins`, in this order.
    Axis(Vec<u32>),
}

/// The histogram kernel of `shape` over `frame` at `bins`, its luma `offset` pixels past its
/// allocation's start, with its CUDA C++ twin. The caller has checked the bins (1 to
/// [`reference::MAX_BINS`]) and the frame ([`check_frame`]).
pub fn kernel(shape: &'static Shape, frame: Frame, bins: Bins, offset: usize) -> Kernel {
    let pixels = frame.pixels();
    let n = usize::try_from(pixels).unwrap_or(usize::MAX);
    let references = RefCell::new(Vec::<(u32, Vec<u32>)>::new());
    let check = Check::reference(move |values: &Values, shape: &block_size_runner::LaunchShape| {
        let got = values.of::<u32>().ok_or_else(|| "the bins are not u32".to_string())?;
        let bins = bins_of(shape.variant.integer("bins"), got.len());
        let mut known = references.borrow_mut();
        if !known.iter().any(|(counted, _)| *counted == bins) {
            known.push((bins, histogram_of(n, bins)));
        }
        let want = &known.iter().find(|(counted, _)| *counted == bins).expect("just counted").1;
        compare_bins(got, want, pixels).map_or(Ok(()), Err)
    });
    let base = Kernel::new(RUST_CUDA, shape.entry)
        .twin(HISTOGRAM_NVCC)
        .frame(frame.width, frame.height)
        .bytes_per_pass(
            pixels.saturating_mul(LUMA_BYTES),
            "of 16-bit luma read per pass (GB/s counts these bytes)",
        )
        .check(check);
    let kernel = match bins {
        Bins::One(bins) => base
            .detail(detail(shape, bins))
            .input_with::<u16>("luma", n, move || quantised_luma(n, bins))
            .output::<u32>("bins", bins as usize)
            .dynamic_shared_memory(move |_, _| shape.shared_bytes(bins))
            .args(move |_| vec![Arg::Buffer("luma"), Arg::Buffer("bins"), Arg::Usize(n), Arg::U32(bins)]),
        Bins::Axis(values) => base
            .detail(format!(
                "Kernel: {}, histogram of each row's bins (the bins column), zeroed before each launch, outside the timed interval",
                shape.entry
            ))
            .axis(Axis::integers("bins", values.iter().map(|&bins| u64::from(bins))))
            .input_per::<u16>("luma", "bins", n, move |bins| quantised_luma(n, bins as u32))
            .output_with::<u32>("bins", |variant| variant.integer("bins").unwrap_or(1) as usize)
            .dynamic_shared_memory(move |_, variant| shape.shared_bytes(variant.integer("bins").unwrap_or(1) as u32))
            .args(move |_| vec![Arg::Buffer("luma"), Arg::Buffer("bins"), Arg::Usize(n), Arg::Axis("bins")]),
    };
    kernel.zeroed_before_each_launch("bins").offset("luma", offset)
}

/// The bins of a row: its value on the bins axis, else the bins read back.
fn bins_of(axis: Option<u64>, read_back: usize) -> u32 {
    axis.map_or(read_back as u32, |bins| bins as u32)
}

/// The quantised luma of a synthetic frame of `pixels` pixels at `bins` bins, on every core;
/// an error instead of an abort where the host cannot hold it.
fn quantised_luma(pixels: usize, bins: u32) -> anyhow::Result<Vec<u16>> {
    let mut values = Vec::new();
    values.try_reserve_exact(pixels).map_err(|_| {
        anyhow::anyhow!(
            "cannot allocate {:.1} MiB of host memory for the luma plane",
            pixels as f64 * 2.0 / 1048576.0
        )
    })?;
    (0..pixels)
        .into_par_iter()
        .map(|i| (u32::from(luma12(i)) * bins / LUMA_LEVELS) as u16)
        .collect_into_vec(&mut values);
    Ok(values)
}

/// The CPU histogram of a synthetic frame of `pixels` pixels at `bins` bins, counted straight
/// from the pattern, on every core.
fn histogram_of(pixels: usize, bins: u32) -> Vec<u32> {
    const CHUNK: usize = 1 << 20;
    let count = |range: std::ops::Range<usize>| {
        let mut counts = vec![0u32; bins as usize];
        for i in range {
            let value = (u32::from(luma12(i)) * bins / LUMA_LEVELS) as usize;
            counts[value] = counts[value].wrapping_add(1);
        }
        counts
    };
    (0..pixels.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| count(chunk * CHUNK..((chunk + 1) * CHUNK).min(pixels)))
        .reduce(
            || vec![0u32; bins as usize],
            |mut sum, part| {
                sum.iter_mut().zip(part).for_each(|(sum, part)| *sum = sum.wrapping_add(part));
                sum
            },
        )
}

/// The `Kernel:` line of one shape at `bins` bins.
fn detail(shape: &Shape, bins: u32) -> String {
    let shared = shape.shared_bytes(bins);
    let zeroed = "bins zeroed before each launch, outside the timed interval";
    if shape.entry == reference::KERNEL_NAME {
        format!("Kernel: histogram of {bins} bins, {shared} B of dynamic shared memory per block; {zeroed}")
    } else {
        format!(
            "Kernel: {} ({}), histogram of {bins} bins, {shared} B of dynamic shared memory per block; {zeroed}",
            shape.entry,
            shape.describe(bins)
        )
    }
}

/// A frame whose pixels the histogram's 32-bit bins can count: at most `u32::MAX`. The message
/// is one line.
pub fn check_frame(frame: Frame) -> Result<(), String> {
    if frame.pixels() > u64::from(u32::MAX) {
        return Err(format!(
            "a {frame} frame has {} pixels; the histogram's 32-bit bins count at most {}",
            frame.pixels(),
            u32::MAX
        ));
    }
    Ok(())
}

/// The kernel of every shape at `bins` bins over `frame`, as one kernel whose axis `variant`
/// names them (`k1`, `x4`, ...): what `variants --kernel histogram` measures, with its C++ twin.
pub fn shapes(frame: Frame, bins: u32, offset: usize) -> Kernel {
    let pixels = frame.pixels();
    let n = usize::try_from(pixels).unwrap_or(usize::MAX);
    let of = |variant: &block_size_runner::Variant| {
        SHAPES.iter().find(|shape| variant.value("variant") == Some(shape.variant)).unwrap_or(&SHAPES[0])
    };
    let references = RefCell::new(None::<Vec<u32>>);
    Kernel::new(RUST_CUDA, SHAPES[0].entry)
        .twin(HISTOGRAM_NVCC)
        .axis(Axis::entries("variant", SHAPES.iter().map(|shape| (shape.variant, shape.entry))))
        .frame(frame.width, frame.height)
        .bytes_per_pass(
            pixels.saturating_mul(LUMA_BYTES),
            "of 16-bit luma read per pass (GB/s counts these bytes)",
        )
        .detail(variants_detail(bins))
        .items_per_thread(move |variant| of(variant).pixels_per_trip())
        .input_with::<u16>("luma", n, move || quantised_luma(n, bins))
        .output::<u32>("bins", bins as usize)
        .offset("luma", offset)
        .zeroed_before_each_launch("bins")
        .dynamic_shared_memory(move |_, variant| of(variant).shared_bytes(bins))
        .args(move |_| vec![Arg::Buffer("luma"), Arg::Buffer("bins"), Arg::Usize(n), Arg::U32(bins)])
        .check(Check::reference(move |values: &Values, _: &block_size_runner::LaunchShape| {
            let got = values.of::<u32>().ok_or_else(|| "the bins are not u32".to_string())?;
            let mut known = references.borrow_mut();
            let want = known.get_or_insert_with(|| histogram_of(n, bins));
            compare_bins(got, want, pixels).map_or(Ok(()), Err)
        }))
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

/// The first bin where `got` differs from `want`, and whether the bins add up to `pixels`, in
/// one line.
pub fn compare_bins(got: &[u32], want: &[u32], pixels: u64) -> Option<String> {
    let total: u64 = got.iter().map(|&count| u64::from(count)).sum();
    let wrong_bin = got.iter().zip(want).position(|(got, want)| got != want);
    let total_text = (total != pixels).then(|| format!("the bins sum to {total}, not the {pixels} pixels"));
    let bin_text =
        wrong_bin.map(|bin| format!("bin {bin} is {}, the CPU reference says {}", got[bin], want[bin]));
    match (bin_text, total_text) {
        (None, None) if got.len() == want.len() => None,
        (None, None) => Some(format!("{} bins came back, the CPU reference has {}", got.len(), want.len())),
        (Some(text), None) | (None, Some(text)) => Some(text),
        (Some(bin), Some(total)) => Some(format!("{bin}; {total}")),
    }
}

#[cfg(feature = "mock")]
pub(crate) mod emulation {
    //! The kernels on the CPU, thread by thread, for the runner's mock driver.

    use crate::histogram::{SHAPES, Shape, reference};
    use anyhow::{Context as _, Result, bail, ensure};
    use block_size_runner::mock::{
        EmulatedMemory, KernelArg, Launch, read_values, view_values, write_values,
    };

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
    /// One emulation a shape, in [`SHAPES`]' order: each the kernel of that shape.
    pub const BY_SHAPE: [block_size_runner::mock::Emulation; 7] = [
        |launch, memory, fault| emulate(&SHAPES[0], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[1], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[2], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[3], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[4], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[5], launch, memory, fault),
        |launch, memory, fault| emulate(&SHAPES[6], launch, memory, fault),
    ];

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
            let threads = u64::from(launch.grid_blocks()) * u64::from(launch.threads_per_block());
            let threads = usize::try_from(threads).context("the grid's thread count")?;
            ensure!(threads > 0, "a launch of no threads");
            count_by_threads(shape, &values, address, bins, threads, launch.threads_per_block())?
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
    pub(crate) fn count_by_threads(
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_total_is_caught_even_where_every_bin_agrees() {
        // Bins that agree with a reference that does not add up: the total check stands alone.
        assert_eq!(compare_bins(&[3, 4], &[3, 4], 8).as_deref(), Some("the bins sum to 7, not the 8 pixels"));
        assert_eq!(compare_bins(&[3, 4], &[3, 4], 7), None);
        assert_eq!(
            compare_bins(&[3, 4], &[4, 3], 7).as_deref(),
            Some("bin 0 is 3, the CPU reference says 4")
        );
        assert_eq!(
            compare_bins(&[7], &[7, 0], 7).as_deref(),
            Some("1 bins came back, the CPU reference has 2")
        );
        assert_eq!(
            compare_bins(&[9, 4], &[3, 4], 7).as_deref(),
            Some("bin 0 is 9, the CPU reference says 3; the bins sum to 13, not the 7 pixels")
        );
    }

    #[test]
    fn the_input_is_the_quantised_12_bit_luma_of_the_frame_and_the_reference_its_histogram() {
        for bins in [1, 3, 256, 4096] {
            let luma = reference::synthetic_luma12(641 * 7);
            let values = quantised_luma(641 * 7, bins).unwrap();
            assert_eq!(values, reference::quantise(&luma, bins), "bins {bins}");
            let counted = histogram_of(641 * 7, bins);
            assert_eq!(counted, reference::histogram(&values, bins), "bins {bins}");
            assert_eq!(counted.iter().map(|&c| u64::from(c)).sum::<u64>(), 641 * 7);
        }
        // Across the counting chunks of a large frame, the same as counting once.
        let pixels = (1 << 20) * 3 + 17;
        assert_eq!(histogram_of(pixels, 97), reference::histogram(&quantised_luma(pixels, 97).unwrap(), 97));
    }

    #[test]
    fn frames_beyond_the_32_bit_bins_are_refused() {
        assert_eq!(check_frame(Frame { width: 65535, height: 65536 }), Ok(()));
        assert!(
            check_frame(Frame { width: 65536, height: 65536 })
                .unwrap_err()
                .contains("count at most 4294967295")
        );
    }

    #[test]
    fn every_shape_is_named_by_its_entry() {
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
        for shape in &SHAPES {
            assert_eq!(shape_of_entry(shape.entry), Some(shape));
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
        assert_eq!(
            detail(spread, 4096),
            "Kernel: histogram_x8k2c (16-byte vector loads, 2 a thread a trip, 2 copies of the bins a block (one per lane)), \
             histogram of 4096 bins, 32768 B of dynamic shared memory per block; bins zeroed before each launch, outside the timed interval"
        );
        assert_eq!(
            detail(&SHAPES[0], 1000),
            "Kernel: histogram of 1000 bins, 4000 B of dynamic shared memory per block; bins zeroed before each launch, outside the timed interval"
        );
    }

    #[cfg(feature = "mock")]
    #[test]
    fn the_emulation_follows_the_kernels_loops_and_checks_their_accesses() {
        use emulation::count_by_threads;
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
}
