/*!
The commands layer: what `block-size` and its subcommands do, as typed requests. Each module holds
its options (a plain struct, validated here, not by a command-line parser), its run on a device,
and its report. The `block-size` CLI parses its command line into these and calls them; the
sweep of a kernel of your own goes through the same sweep ([`sweep`]).

Here: [`KernelChoice`], which of this repository's kernels a subcommand measures and over what
frame, and the defaults of the options several subcommands share; and each subcommand's entry
point, as the CLI calls it.
*/

pub(crate) mod compare;
pub(crate) mod diff;
pub(crate) mod job;
pub(crate) mod occupancy;
pub(crate) mod report;
pub(crate) mod settings;
pub(crate) mod sweep;
pub(crate) mod tail;
pub(crate) mod variants;

use crate::error::{Error, exit};
use crate::kernel::workload::{self, KernelSpec, Params};
use crate::model::frame_size::FrameSize;

/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
/// The default frame's height (4K).
pub const DEFAULT_HEIGHT: u32 = 2160;
/// Timed samples per row where a subcommand takes a fixed count: `block_size.cu`'s ten.
pub const DEFAULT_RUNS: u32 = 10;
/// Histogram bins unless `--bins` says otherwise.
pub const DEFAULT_BINS: u32 = workload::histogram::DEFAULT_BINS;
/// The most histogram bins (`--bins`): 16 KiB of shared memory a block.
pub const MAX_BINS: u32 = workload::histogram::MAX_BINS;

/// This repository's kernels, by name, each with its one-line description: what `--kernel`
/// takes (the first is the default).
pub fn kernels() -> impl Iterator<Item = (&'static str, &'static str)> {
    workload::KERNELS.iter().map(|spec| (spec.name, spec.about))
}

/// Which of this repository's kernels a run measures (`--kernel`, `--bins`) and over what
/// frame (`--width`, `--height`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelChoice {
    /// The kernel's name ([`kernels`]): `grayscale` by default.
    pub kernel: String,
    /// `--bins`: histogram bins, each 1 to [`MAX_BINS`] (the histogram's alone; empty:
    /// [`DEFAULT_BINS`]). One value for every command; several are an axis of the sweep
    /// ([`crate::commands::SweepRequest`]).
    pub bins: Vec<u32>,
    /// `--width`: the frame's width in pixels, at least 1.
    pub width: u32,
    /// `--height`: the frame's height in pixels, at least 1.
    pub height: u32,
}

impl Default for KernelChoice {
    fn default() -> Self {
        Self {
            kernel: workload::KERNELS[0].name.to_string(),
            bins: Vec::new(),
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
        }
    }
}

/// A [`KernelChoice`] that holds: the kernel, and what its workload is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chosen {
    pub spec: &'static KernelSpec,
    pub params: Params,
}

impl KernelChoice {
    /// The frame it names.
    pub fn frame(&self) -> FrameSize {
        FrameSize::new(self.width, self.height)
    }

    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.chosen().map(|_| ())
    }

    pub(crate) fn chosen(&self) -> Result<Chosen, Error> {
        if self.bins.len() > 1 {
            return Err(Error::new(
                exit::USAGE,
                "--bins takes one value here; several are an axis of the sweep alone (block-size --bins 256,4096)",
            ));
        }
        self.check(self.bins.first().copied()).map_err(|message| Error::new(exit::USAGE, message))
    }

    /// The kernel at each of `--bins` (one, the default's, where none is given), each checked.
    pub(crate) fn chosen_at_each_bins(&self) -> Result<Vec<Chosen>, Error> {
        let bins: Vec<Option<u32>> =
            if self.bins.is_empty() { vec![None] } else { self.bins.iter().copied().map(Some).collect() };
        if let Some(twice) = crate::commands::settings::first_repeat(&self.bins) {
            return Err(Error::new(exit::USAGE, format!("--bins lists {twice} twice")));
        }
        bins.into_iter()
            .map(|bins| self.check(bins).map_err(|message| Error::new(exit::USAGE, message)))
            .collect()
    }

    fn check(&self, bins: Option<u32>) -> Result<Chosen, String> {
        let spec = workload::spec(&self.kernel).ok_or_else(|| {
            let names: Vec<&str> = kernels().map(|(name, _)| name).collect();
            format!("there is no kernel `{}`; the kernels: {}", self.kernel, names.join(", "))
        })?;
        for (option, value) in [("--width", self.width), ("--height", self.height)] {
            if value == 0 {
                return Err(format!("{option} must be at least 1, not 0"));
            }
        }
        if bins.is_some() && !spec.options.contains(&"bins") {
            let readers: Vec<&str> = workload::KERNELS
                .iter()
                .filter(|other| other.options.contains(&"bins"))
                .map(|other| other.name)
                .collect();
            return Err(format!(
                "--bins does not apply to --kernel {}; it is an option of --kernel {}",
                spec.name,
                readers.join(", ")
            ));
        }
        let bins = bins.unwrap_or(DEFAULT_BINS);
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(format!("--bins must be 1 to {MAX_BINS}, not {bins}"));
        }
        let params = params(self.frame(), bins);
        (spec.validate)(&params)?;
        Ok(Chosen { spec, params })
    }
}

/// What a kernel's workload is built from: the frame, `bins` and no offset.
pub fn params(frame: FrameSize, bins: u32) -> Params {
    Params { frame, bins, offset: 0 }
}

pub use self::compare::{CompareRequest, DEFAULT_ROUNDS};
pub use self::diff::DiffRequest;
pub use self::occupancy::{OccupancyRequest, presets};
pub use self::report::ReportRequest;
pub use self::settings::{DEFAULT_MAX_NOISE, DEFAULT_MAX_TIME_PER_ROW, DEFAULT_MIN_RUNS, DEFAULT_WARMUPS};
pub use self::sweep::{KernelAxes, SweepRequest};
pub use self::tail::{DEFAULT_WAVES, TailRequest};
pub use self::variants::{VARIANT_BLOCK_SIZES, VariantsRequest};
pub use crate::measure::supervise::supervise;
pub use crate::measure::timing::DEFAULT_BATCH_LAUNCHES;
pub use crate::model::sm::DEFAULT_REGISTERS;
pub use crate::results::diff::{CONFIDENCE, DEFAULT_THRESHOLD, RESAMPLES, Verdict};

/// `block-size compare`.
pub fn compare<D: crate::measure::backend::Driver>(
    driver: &D,
    request: &CompareRequest,
    console: &mut crate::error::Console,
) -> Result<i32, crate::error::Error> {
    self::compare::exec(driver, request, console)
}

/// `block-size diff`, which needs no GPU: two sweeps' JSON exports compared configuration
/// by configuration. `Ok` carries the exit status: 0, or 1 with
/// [`DiffRequest::fail_if_slower`] where a configuration is SLOWER.
pub fn diff(request: &DiffRequest, console: &mut crate::error::Console) -> Result<i32, crate::error::Error> {
    self::diff::exec(request, console)
}

/// `block-size occupancy`, which needs no GPU: the calculator's tables.
pub fn occupancy(request: &OccupancyRequest) -> Result<String, crate::error::Error> {
    self::occupancy::exec(request)
}

/// `block-size report`, which needs no GPU: the HTML report of a sweep's JSON export,
/// written to [`ReportRequest::html`].
pub fn report(request: &ReportRequest) -> Result<(), crate::error::Error> {
    self::report::exec(request)
}

/// `block-size`'s sweep of one of this repository's kernels.
pub fn sweep<D: crate::measure::backend::Driver>(
    driver: &D,
    request: &SweepRequest,
    console: &mut crate::error::Console,
) -> Result<i32, crate::error::Error> {
    self::sweep::exec(driver, request, console)
}

/// `block-size tail`.
pub fn tail<D: crate::measure::backend::Driver>(
    driver: &D,
    request: &TailRequest,
    console: &mut crate::error::Console,
) -> Result<i32, crate::error::Error> {
    self::tail::exec(driver, request, console)
}

/// `block-size variants`.
pub fn variants<D: crate::measure::backend::Driver>(
    driver: &D,
    request: &VariantsRequest,
    console: &mut crate::error::Console,
) -> Result<i32, crate::error::Error> {
    self::variants::exec(driver, request, console)
}
