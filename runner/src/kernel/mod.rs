/*!
The kernel layer: the one description of a kernel the runner measures ([`Kernel`]), its axes
beyond the block size ([`Axis`]), its checks ([`Check`]), what its closures are given
([`LaunchShape`], [`Variant`]), and [`run`], a description being measured: its host data and buffers
behind the measuring layer's `Workload`.
*/

pub mod axes;
mod check;
mod description;
pub(crate) mod run;
mod shape;

pub use self::axes::Axis;
pub use self::check::{Agreement, Check, Values};
pub use self::description::{Arg, Element, Kernel, Readback};
pub use self::shape::{LaunchShape, Variant};
