//! `block-size variants`: vector loads and several pixels per thread against a copy.

use crate::args::FrameArgs;
use block_size_builtin::VariantsRequest;
use block_size_runner::VariantsArgs;
use clap::Args;

// The options of `block-size variants`: the kernel's, then those any program's `variants` takes
// (in `--help`, the kernel's sit among them: `crate::cli::build`).
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Vector loads and several pixels per thread of the grayscale kernel (or with --kernel histogram, of the histogram), in Rust and C++, against a device-to-device copy"
)]
#[cfg_attr(doc, doc = "The options of `block-size variants`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct VariantsCommand {
    /// Whose variants: grayscale (vec4, k2, k4, k8 against k1) or histogram (x4, x8, x8k2, x8k4,
    /// x8k2c, x8k4c against k1; GB/s counts the luma read)
    #[arg(long, value_name = "KERNEL", default_value = "grayscale", value_parser = ["grayscale", "histogram"])]
    pub kernel: String,

    /// Histogram bins, 1 to 4096 (--kernel histogram only) [default: 256]
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub bins: Option<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    /// Start every plane this many floats (the histogram's luma: pixels) past a 16-byte
    /// boundary, 0 to 1024 (grayscale 1-3, histogram 1-7: misaligned vectors)
    #[arg(long, allow_negative_numbers = true, value_name = "FLOATS", default_value_t = 0)]
    pub offset: u64,

    #[command(flatten)]
    #[cfg_attr(
        doc,
        doc = "`--device`, `--block-sizes`, `--warmups`, `--runs`, `--timing`, `--provenance`, `--counters`."
    )]
    pub variants: VariantsArgs,
}

/// `block-size variants --help`'s order of the options: the kernel's and the frame's among
/// those of any program's `variants`, as they always were.
pub(crate) const HELP_ORDER: [&str; 12] = [
    "device",
    "kernel",
    "bins",
    "width",
    "height",
    "block_sizes",
    "warmups",
    "runs",
    "timing",
    "offset",
    "provenance",
    "counters",
];

impl VariantsCommand {
    /// The library's request.
    pub fn request(&self) -> VariantsRequest {
        VariantsRequest {
            kernel: self.kernel.clone(),
            bins: self.bins,
            width: self.frame.width,
            height: self.frame.height,
            offset: self.offset,
            options: self.variants.clone(),
        }
    }
}
