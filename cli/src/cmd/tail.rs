//! `block-size tail`: what a partial last wave costs.

use crate::args::{DeviceArgs, KernelArgs, ProvenanceArgs, TimingArgs};
use block_size_builtin::TailRequest;
use block_size_builtin::requests::{DEFAULT_TAIL_BLOCK_SIZE, DEFAULT_WAVES};
use block_size_runner::{DeviceChoice, Settings};
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
    #[arg(long, value_name = "THREADS", default_value_t = DEFAULT_TAIL_BLOCK_SIZE)]
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
            settings: Settings {
                device: DeviceChoice::One(self.device.device),
                block_sizes: vec![self.block_size],
                timing: self.timing.settings(),
                provenance: self.provenance.provenance,
                command,
                ..Settings::default()
            },
            waves: self.waves.clone(),
        }
    }
}
