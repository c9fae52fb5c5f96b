/*!
The histogram workload: a 16-bit plane of quantised luma in, `bins` 32-bit counters out
(`kernels/src/lib.rs`'s `histogram`, twin of `kernels/cuda/histogram.cu`). Every block counts
into private bins in dynamic shared memory, `bins * 4` bytes of it per block whatever its size,
so `--bins` and the block size together decide how many blocks fit on an SM.

The input is the 12-bit integer luma of the synthetic frame, computed on the host and
quantised to bins ([`mod@reference`]); the check is exact: every bin equals the
CPU histogram, and the bins add up to the pixel count. The kernel adds to its counters, so
the launch zeroes them before every launch, outside the timed interval, and each check sees
one pass. A pass reads 2 bytes a pixel; GB/s counts those (the bins' atomics are not
counted).
*/

pub mod reference;

use self::reference::{LUMA_LEVELS, luma12};
use super::{
    Footprint, KernelSpec, Mismatch, Params, Pass, Workload, as_bytes, as_bytes_mut, host_vec, read_values,
    write_values,
};
use crate::backend::{BufferId, EmulatedMemory, Gpu, KernelArg, Launch};

pub use self::reference::MAX_BINS;
use crate::ptx;
use anyhow::{Result, bail, ensure};
use rayon::prelude::*;

/// Bins without `--bins`: one per 8-bit luma level.
pub const DEFAULT_BINS: u32 = 256;

/// Value `--corrupt-pixel` writes into a bin: no frame this program accepts has that many
/// pixels.
pub const CORRUPT_COUNT: u32 = u32::MAX;

/// Bytes of the luma the kernel reads per pixel.
const LUMA_BYTES: u64 = 2;

/// The histogram kernel, `--kernel histogram`.
pub static KERNEL: KernelSpec = KernelSpec {
    name: "histogram",
    about: "luma histogram with per-block bins in dynamic shared memory (--bins x 4 bytes a block)",
    entry: reference::KERNEL_NAME,
    entries: &[reference::KERNEL_NAME],
    modules: &[ptx::RUST_CUDA, ptx::HISTOGRAM_NVCC],
    baseline: ptx::HISTOGRAM_NVCC,
    options: &["bins"],
    validate,
    outputs: |params| (u64::from(params.bins), format!("{}-bin histogram", params.bins)),
    footprint,
    dynamic_shared_memory: |params, _| reference::dynamic_shared_bytes(params.bins),
    pass,
    create: |params| Ok(Box::new(HistogramWorkload::new(params)?)),
    emulate,
};

/// 1 to 4096 bins; at most `u32::MAX` pixels, so that no bin can wrap.
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
    Ok(())
}

/// The luma plane and the bins, on the device and on the host.
fn footprint(params: &Params) -> Footprint {
    let bins = 4 * u64::from(params.bins);
    let luma = params.frame.bytes(LUMA_BYTES);
    Footprint {
        device_bytes: luma.and_then(|luma| luma.checked_add(bins)),
        device_what: "its luma plane and bins",
        host_bytes: luma.and_then(|luma| luma.checked_add(3 * bins)),
        host_what: "the luma plane, the CPU histogram and the bins read back",
    }
}

fn pass(params: &Params) -> Pass {
    let shared = reference::dynamic_shared_bytes(params.bins.clamp(1, MAX_BINS));
    Pass {
        kernel: KERNEL.name,
        frame: params.frame,
        bytes_per_pass: params.frame.bytes_f64(LUMA_BYTES),
        bytes_counted: "of 16-bit luma read per pass (GB/s counts these bytes)",
        detail: Some(format!(
            "Kernel: histogram of {} bins, {shared} B of dynamic shared memory per block; bins zeroed before each launch, outside the timed interval",
            params.bins
        )),
        items: None,
    }
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
    pass: Pass,
    buffers: Option<Buffers>,
}

impl HistogramWorkload {
    /// The quantised luma of the synthetic frame of `params` and its CPU histogram.
    pub fn new(params: &Params) -> Result<Self> {
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
            pass: pass(params),
            buffers: None,
        })
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
        reference::dynamic_shared_bytes(self.bins)
    }

    fn upload(&mut self, gpu: &mut dyn Gpu) -> Result<()> {
        let luma = gpu.alloc_and_upload(as_bytes(&self.values))?;
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
                KernelArg::Buffer(luma, 0),
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

/// Adds each value below `bins` to its bin, as the kernel's atomics do (wrapping at 2^32);
/// a launch without the `bins * 4` bytes of dynamic shared memory the kernel indexes is an
/// error, as it would be an out-of-bounds access on a GPU.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [luma, hist, pixels, bins] = launch.args.as_slice() else {
        bail!("the histogram kernel takes four arguments, not {}", launch.args.len());
    };
    let (pixels, bins) = (pixels.as_usize()?, bins.as_u32()?);
    ensure!(
        u64::from(launch.dynamic_shared_memory) >= 4 * u64::from(bins),
        "the histogram of {bins} bins was launched with {} B of dynamic shared memory per block, not {}",
        launch.dynamic_shared_memory,
        4 * u64::from(bins)
    );
    let values = super::view_values::<u16>(memory.at(luma)?, pixels)?;
    let mut counts = read_values::<u32>(memory.at(hist)?, bins as usize)?;
    for (count, add) in counts.iter_mut().zip(reference::histogram(&values, bins)) {
        *count = count.wrapping_add(add);
    }
    if let Some(count) = fault.and_then(|bin| counts.get_mut(bin)) {
        *count = count.wrapping_add(1);
    }
    write_values(memory.at_mut(hist)?, &counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Timing;
    use crate::mock::MockGpu;

    const ONCE: Timing = Timing::launch(2, 3);

    fn uploaded(width: u32, height: u32, bins: u32) -> (MockGpu, HistogramWorkload) {
        let mut gpu = MockGpu::h200_with(&[KERNEL.rust_kernel()]);
        let mut workload = HistogramWorkload::new(&Params { bins, ..Params::frame(width, height) }).unwrap();
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
            let workload = HistogramWorkload::new(&Params { bins, ..Params::frame(641, 7) }).unwrap();
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
        let pass = pass(&Params::frame(3840, 2160));
        assert_eq!(pass.bytes_per_pass, 16_588_800.0);
    }
}
