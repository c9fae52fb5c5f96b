//! The GPU behind a trait: the backend's traits, cust's implementation and the CPU stand-in, the
//! embedded PTX and whether a driver loads it, and opening a device and checking a request
//! against it.

pub mod backend;
pub mod compat;
pub mod cuda;
pub mod device;
pub mod memory;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
pub mod ptx;
