//! `block-size tail`: what a partial last wave costs.

use crate::args::{DeviceArgs, KernelArgs, ProvenanceArgs, TimingArgs};
use block_size_builtin::TailRequest;
use block_size_runner::TailSettings;
use block_size_runner::commands::DEFAULT_WAVES;
use clap::{ArgAction, Args};

// The options of `block-size tail`.
#[derive(Args, Debug, Clone, PartialEq)]
#[command(
    about = "What a partial last wave costs: one block size, grids of 0.5 to 8 waves over the same frame"
)]
#[cfg_attr(doc, doc = "The options of `block-size tail`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct Tail {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    /// Threads per block, 1 to the device's maximum
    #[arg(long, value_name = "THREADS", default_value_t = 256)]
    pub block_size: u32,

    /// Grid sizes in waves (blocks/SM x SMs), comma-separated, each above 0 and at most 1000
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WAVES, action = ArgAction::Set)]
    pub waves: Vec<f64>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The timing options.")]
    pub timing: TimingArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,
}

impl Tail {
    /// The library's request, recording `command` as the command line.
    pub fn request(&self, command: Vec<String>) -> TailRequest {
        TailRequest {
            kernel: self.kernel.choice(),
            settings: TailSettings {
                device: self.device.device,
                threads_per_block: self.block_size,
                waves: self.waves.clone(),
                timing: self.timing.settings(),
                provenance: self.provenance.provenance,
                command,
            },
        }
    }
}
