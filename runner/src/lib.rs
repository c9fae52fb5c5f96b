/*!
Host side of the Rust block-size sweep.

The pipeline is [`cli`] (what to sweep) → [`workload`] (the kernel measured: its buffers,
launch arguments, dynamic shared memory and CPU reference; grayscale by default, or the
histogram) → [`backend::Gpu`] (the driver: occupancy, buffers, launches, events; [`cuda`] for
real, [`backend::MockGpu`] in tests) → [`sweep`] (one full wave per block size, every row
checked against the workload's CPU reference) → [`report`] (the table of `block_size.cu`). [`app`] wires them together for the `block-size-cuda` binary, loading only
the modules [`compat`] finds this driver can load.
*/

pub mod app;
pub mod backend;
pub mod checked;
pub mod cli;
pub mod compare;
pub mod compat;
pub mod cuda;
pub mod export;
pub mod frame;
pub mod histogram_reference;
pub mod model;
pub mod occupancy;
pub mod plot;
pub mod progress;
pub mod provenance;
pub mod ptx;
pub mod report;
pub mod stats;
pub mod sweep;
pub mod tail;
pub mod variants;
pub mod workload;
