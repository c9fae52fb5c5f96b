/*!
The option groups of this repository's kernels that the subcommands flatten in (`--kernel`,
`--bins`, `--width`, `--height`), each turned into `block-size-builtin`'s kernel choice. The
options of the commands themselves, for any kernel, are the library's
(`block_size_runner::SweepArgs` and its siblings), which a program of your own takes alike.
*/

use block_size_builtin::{DEFAULT_HEIGHT, DEFAULT_WIDTH, KERNELS, KernelChoice};
use clap::Args;
use clap::builder::PossibleValuesParser;

// `--kernel` and `--bins`: which of this repository's kernels a sweep, a comparison or `tail`
// measures.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    doc,
    doc = "`--kernel`, `--bins`, `--width` and `--height`: a kernel of this repository and its frame."
)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct KernelArgs {
    #[arg(
        long,
        value_name = "NAME",
        value_parser = PossibleValuesParser::new(KERNELS.map(|(name, _)| name)),
        default_value = KERNELS[0].0,
        help = kernel_help(),
    )]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: String,

    /// Histogram bins, 1 to 4096 (--kernel histogram only) [default: 256]: 4 bytes of dynamic
    /// shared memory each per block, so more bins fit fewer blocks on an SM (4096 bins: 16 KiB);
    /// in a sweep a list (256,4096) is an axis, a column of the table
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_delimiter = ',')]
    pub bins: Vec<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,
}

/// `--kernel`'s help: every kernel with its line.
fn kernel_help() -> String {
    let about: Vec<String> = KERNELS.iter().map(|(name, about)| format!("{name}: {about}")).collect();
    format!("The kernel measured; {}", about.join("; "))
}

impl KernelArgs {
    /// The kernel choice.
    pub fn choice(&self) -> KernelChoice {
        KernelChoice {
            kernel: self.kernel.clone(),
            bins: self.bins.clone(),
            width: self.frame.width,
            height: self.frame.height,
        }
    }
}

// `--width` and `--height`: the frame every device subcommand measures over.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--width` and `--height`: the frame every device subcommand measures over.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct FrameArgs {
    /// Frame width, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "PIXELS", default_value_t = DEFAULT_WIDTH)]
    pub width: u32,

    /// Frame height, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "PIXELS", default_value_t = DEFAULT_HEIGHT)]
    pub height: u32,
}
