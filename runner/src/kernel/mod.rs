/*!
The kernel layer: the one description of a kernel the engine measures. [`UserKernel`] describes
a kernel (its PTX and entry points, buffers, launch arguments, dynamic shared memory, what a pass
covers and moves, its checks, its [`Axis`]es beyond the block size); `workload` is what the
sweep, `compare`, `tail` and `variants` measure.
*/

pub mod axes;
mod check;
mod description;
mod shape;
pub mod workload;

pub use self::check::{Agreement, Check, ReferenceFn, Values};
pub use self::description::{Arg, Element, Readback, UserKernel};
pub use self::shape::{Shape, Variant};
