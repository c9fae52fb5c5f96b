/*!
The subcommands, one module each: its options (clap derive) and their validation, its run on a
device, and its report. [`crate::cli`] puts them under one parser; the sweep's options are the
top level's own, so `block-size --width ...` sweeps.

Here: the option groups several subcommands flatten in ([`KernelArgs`], [`FrameArgs`],
[`DeviceArgs`], [`ProvenanceArgs`]), the seed's defaults, and the checks every list of block
sizes gets. [`device`] holds the steps every run on a GPU shares: open, load, validate, gather
its provenance, and the console and exit statuses it ends with.
*/

pub mod compare;
pub mod device;
pub mod occupancy;
pub mod sweep;
pub mod tail;
pub mod variants;

use crate::frame_size::FrameSize;
use crate::workload::{self, KernelSpec, Params};
use clap::builder::{PossibleValuesParser, TypedValueParser as _};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args};

/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
pub const DEFAULT_HEIGHT: u32 = 2160;
pub const DEFAULT_WARMUPS: u32 = 3;
pub const DEFAULT_RUNS: u32 = 10;

/// Which options the command line itself gave, as opposed to their defaults: a kernel-specific
/// option given for a kernel that does not read it is an error, not silently ignored.
#[derive(Clone, Copy)]
pub struct Given<'a>(pub Option<&'a ArgMatches>);

impl Given<'_> {
    /// Whether option `id` was on the command line.
    pub fn contains(&self, id: &str) -> bool {
        self.0.is_some_and(|matches| {
            matches.try_get_raw(id).is_ok() && matches.value_source(id) == Some(ValueSource::CommandLine)
        })
    }
}

// `--kernel` and `--bins`: which kernel a sweep, a comparison or `tail` measures.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
pub struct KernelArgs {
    #[arg(
        long,
        value_name = "NAME",
        value_parser = PossibleValuesParser::new(workload::KERNELS.iter().map(|spec| spec.name))
            .map(|name| workload::spec(&name).expect("clap accepts registered names only")),
        default_value = workload::KERNELS[0].name,
        help = kernel_help(),
    )]
    pub kernel: &'static KernelSpec,

    /// Histogram bins, 1 to 4096 (--kernel histogram only): 4 bytes of dynamic shared memory
    /// each per block, so more bins fit fewer blocks on an SM (4096 bins: 16 KiB a block)
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=i64::from(workload::histogram::MAX_BINS)),
        default_value_t = workload::histogram::DEFAULT_BINS
    )]
    pub bins: u32,
}

/// `--kernel`'s help: every registered kernel with its line.
fn kernel_help() -> String {
    let about: Vec<String> =
        workload::KERNELS.iter().map(|spec| format!("{}: {}", spec.name, spec.about)).collect();
    format!("The kernel measured; {}", about.join("; "))
}

impl KernelArgs {
    /// The kernel and its bins, where every kernel-specific option given is one the kernel
    /// reads.
    pub fn choice(&self, given: Given) -> Result<(&'static KernelSpec, u32), String> {
        let spec = self.kernel;
        for option in ["bins"] {
            if given.contains(option) && !spec.options.contains(&option) {
                let readers: Vec<&str> = workload::KERNELS
                    .iter()
                    .filter(|other| other.options.contains(&option))
                    .map(|other| other.name)
                    .collect();
                return Err(format!(
                    "--{option} does not apply to --kernel {}; it is an option of --kernel {}",
                    spec.name,
                    readers.join(", ")
                ));
            }
        }
        Ok((spec, self.bins))
    }
}

// `--width` and `--height`: the frame every device subcommand measures over.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameArgs {
    /// Frame width
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_WIDTH)]
    pub width: u32,

    /// Frame height
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_HEIGHT)]
    pub height: u32,
}

impl FrameArgs {
    pub fn size(self) -> FrameSize {
        FrameSize::new(self.width, self.height)
    }
}

// `--device` of the subcommands that measure one GPU.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceArgs {
    /// CUDA device ordinal
    #[arg(long, value_name = "INDEX", value_parser = clap::value_parser!(u32).range(0..), default_value_t = 0)]
    pub device: u32,
}

// `--provenance`, which every device subcommand takes.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProvenanceArgs {
    /// Print what was measured with what (PTX sha256, compilers, driver, command, date) first
    #[arg(long)]
    pub provenance: bool,
}

/// `block_sizes` if no size is listed twice.
pub fn unique_block_sizes(block_sizes: &[u32]) -> Result<Vec<u32>, String> {
    for (index, size) in block_sizes.iter().enumerate() {
        if block_sizes[..index].contains(size) {
            return Err(format!("block size {size} is listed twice in --block-sizes"));
        }
    }
    Ok(block_sizes.to_vec())
}

/// What a kernel's workload is built from: the frame, `bins` and no offset.
pub fn params(frame: FrameSize, bins: u32) -> Params {
    Params { frame, bins, offset: 0 }
}

/// clap's message without its "error: " prefix, usage block and hint: the first line.
pub fn usage_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid command line");
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// Parsing one subcommand's options on their own, for its tests.
#[cfg(test)]
pub(crate) mod testing {
    use clap::{ArgMatches, Args, Command, FromArgMatches};

    /// `args` (without the program name) parsed as the options `A` alone, with their matches;
    /// clap's refusal as its one line.
    pub fn parse<A: Args + FromArgMatches>(args: &[&str]) -> Result<(A, ArgMatches), String> {
        let command = A::augment_args(Command::new("block-size"));
        let all = std::iter::once("block-size").chain(args.iter().copied());
        let matches = command.try_get_matches_from(all).map_err(|error| super::usage_line(&error))?;
        let parsed = A::from_arg_matches(&matches).map_err(|error| super::usage_line(&error))?;
        Ok((parsed, matches))
    }
}
