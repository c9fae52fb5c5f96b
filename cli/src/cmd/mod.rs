/*!
The subcommands, one module each: its arguments (clap derive) and how they become the
library's request. With no subcommand, `block-size` sweeps ([`sweep`]). [`new`] writes a
project of your own instead.
*/

pub mod compare;
pub mod diff;
pub mod merge;
pub mod new;
pub mod occupancy;
pub mod report;
pub mod sweep;
pub mod tail;
pub mod variants;
