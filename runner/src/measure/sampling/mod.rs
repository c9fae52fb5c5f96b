//! How a configuration is sampled: the timing modes and their schedules, one checked row of a
//! description being measured, and where a run's wall time went.

pub mod checked;
pub mod timing;
pub mod wall_time;
pub mod workload;
