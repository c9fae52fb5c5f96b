// Written by block-size 0.1.0 --emit-rust: the fastest configuration of `sum_of_squares` on 1 GPU(s), each measured on that GPU.
// Axes: block size, items/thr, grid policy. Provenance per GPU above its module.

/// One launch configuration, an axis a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Threads per block.
    pub block_size: u32,
    /// `items/thr`.
    pub items_thr: u32,
    /// `grid policy`.
    pub grid_policy: &'static str,
}

// NVIDIA H200 (compute capability 9.0): median 0.0198 ms over 974 samples; 192 configurations, race search.
// Date: 2026-12-01T15:05:11Z
// Driver: 580.159.04 (CUDA 13.0)
// PTX sha256: 9e5cd385998d5cb904e8c196b2d5057cba76cf0b96313349fb8f703621a8ceed
// Command: .device/axes17/reduce-example --block-sizes 32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512,544,576,608,640,672,704,736,768,800,832,864,896,928,960,992,1024 --grids one-wave,waves:2,waves:4 --stats --provenance --max-noise 0.001 --max-time-per-row 0.2 --search race --json /tmp/tmp.IQw7YNS8kb/tight-race-1.json --emit-rust /tmp/tight-race-1.rs
#[allow(dead_code)]
pub mod nvidia_h200_sm90 {
    use super::Config;

    /// Threads per block of the fastest configuration.
    pub const BLOCK_SIZE: u32 = 352;
    /// `items/thr` of the fastest configuration.
    pub const ITEMS_THR: u32 = 4;
    /// `grid policy` of the fastest configuration.
    pub const GRID_POLICY: &str = "one-wave";
    /// The fastest configuration on this GPU.
    pub const CONFIG: Config = Config { block_size: BLOCK_SIZE, items_thr: ITEMS_THR, grid_policy: GRID_POLICY };
}

/// Threads per block of the fastest configuration on the first GPU, NVIDIA H200.
pub const BLOCK_SIZE: u32 = nvidia_h200_sm90::BLOCK_SIZE;
/// `items/thr` of the fastest configuration on the first GPU.
pub const ITEMS_THR: u32 = nvidia_h200_sm90::ITEMS_THR;
/// `grid policy` of the fastest configuration on the first GPU.
pub const GRID_POLICY: &str = nvidia_h200_sm90::GRID_POLICY;

/// The fastest configuration on the first GPU, NVIDIA H200: the one to fall back to.
pub const MEASURED: Config = nvidia_h200_sm90::CONFIG;

/// The measured configuration for a GPU, by its name as the driver reports it and its
/// compute capability: that GPU's winner where it was measured, `None` on any other
/// (measure it there, or fall back to [`MEASURED`]).
pub fn config_for(device_name: &str, compute_capability: (u32, u32)) -> Option<Config> {
    match (device_name, compute_capability) {
        ("NVIDIA H200", (9, 0)) => Some(nvidia_h200_sm90::CONFIG),
        _ => None,
    }
}
