/*!
The measure layer: the GPU behind a trait and everything around one measured launch, one folder
a concern:

- [`gpu`]: the GPU behind a trait ([`gpu::backend`]: [`gpu::backend::Driver`],
  [`gpu::backend::Gpu`]) with cust's implementation ([`gpu::cuda`]) and the CPU stand-in
  ([`gpu::mock`], tests only); the embedded PTX ([`gpu::ptx`]) and whether a driver loads it
  ([`gpu::compat`]); opening a device and checking a request against it ([`gpu::device`],
  [`gpu::memory`]);
- [`sampling`]: the timing modes and schedules ([`sampling::timing`]), one checked row
  ([`sampling::checked`]) of a description being measured ([`sampling::workload`]), and where a
  run's wall time went ([`sampling::wall_time`]);
- [`supervision`]: the bound on every GPU wait ([`supervision::watchdog`]), signals
  ([`supervision::interrupt`]), the supervised worker ([`supervision::supervise`]) and progress on
  the terminal ([`supervision::progress`]);
- [`sensors`]: the GPU's SM clock, throttling and energy behind a trait, through NVML
  ([`sensors::nvml`]);
- [`profiler`]: each row's hardware counters, read outside the timed samples on a replay of the
  sweep under Nsight Compute ([`profiler::ncu`]);
- [`record`]: the files of record: the journal of finished configurations
  ([`record::journal`]), the run's provenance ([`record::provenance`]) and the PTX's stamp
  ([`record::stamp`]).
*/

pub mod gpu;
pub mod profiler;
pub mod record;
pub mod sampling;
pub mod sensors;
pub mod supervision;
