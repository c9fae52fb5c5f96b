//! `block-size compare`: the kernel from every compiler that builds it, side by side.

use crate::args::{BlockSizesArgs, DeviceArgs, KernelArgs, ProvenanceArgs, WarmupsArgs};
use block_size_builtin::CompareRequest;
use block_size_builtin::requests::DEFAULT_ROUNDS;
use block_size_runner::{DeviceChoice, Settings, TimingSettings};
use clap::Args;

// The options of `block-size compare`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "The kernel from cuda_builder and nvcc (and, for grayscale, rustc's NVPTX backend), timed side by side in interleaved rounds"
)]
#[cfg_attr(doc, doc = "The options of `block-size compare`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct Compare {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--block-sizes`.")]
    pub block_sizes: BlockSizesArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    /// Interleaved rounds timed per block size, at least 1
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ROUNDS)]
    pub rounds: u32,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,
}

impl Compare {
    /// The library's request, recording `command` as the command line.
    pub fn request(&self, command: Vec<String>) -> CompareRequest {
        CompareRequest {
            kernel: self.kernel.choice(),
            settings: Settings {
                device: DeviceChoice::One(self.device.device),
                block_sizes: self.block_sizes.block_sizes.clone(),
                timing: TimingSettings { warmups: self.warmups.warmups, ..TimingSettings::default() },
                provenance: self.provenance.provenance,
                command,
                ..Settings::default()
            },
            rounds: self.rounds,
        }
    }
}
