/*!
The `block-size` command line: one clap parser ([`cli`]) over the subcommands of [`cmd`], each
of which holds its arguments and turns them into the library's typed request; the library
(`block-size-runner`) validates and runs it. [`app`] wires them together for the binaries.

[`SweepArgs`] is the sweep's options as `block-size` takes them, for a program of your own
that sweeps its kernel with the library: flatten it into your clap parser and hand
[`SweepArgs::settings`] to `block_size_runner::sweep_and_print`. [`CompareArgs`] and
[`TailArgs`] are the same for its `compare` and `tail` subcommands, less the choice of
kernel.
*/

#![warn(missing_docs)]

pub mod app;
pub mod args;
pub mod cli;
pub mod cmd;

pub use crate::args::{CompareArgs, SweepArgs, TailArgs};
