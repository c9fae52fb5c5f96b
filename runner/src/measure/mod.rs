/*!
The measure layer: the GPU behind a trait and everything around one measured launch. The
backend ([`backend`]: [`backend::Driver`], [`backend::Gpu`]) with cust's implementation
([`cuda`]) and the CPU stand-in ([`mock`], tests only); the embedded PTX ([`ptx`], [`stamp`]) and
whether a driver loads it ([`compat`]); opening a device and checking a request against it
([`device`]); timing ([`timing`]) and a checked measurement ([`checked`]); the bound on every GPU
wait ([`watchdog`]), signals ([`interrupt`]), the supervised worker ([`supervise`]) and the
journal of finished configurations ([`journal`]); progress on the terminal ([`progress`]), the
run's provenance ([`provenance`]) and where its wall time went ([`wall_time`]).
*/

pub mod backend;
pub mod checked;
pub mod compat;
pub mod cuda;
pub mod device;
pub mod interrupt;
pub mod journal;
pub mod memory;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
pub mod nvml;
pub mod progress;
pub mod provenance;
pub mod ptx;
pub mod sensors;
// The provenance stamp, shared with the PTX builders and the repository tests (stamp/): the
// same file, linked in, so this crate packages without a path dependency.
#[allow(dead_code)]
pub mod stamp;
pub mod supervise;
pub mod timing;
pub mod wall_time;
pub mod watchdog;
pub mod workload;
