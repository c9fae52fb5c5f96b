/*!
The mock's sensors: an SM clock read from a script, and an energy counter that steps as NVML's
does, integrating a scripted power over the mock GPU's busy time. The mock's GPU runs its
launches one after another from when each is enqueued ([`MockSensors::run`]), so a host that
reads the counter while launches are queued sees it advance as on a GPU.
*/

use crate::measure::sensors::ClockReading;
use anyhow::Result;
use std::collections::HashMap;
use std::time::Duration;

/// A scripted clock and energy counter.
#[derive(Debug, Clone)]
pub struct MockSensors {
    /// The default applications SM clock, MHz.
    pub default_sm_mhz: u32,
    /// The SM clock readings in order; past the end, the last again. Empty: the default
    /// clock, no reason.
    pub clock_script: Vec<ClockReading>,
    /// Clock readings taken so far.
    pub clock_reads: usize,
    /// The power while launches of this many threads per block run, W; others `busy_watts`.
    pub watts: Vec<(u32, f64)>,
    /// The power while other launches run, W.
    pub busy_watts: f64,
    /// The power while the GPU runs nothing, W.
    pub idle_watts: f64,
    /// How often the energy counter steps: 100 ms, as measured on the H200.
    pub step: Duration,
    /// Host time one counter read takes: 4 ms, as measured on the H200.
    pub read_cost: Duration,
    /// Counter reads so far.
    pub energy_reads: usize,
    /// When the GPU finishes what is queued.
    pub free_at: Duration,
    /// Busy intervals: (start s, end s, W).
    pub busy: Vec<(f64, f64, f64)>,
    /// When the GPU reaches each event recorded.
    pub events: HashMap<usize, Duration>,
}

impl Default for MockSensors {
    /// An H200-like GPU: 1980 MHz, 80 W idle, 450 W busy, a 100 ms counter read in 4 ms.
    fn default() -> Self {
        Self {
            default_sm_mhz: 1980,
            clock_script: Vec::new(),
            clock_reads: 0,
            watts: Vec::new(),
            busy_watts: 450.0,
            idle_watts: 80.0,
            step: Duration::from_millis(100),
            read_cost: Duration::from_millis(4),
            energy_reads: 0,
            free_at: Duration::ZERO,
            busy: Vec::new(),
            events: HashMap::new(),
        }
    }
}

impl MockSensors {
    /// A launch of `ms` at `threads_per_block`, enqueued at host time `now`.
    pub(super) fn run(&mut self, now: Duration, ms: f32, threads_per_block: u32) {
        let start = self.free_at.max(now);
        self.free_at = start + Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3);
        let watts = self
            .watts
            .iter()
            .find(|(threads, _)| *threads == threads_per_block)
            .map_or(self.busy_watts, |w| w.1);
        let (start, end) = (start.as_secs_f64(), self.free_at.as_secs_f64());
        match self.busy.last_mut() {
            Some(last) if last.1 == start && last.2 == watts => last.1 = end,
            _ => self.busy.push((start, end, watts)),
        }
    }

    /// Event `event` recorded behind what is queued.
    pub(super) fn record(&mut self, event: usize) {
        self.events.insert(event, self.free_at);
    }

    /// When the GPU reaches event `event`.
    pub(super) fn reached(&self, event: usize) -> Option<Duration> {
        self.events.get(&event).copied()
    }

    pub(super) fn clock_reading(&mut self) -> Result<ClockReading> {
        let reading = self
            .clock_script
            .get(self.clock_reads.min(self.clock_script.len().saturating_sub(1)))
            .copied()
            .unwrap_or(ClockReading { sm_mhz: self.default_sm_mhz, reasons: 0 });
        self.clock_reads += 1;
        Ok(reading)
    }

    /// The counter as read at host time `now`: the energy up to its last step, mJ.
    pub(super) fn counter_mj(&mut self, now: Duration) -> u64 {
        self.energy_reads += 1;
        let step = self.step.as_secs_f64();
        let at = (now.as_secs_f64() / step).floor() * step;
        let extra: f64 = self
            .busy
            .iter()
            .map(|&(start, end, watts)| (watts - self.idle_watts) * (end.min(at) - start).max(0.0))
            .sum();
        ((self.idle_watts * at + extra) * 1e3) as u64
    }
}
