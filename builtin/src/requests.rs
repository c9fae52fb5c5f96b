/*!
What the `block-size` command line asks of this repository's kernels, as typed requests: which
kernel ([`KernelChoice`]: `--kernel`, `--bins`, `--width`, `--height`), its axes
([`KernelAxes`]), and the runner's options of each command ([`block_size_runner::SweepArgs`] and
its siblings). Each request checks what needs no
device ([`SweepRequest::validate`], one line, exit 2), describes its kernel with the runner's
kernel API, and runs the runner's command on it ([`SweepRequest::exec`]).
*/

use crate::frame::Frame;
use crate::grayscale::{self, SHAPES as GRAYSCALE_SHAPES};
use crate::histogram::{self, Bins, MAX_OFFSET};
use block_size_runner::{
    Axis, CompareArgs, Console, Driver, Error, Kernel, SweepArgs, TailArgs, VariantsArgs, exit,
};

/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
/// The default frame's height (4K).
pub const DEFAULT_HEIGHT: u32 = 2160;
/// Histogram bins unless `--bins` says otherwise.
pub const DEFAULT_BINS: u32 = histogram::DEFAULT_BINS;
/// The most histogram bins (`--bins`): 16 KiB of shared memory a block.
pub const MAX_BINS: u32 = histogram::reference::MAX_BINS;

/// This repository's kernels by name, each with its one-line description: what `--kernel`
/// takes, the default first.
pub const KERNELS: [(&str, &str); 9] = [
    (grayscale::NAME, "Rec. 601 luma of three float planes, one pixel per thread per trip (the default)"),
    (
        grayscale::NAME_2D,
        "the luma over rows and columns: 2-D blocks (--block-shapes, 2d by default) over a 2-D grid",
    ),
    ("histogram", "luma histogram with per-block bins in dynamic shared memory (--bins x 4 bytes a block)"),
    ("histogram_x4", "the histogram with 8-byte vector loads (4 pixels)"),
    ("histogram_x8", "the histogram with 16-byte vector loads (8 pixels)"),
    ("histogram_x8k2", "the histogram with two 16-byte vector loads a thread a trip"),
    ("histogram_x8k4", "the histogram with four 16-byte vector loads a thread a trip"),
    (
        "histogram_x8k2c",
        "histogram_x8k2 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)",
    ),
    (
        "histogram_x8k4c",
        "histogram_x8k4 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)",
    ),
];

/// Which of this repository's kernels a run measures (`--kernel`, `--bins`) and over what
/// frame (`--width`, `--height`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelChoice {
    /// The kernel's name ([`KERNELS`]): `grayscale` by default.
    pub kernel: String,
    /// `--bins`: histogram bins, each 1 to [`MAX_BINS`] (the histogram's alone; empty:
    /// [`DEFAULT_BINS`]). One value for every command; several are an axis of the sweep.
    pub bins: Vec<u32>,
    /// `--width`: the frame's width in pixels, at least 1.
    pub width: u32,
    /// `--height`: the frame's height in pixels, at least 1.
    pub height: u32,
}

impl Default for KernelChoice {
    fn default() -> Self {
        Self {
            kernel: KERNELS[0].0.to_string(),
            bins: Vec::new(),
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
        }
    }
}

/// The one line (exit 2) of bad input.
fn usage(message: String) -> Error {
    Error::new(exit::USAGE, message)
}

/// The first value of `values` that an earlier one repeats, where one does.
fn first_repeat(values: &[u32]) -> Option<u32> {
    values.iter().enumerate().find(|&(index, value)| values[..index].contains(value)).map(|(_, &value)| value)
}

impl KernelChoice {
    /// The frame it names.
    pub fn frame(&self) -> Frame {
        Frame { width: self.width, height: self.height }
    }

    /// The histogram shape it names, where it names one.
    fn histogram_shape(&self) -> Option<&'static histogram::Shape> {
        histogram::shape_of_entry(&self.kernel)
    }

    /// Every check of the choice that needs no device, and the bins it measures (one value
    /// where none is given, the default's).
    fn checked_bins(&self) -> Result<Vec<u32>, Error> {
        if !KERNELS.iter().any(|(name, _)| *name == self.kernel) {
            let names: Vec<&str> = KERNELS.iter().map(|(name, _)| *name).collect();
            return Err(usage(format!(
                "there is no kernel `{}`; the kernels: {}",
                self.kernel,
                names.join(", ")
            )));
        }
        for (option, value) in [("--width", self.width), ("--height", self.height)] {
            if value == 0 {
                return Err(usage(format!("{option} must be at least 1, not 0")));
            }
        }
        if !self.bins.is_empty() && self.histogram_shape().is_none() {
            let readers: Vec<&str> = histogram::SHAPES.iter().map(|shape| shape.entry).collect();
            return Err(usage(format!(
                "--bins does not apply to --kernel {}; it is an option of --kernel {}",
                self.kernel,
                readers.join(", ")
            )));
        }
        if let Some(twice) = first_repeat(&self.bins) {
            return Err(usage(format!("--bins lists {twice} twice")));
        }
        let bins = if self.bins.is_empty() { vec![DEFAULT_BINS] } else { self.bins.clone() };
        if let Some(bad) = bins.iter().find(|bins| !(1..=MAX_BINS).contains(*bins)) {
            return Err(usage(format!("--bins must be 1 to {MAX_BINS}, not {bad}")));
        }
        if self.histogram_shape().is_some() {
            histogram::check_frame(self.frame()).map_err(usage)?;
        }
        Ok(bins)
    }

    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.kernel().map(|_| ())
    }

    /// The kernel it names at one bins value, as `compare` and `tail` measure it.
    pub fn kernel(&self) -> Result<Kernel, Error> {
        let bins = self.checked_bins()?;
        if bins.len() > 1 {
            return Err(usage(
                "--bins takes one value here; several are an axis of the sweep alone (block-size --bins 256,4096)"
                    .to_string(),
            ));
        }
        Ok(match self.histogram_shape() {
            Some(shape) => histogram::kernel(shape, self.frame(), Bins::One(bins[0]), 0),
            None if self.kernel == grayscale::NAME_2D => grayscale::kernel_2d(self.frame(), 0),
            None => grayscale::kernel(self.frame(), 0),
        })
    }
}

/// Axes of this repository's grayscale kernel: its shapes (`block-size variants`) as axes of a
/// sweep. Each given is an axis (a column), even with one value; `--bins` with several values
/// is the histogram's ([`KernelChoice::bins`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelAxes {
    /// `--pixels-per-thread`: pixels one thread converts a loop trip, 1, 2, 4 or 8 (the entries
    /// `grayscale`, `grayscale_k2`, `grayscale_k4`, `grayscale_k8`); empty: each vector width's
    /// own (1, and 4 for a vector width of 4).
    pub pixels_per_thread: Vec<u32>,
    /// `--vector-width`: floats one load reads, 1 or 4 (16-byte vectors: `grayscale_vec4`, at 4
    /// pixels a thread alone); empty: 1.
    pub vector_width: Vec<u32>,
}

/// `block-size`'s sweep: one of this repository's kernels over a frame, with the sweep's
/// options, and its axes where there are any.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepRequest {
    /// The kernel and its frame; several `bins` are an axis.
    pub kernel: KernelChoice,
    /// The grayscale kernel's axes (`--pixels-per-thread`, `--vector-width`).
    pub axes: KernelAxes,
    /// The sweep's options: devices, block sizes, timing, grid, outputs.
    pub options: SweepArgs,
}

impl SweepRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        let kernel = self.sweep_kernel()?;
        self.options.validate_for(&kernel)
    }

    /// The sweep of the request on one device, or on every device: `Ok` carries the exit status
    /// of a run that reached its tables.
    pub fn exec<D: Driver>(&self, driver: &D, console: &mut Console) -> Result<i32, Error> {
        // The driver starts while the frame and its reference are built.
        let _device = block_size_runner::open_early(driver, &self.options);
        let kernel = self.sweep_kernel()?;
        self.options.validate_for(&kernel)?;
        Ok(block_size_runner::sweep_and_print(driver, &kernel, &self.options, console))
    }

    /// The kernel the sweep measures, with an axis for several bins and for each grayscale
    /// option given.
    pub fn sweep_kernel(&self) -> Result<Kernel, Error> {
        let bins = self.kernel.checked_bins()?;
        let KernelAxes { pixels_per_thread, vector_width } = &self.axes;
        if let Some(shape) = self.kernel.histogram_shape() {
            if !pixels_per_thread.is_empty() || !vector_width.is_empty() {
                let option =
                    if pixels_per_thread.is_empty() { "--vector-width" } else { "--pixels-per-thread" };
                return Err(usage(format!(
                    "{option} applies to --kernel grayscale alone, not --kernel {}",
                    shape.entry
                )));
            }
            let bins = if bins.len() > 1 { Bins::Axis(bins) } else { Bins::One(bins[0]) };
            return Ok(histogram::kernel(shape, self.kernel.frame(), bins, 0));
        }
        if self.kernel.kernel == grayscale::NAME_2D {
            if !pixels_per_thread.is_empty() || !vector_width.is_empty() {
                let option =
                    if pixels_per_thread.is_empty() { "--vector-width" } else { "--pixels-per-thread" };
                return Err(usage(format!(
                    "{option} applies to --kernel grayscale alone, not --kernel {}",
                    grayscale::NAME_2D
                )));
            }
            return Ok(grayscale::kernel_2d(self.kernel.frame(), 0));
        }
        let kernel = grayscale::kernel(self.kernel.frame(), 0);
        if pixels_per_thread.is_empty() && vector_width.is_empty() {
            return Ok(kernel);
        }
        for (option, values, allowed) in [
            ("--pixels-per-thread", pixels_per_thread, &[1, 2, 4, 8][..]),
            ("--vector-width", vector_width, &[1, 4][..]),
        ] {
            if let Some(bad) = values.iter().find(|value| !allowed.contains(value)) {
                let allowed: Vec<String> = allowed.iter().map(u32::to_string).collect();
                return Err(usage(format!("{option} takes {}, not {bad}", allowed.join(", "))));
            }
            if let Some(twice) = first_repeat(values) {
                return Err(usage(format!("{option} lists {twice} twice")));
            }
        }
        // The pairs of the lists that no shape has: left out, and said under the header.
        let widths = if vector_width.is_empty() { vec![1] } else { vector_width.clone() };
        let mut swept = 0;
        let mut skipped = Vec::new();
        for &width in &widths {
            let pixels = if pixels_per_thread.is_empty() { vec![width] } else { pixels_per_thread.clone() };
            for pixels in pixels {
                match grayscale::shape(width, pixels) {
                    Some(_) => swept += 1,
                    None => skipped.push(pixels.to_string()),
                }
            }
        }
        if swept == 0 {
            return Err(usage(format!(
                "no grayscale kernel has a vector width of 4 at {} pixel(s) per thread: grayscale_vec4 converts 4",
                skipped.join(", ")
            )));
        }
        let mut kernel = kernel;
        if !vector_width.is_empty() {
            kernel = kernel
                .axis(Axis::integers("vector width", vector_width.iter().map(|&width| u64::from(width))));
        }
        if !pixels_per_thread.is_empty() {
            kernel = kernel.axis(Axis::integers(
                "pixels/thr",
                pixels_per_thread.iter().map(|&pixels| u64::from(pixels)),
            ));
        }
        // A configuration's shape: its vector width (1 without the axis) at its pixels per
        // thread (the width's own without that axis).
        let shape_of = |variant: &block_size_runner::Variant| {
            let width = variant.integer("vector width").unwrap_or(1) as u32;
            let pixels = variant.integer("pixels/thr").map_or(width, |pixels| pixels as u32);
            grayscale::shape(width, pixels)
        };
        kernel = kernel
            .entry_for(move |variant| {
                shape_of(variant).map_or(GRAYSCALE_SHAPES[0].entry, |shape| shape.entry)
            })
            .restrict(move |_, variant| shape_of(variant).is_some());
        if !skipped.is_empty() {
            kernel = kernel.detail(format!(
                "Not swept: vector width 4 at {} pixel(s) per thread, which no kernel has (grayscale_vec4 converts 4)",
                skipped.join(", ")
            ));
        }
        Ok(kernel)
    }
}

/// What `block-size compare` is asked: the kernel from every compiler that builds it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompareRequest {
    /// The kernel compared and its frame.
    pub kernel: KernelChoice,
    /// `compare`'s options: the device, the block sizes, the warm-ups, `--rounds`, the
    /// provenance, the JSON file, the counters.
    pub options: CompareArgs,
}

impl CompareRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.options.validate_for(&self.kernel.kernel()?, &[])
    }

    /// The comparison and its table; `Ok` carries the exit status.
    pub fn exec<D: Driver>(&self, driver: &D, console: &mut Console) -> Result<i32, Error> {
        block_size_runner::compare(driver, &self.kernel.kernel()?, &self.options, &[], console)
    }
}

/// What `block-size tail` is asked.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TailRequest {
    /// The kernel measured and its frame.
    pub kernel: KernelChoice,
    /// `tail`'s options: the device, the one block size, `--waves` (the grids), the timing, the
    /// provenance, the counters.
    pub options: TailArgs,
}

impl TailRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.options.validate_for(&self.kernel.kernel()?)
    }

    /// The tail experiment and its table; `Ok` carries the exit status.
    pub fn exec<D: Driver>(&self, driver: &D, console: &mut Console) -> Result<i32, Error> {
        block_size_runner::tail(driver, &self.kernel.kernel()?, &self.options, console)
    }
}

/// What `block-size variants` is asked: the shapes of one kernel family.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantsRequest {
    /// `--kernel`: whose shapes, `grayscale` (the default) or `histogram`.
    pub kernel: String,
    /// `--bins`: histogram bins, 1 to 4096 (`--kernel histogram` only; 256 without it).
    pub bins: Option<u32>,
    /// `--width`: the frame's width, at least 1.
    pub width: u32,
    /// `--height`: the frame's height, at least 1.
    pub height: u32,
    /// `--offset`: elements (floats of every plane, or pixels of the luma) the input starts
    /// past a 16-byte boundary, 0 to 1024.
    pub offset: u64,
    /// `variants`' options: the device, the block sizes, the timing (its runs for the copy
    /// too), the provenance, the counters.
    pub options: VariantsArgs,
}

impl Default for VariantsRequest {
    fn default() -> Self {
        Self {
            kernel: grayscale::NAME.to_string(),
            bins: None,
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
            offset: 0,
            options: VariantsArgs::default(),
        }
    }
}

impl VariantsRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.options.validate_for(&self.shapes()?)
    }

    /// The shapes of the family as one kernel, whose axis `variant` names them.
    pub fn shapes(&self) -> Result<Kernel, Error> {
        let families = [grayscale::NAME, "histogram"];
        if !families.contains(&self.kernel.as_str()) {
            return Err(usage(format!(
                "variants measures the shapes of --kernel {}, not `{}`",
                families.join(" or "),
                self.kernel
            )));
        }
        for (option, value) in [("--width", self.width), ("--height", self.height)] {
            if value == 0 {
                return Err(usage(format!("{option} must be at least 1, not 0")));
            }
        }
        if self.offset > MAX_OFFSET as u64 {
            return Err(usage(format!("--offset must be 0 to {MAX_OFFSET}, not {}", self.offset)));
        }
        let frame = Frame { width: self.width, height: self.height };
        let offset = self.offset as usize;
        if self.kernel == grayscale::NAME {
            if self.bins.is_some() {
                return Err(usage(format!("--bins does not apply to variants of --kernel {}", self.kernel)));
            }
            return Ok(grayscale::shapes(frame, offset));
        }
        let bins = self.bins.unwrap_or(DEFAULT_BINS);
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(usage(format!("--bins must be 1 to {MAX_BINS}, not {bins}")));
        }
        histogram::check_frame(frame).map_err(usage)?;
        Ok(histogram::shapes(frame, bins, offset))
    }

    /// Every shape from both compilers, the copy ceiling, one table; `Ok` carries the exit status.
    pub fn exec<D: Driver>(&self, driver: &D, console: &mut Console) -> Result<i32, Error> {
        block_size_runner::variants(driver, &self.shapes()?, &self.options, console)
    }
}
