/*!
Where a sweep's wall time goes ([`WallTime`]: the `Time:` line under `--stats`, `wall_time` in
the JSON export): opening the device (the driver's context, the PTX loaded, JIT-compiled where
the driver has not cached it), building the host data (the inputs, a reference computed once),
and within the sweep the GPU calls by what they are for, timed on the host around each call by
[`Timed`], a [`Gpu`] that passes every call on: uploads, samples (the schedules that hold a
timed sample), other launches (warm-ups, the energy window), copies back for the checks, and
sensor reads (the first opens NVML). The rest (occupancy queries, the checks on the CPU, the
journal, the search's bookkeeping) is what is left of the total.
*/

use crate::measure::gpu::backend::{BufferId, Gpu, Launch, Timing};
use crate::measure::sampling::timing::Op;
use crate::model::comparison::{ElementComparison, Mismatches};
use anyhow::Result;
use std::time::Instant;

/// Seconds of a sweep's wall time by what they went to.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct WallTime {
    /// From the start of the measurement (before the device is opened) to its end.
    pub total_s: f64,
    /// Opening the device and loading the kernels' PTX.
    pub device_s: f64,
    /// Building the host data: the inputs and what the checks compare with.
    pub host_data_s: f64,
    /// Copies to the device.
    pub upload_s: f64,
    /// The schedules that hold timed samples: the samples' launches and their events (at a
    /// fixed `--runs`, the warm-ups too: one schedule holds both).
    pub samples_s: f64,
    /// Other GPU work: warm-ups under the noise-driven stop, the energy window, zeroing the
    /// outputs before a configuration.
    pub other_launches_s: f64,
    /// Copies back for the checks on the host.
    pub download_s: f64,
    /// The checks on the GPU: the comparison kernels and what they copy back, and the first
    /// row's output kept on the device.
    #[serde(default)]
    pub device_checks_s: f64,
    /// Sensor reads (NVML started by the first).
    pub sensors_s: f64,
}

impl WallTime {
    /// What the parts do not cover: the occupancy queries, the checks on the CPU, the journal,
    /// the search's bookkeeping. Never below zero.
    pub fn rest_s(&self) -> f64 {
        let parts = self.device_s
            + self.host_data_s
            + self.upload_s
            + self.samples_s
            + self.other_launches_s
            + self.download_s
            + self.device_checks_s
            + self.sensors_s;
        (self.total_s - parts).max(0.0)
    }

    /// The `Time:` line: "Time: 1.190 s to measure: device 0.310 s, host data 0.040 s, ...",
    /// and where the copies back for the checks on the host took longer than the samples, a
    /// second line saying so and how the check moves to the GPU.
    pub fn line(&self) -> String {
        let host_checks = if self.download_s > self.samples_s {
            format!(
                "The checks on the host cost more than the samples (copies back {:.3} s): a \
                 Check::expected, the values computed once, compares each row on the GPU and copies \
                 back only a wrong row's (docs/library.md, Checks).\n",
                self.download_s
            )
        } else {
            String::new()
        };
        let time = format!(
            "Time: {:.3} s to measure: device {:.3} s (context, PTX load), host data {:.3} s, upload {:.3} s, \
             samples {:.3} s, other launches {:.3} s (warm-ups), copies back {:.3} s, checks on the GPU {:.3} s, \
             sensors {:.3} s, the rest {:.3} s.\n",
            self.total_s,
            self.device_s,
            self.host_data_s,
            self.upload_s,
            self.samples_s,
            self.other_launches_s,
            self.download_s,
            self.device_checks_s,
            self.sensors_s,
            self.rest_s()
        );
        time + &host_checks
    }
}

/// `gpu`, every call passed on, the time of the ones that move data, launch or read sensors
/// added to [`Timed::spent`].
pub(crate) struct Timed<'a> {
    inner: &'a mut dyn Gpu,
    /// The time of the calls so far (`total_s`, `device_s`, `host_data_s` left at 0).
    pub spent: WallTime,
}

impl<'a> Timed<'a> {
    pub(crate) fn new(inner: &'a mut dyn Gpu) -> Self {
        Self { inner, spent: WallTime::default() }
    }
}

/// Adds the time since `started` to `seconds`.
fn add(seconds: &mut f64, started: Instant) {
    *seconds += started.elapsed().as_secs_f64();
}

impl Gpu for Timed<'_> {
    crate::measure::gpu::backend::pass_on_gpu_queries!();

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId> {
        let started = Instant::now();
        let result = self.inner.alloc_zeroed(bytes);
        add(&mut self.spent.upload_s, started);
        result
    }
    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        let started = Instant::now();
        let result = self.inner.upload(buffer, byte_offset, bytes);
        add(&mut self.spent.upload_s, started);
        result
    }
    fn zero(&mut self, buffer: BufferId) -> Result<()> {
        let started = Instant::now();
        let result = self.inner.zero(buffer);
        add(&mut self.spent.other_launches_s, started);
        result
    }
    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        let started = Instant::now();
        let result = self.inner.download(buffer, byte_offset, out);
        add(&mut self.spent.download_s, started);
        result
    }
    fn copy(&mut self, from: (BufferId, usize), to: (BufferId, usize), bytes: usize) -> Result<()> {
        let started = Instant::now();
        let result = self.inner.copy(from, to, bytes);
        add(&mut self.spent.device_checks_s, started);
        result
    }
    fn count_mismatches(
        &mut self,
        got: (BufferId, usize),
        expected: (BufferId, usize),
        count: usize,
        comparison: ElementComparison,
    ) -> Result<Option<Mismatches>> {
        let started = Instant::now();
        let result = self.inner.count_mismatches(got, expected, count, comparison);
        add(&mut self.spent.device_checks_s, started);
        result
    }
    fn row_finished(&mut self) {
        self.inner.row_finished();
    }
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        let started = Instant::now();
        let result = self.inner.time_copy(bytes, timing);
        add(&mut self.spent.samples_s, started);
        result
    }
    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        let started = Instant::now();
        let result = self.inner.time_one_launch(launch);
        add(&mut self.spent.samples_s, started);
        result
    }
    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        let started = Instant::now();
        let result = self.inner.time_launches(launch, timing);
        add(&mut self.spent.samples_s, started);
        result
    }
    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>> {
        let started = Instant::now();
        let result = self.inner.run_schedule(launch, ops);
        let samples = ops.iter().any(|op| matches!(op, Op::Sample { .. }));
        add(if samples { &mut self.spent.samples_s } else { &mut self.spent.other_launches_s }, started);
        result
    }
    fn sensors(&mut self) -> Result<&mut dyn crate::measure::sensors::Sensors, String> {
        // The read itself is the caller's, on what this returns: the first call's opening of
        // NVML is what is timed here, the one that costs.
        let started = Instant::now();
        let result = self.inner.sensors();
        add(&mut self.spent.sensors_s, started);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::fixture;

    #[test]
    fn the_calls_are_timed_by_what_they_are_for_and_the_rest_is_never_negative() {
        let mut gpu = fixture::gpu();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(4096));
        let mut timed = Timed::new(&mut gpu);
        workload.upload(&mut timed).unwrap();
        let timing = crate::measure::sampling::timing::Timing::launch(2, 5);
        let sweep =
            crate::search::sweep::run(&mut timed, workload.as_mut(), &[64, 128], timing, None).unwrap();
        let spent = timed.spent;
        assert!(spent.upload_s > 0.0 && spent.samples_s > 0.0, "{spent:?}");
        assert!(spent.other_launches_s > 0.0 && spent.download_s > 0.0, "{spent:?}");
        assert_eq!((spent.total_s, spent.device_s, spent.host_data_s), (0.0, 0.0, 0.0), "the caller's");
        assert_eq!(sweep.rows.len(), 2, "the wrapper changes nothing the sweep sees");
        assert_eq!(sweep.failures, []);
        let line = WallTime { total_s: 1.0, device_s: 0.25, samples_s: 0.5, ..WallTime::default() }.line();
        assert_eq!(
            line,
            "Time: 1.000 s to measure: device 0.250 s (context, PTX load), host data 0.000 s, upload 0.000 s, \
             samples 0.500 s, other launches 0.000 s (warm-ups), copies back 0.000 s, checks on the GPU 0.000 s, \
             sensors 0.000 s, the rest 0.250 s.\n"
        );
        assert_eq!(WallTime { total_s: 0.1, samples_s: 0.2, ..WallTime::default() }.rest_s(), 0.0);
        let copying =
            WallTime { total_s: 1.0, samples_s: 0.25, download_s: 0.5, ..WallTime::default() }.line();
        assert_eq!(
            copying.lines().nth(1),
            Some(
                "The checks on the host cost more than the samples (copies back 0.500 s): a Check::expected, \
                 the values computed once, compares each row on the GPU and copies back only a wrong row's \
                 (docs/library.md, Checks)."
            ),
            "{copying}"
        );
        let sampling =
            WallTime { total_s: 1.0, samples_s: 0.5, download_s: 0.5, ..WallTime::default() }.line();
        assert_eq!(sampling.lines().count(), 1, "copies back no longer than the samples: no second line");
    }
}
