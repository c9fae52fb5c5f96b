/*!
Host side of the Rust block-size sweep.

The pipeline is [`cli`] (one clap parser over the subcommands of [`cmd`], each of which holds
its options, its run and its report) → [`workload`] (the kernel measured: its buffers, launch
arguments, dynamic shared memory and CPU reference; grayscale by default, or the histogram) →
[`backend::Gpu`] (the driver: occupancy, buffers, launches, events; [`cuda`] for real,
`mock::MockGpu` in tests, behind the `mock` feature) → the measuring engines ([`sweep`]: one
full wave per block size, every row checked against the workload's CPU reference; [`compare`],
[`tail`], [`variants`]) → [`report`], [`export`] and [`plot`] (functions of results alone).
[`app`] wires them together for the `block-size-cuda` binary; [`cmd::device`] loads only the
modules [`compat`] finds this driver can load.
*/

pub mod app;
pub mod backend;
pub mod checked;
pub mod cli;
pub mod cmd;
pub mod compare;
pub mod compat;
pub mod cuda;
pub mod export;
pub mod frame;
pub mod frame_size;
pub mod histogram_reference;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
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
pub mod timing;
pub mod variants;
pub mod workload;
