/*!
What a GPU's sensors say while a row runs: the SM clock, the reasons the driver gives for
holding it down, and the energy counter. Read through NVML on a GPU ([`crate::measure::sensors::nvml`])
and scripted on the mock, behind one trait ([`Sensors`]), so the rules here (what counts as a
throttled sample, how an energy window is read) are tested on the CPU. Nothing here changes a
GPU's settings: no clock is locked, no power limit set.

- **Clock**: one reading after each chunk of samples ([`crate::measure::sampling::checked::sample`]).
  A chunk read throttled ([`throttled`]: a power or thermal reason set, or the SM clock below
  [`THROTTLE_FRACTION`] of the default) is dropped and re-taken while the row's time budget
  lasts, and counted on the row ([`RowClock::throttled_samples`]).
- **Energy** (`--energy`): NVML's total energy counter (millijoules since the driver loaded,
  Volta and newer) advances in steps: every 100 ms on the H200 (measured, evidence/). A row's
  energy is read over a window of whole steps while the GPU runs nothing but the row's
  launches back to back ([`crate::measure::sampling::checked::energy`]): the counter's value at one step
  and at a later one, at least the window apart, over the time between them gives the mean
  watts; joules per pass are those watts times the row's median time.
*/

pub mod nvml;

use serde::{Deserialize, Serialize};

/// The SM clock and the driver's reasons for it, at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockReading {
    /// The SM clock, MHz.
    pub sm_mhz: u32,
    /// NVML's clock event reasons (`nvmlClocksEventReason*`, formerly throttle reasons), as
    /// its bit mask.
    pub reasons: u64,
}

/// A device's sensors.
pub trait Sensors {
    /// The SM clock and its reasons now.
    fn clock(&mut self) -> anyhow::Result<ClockReading>;
    /// The energy counter now, in millijoules.
    fn energy_mj(&mut self) -> anyhow::Result<u64>;
    /// The SM clock a row is expected to run at: the default applications clock (on the
    /// H200 1980 MHz, its maximum).
    fn default_sm_mhz(&self) -> u32;
}

/// A sample whose SM clock is below this fraction of the default is throttled: nvbench's rule.
pub const THROTTLE_FRACTION: f64 = 0.75;

/// The reasons that mark a sample throttled, with their names: power and thermal limits and
/// the hardware slowdowns. Not among them: the GPU idle (the clock drops between samples),
/// the applications clock setting and the display clock (settings, not events of the run),
/// sync boost.
pub const THROTTLE_REASONS: [(u64, &str); 5] = [
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
];

/// Why `reading` is throttled, where it is: the throttling reasons' names joined by `+`, or
/// `sm_clock_below_75_percent` where none is set but the clock is below
/// [`THROTTLE_FRACTION`] of `default_sm_mhz`.
pub fn throttled(reading: ClockReading, default_sm_mhz: u32) -> Option<String> {
    let names: Vec<&str> = THROTTLE_REASONS
        .iter()
        .filter(|(bit, _)| reading.reasons & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    if !names.is_empty() {
        return Some(names.join("+"));
    }
    (f64::from(reading.sm_mhz) < THROTTLE_FRACTION * f64::from(default_sm_mhz))
        .then(|| "sm_clock_below_75_percent".to_string())
}

/// The SM clock of a row's samples, as the exports write it (`sm_clock`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RowClock {
    /// The median reading over the samples kept, MHz.
    pub median_mhz: u32,
    /// The lowest reading over the samples kept, MHz.
    pub min_mhz: u32,
    /// Readings taken (one a chunk of samples).
    pub readings: u32,
    /// Samples taken while throttled: re-taken while the row's budget lasted, kept (and
    /// counted here still) once it ran out.
    pub throttled_samples: u32,
    /// Why they were throttled ([`throttled`]'s names), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// A row's energy, as the exports write it (`energy`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowEnergy {
    /// Joules one pass takes: the window's mean watts times the row's median time.
    pub joules_per_pass: f64,
    /// The mean power over the window, W.
    pub watts: f64,
    /// The window's length between its two counter steps, s.
    pub window_s: f64,
}

impl RowClock {
    /// The clock of a row from its kept readings (one per chunk, each weighted by the samples
    /// it covers) and its throttled samples.
    pub fn of(kept: &[(ClockReading, usize)], throttled_samples: u32, reasons: Vec<String>) -> Option<Self> {
        let mut weighted: Vec<u32> = kept
            .iter()
            .flat_map(|(reading, samples)| std::iter::repeat_n(reading.sm_mhz, (*samples).max(1)))
            .collect();
        if weighted.is_empty() && throttled_samples == 0 {
            return None;
        }
        weighted.sort_unstable();
        Some(Self {
            median_mhz: weighted.get(weighted.len() / 2).copied().unwrap_or(0),
            min_mhz: weighted.first().copied().unwrap_or(0),
            readings: kept.len() as u32,
            throttled_samples,
            reasons,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_power_or_thermal_reason_or_a_low_clock_throttles_and_idle_does_not() {
        let at = |sm_mhz, reasons| ClockReading { sm_mhz, reasons };
        assert_eq!(throttled(at(1980, 0), 1980), None);
        assert_eq!(throttled(at(1980, 0x1), 1980), None, "gpu idle is no throttle");
        assert_eq!(throttled(at(1485, 0x2), 1980), None, "75 percent exactly is not below it");
        assert_eq!(throttled(at(1484, 0), 1980).as_deref(), Some("sm_clock_below_75_percent"));
        assert_eq!(
            throttled(at(1980, 0x4 | 0x40), 1980).as_deref(),
            Some("sw_power_cap+hw_thermal_slowdown")
        );
    }

    #[test]
    fn the_row_clock_weighs_each_reading_by_its_samples() {
        let at = |sm_mhz| ClockReading { sm_mhz, reasons: 0 };
        let clock =
            RowClock::of(&[(at(1980), 10), (at(1700), 1), (at(1965), 10)], 2, vec!["hw_slowdown".into()]);
        assert_eq!(
            clock,
            Some(RowClock {
                median_mhz: 1965,
                min_mhz: 1700,
                readings: 3,
                throttled_samples: 2,
                reasons: vec!["hw_slowdown".into()]
            })
        );
        assert_eq!(RowClock::of(&[], 0, Vec::new()), None);
    }
}
