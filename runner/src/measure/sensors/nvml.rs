/*!
The sensors of a CUDA device through NVML ([`crate::measure::sensors::Sensors`]), by
`nvml-wrapper`, which loads `libnvidia-ml.so.1` at run time: where it is missing or refuses
(no driver, a container without it, a GPU that does not report energy), [`NvmlSensors::open`]
says why in one line and the sweep goes on with `n/a`.
*/

use crate::measure::sensors::{ClockReading, Sensors};
use anyhow::{Context as _, Result};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::Clock;

/// One device's NVML handle.
pub struct NvmlSensors {
    nvml: Nvml,
    /// NVML's index of the device (NVML orders devices by PCI bus, CUDA by speed by default:
    /// found by UUID).
    index: u32,
    default_sm_mhz: u32,
}

/// `GPU-cf70adc60e1fead7c47d3ac916833ba7` as NVML spells it,
/// `GPU-cf70adc6-0e1f-ead7-c47d-3ac916833ba7`.
fn dashed(uuid: &str) -> String {
    let hex = uuid.strip_prefix("GPU-").unwrap_or(uuid);
    if hex.len() != 32 || hex.contains('-') {
        return uuid.to_string();
    }
    format!("GPU-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

impl NvmlSensors {
    /// The sensors of the CUDA device of `uuid` (`GPU-` and 32 hex digits, as
    /// `cuDeviceGetUuid` gives it). `Err`: why there are none, one line.
    pub fn open(uuid: &str) -> Result<Self, String> {
        let nvml = Nvml::init().map_err(|error| format!("NVML did not start ({error})"))?;
        let device = nvml
            .device_by_uuid(dashed(uuid).as_str())
            .map_err(|error| format!("NVML does not know the GPU {uuid} ({error})"))?;
        let index = device.index().map_err(|error| format!("NVML gave no index for {uuid} ({error})"))?;
        let default_sm_mhz = device
            .default_applications_clock(Clock::SM)
            .or_else(|_| device.max_clock_info(Clock::SM))
            .map_err(|error| format!("NVML gave no default SM clock ({error})"))?;
        device.clock_info(Clock::SM).map_err(|error| format!("NVML gave no SM clock ({error})"))?;
        Ok(Self { nvml, index, default_sm_mhz })
    }

    fn device(&self) -> Result<nvml_wrapper::Device<'_>> {
        self.nvml.device_by_index(self.index).context("NVML lost the device")
    }
}

impl Sensors for NvmlSensors {
    fn clock(&mut self) -> Result<ClockReading> {
        let device = self.device()?;
        let sm_mhz = device.clock_info(Clock::SM).context("reading the SM clock")?;
        let reasons = device.current_throttle_reasons().context("reading the clock's reasons")?.bits();
        Ok(ClockReading { sm_mhz, reasons })
    }

    fn energy_mj(&mut self) -> Result<u64> {
        self.device()?.total_energy_consumption().context("reading the energy counter")
    }

    fn default_sm_mhz(&self) -> u32 {
        self.default_sm_mhz
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cuda_uuid_is_dashed_as_nvml_spells_it() {
        assert_eq!(
            super::dashed("GPU-cf70adc60e1fead7c47d3ac916833ba7"),
            "GPU-cf70adc6-0e1f-ead7-c47d-3ac916833ba7"
        );
        assert_eq!(
            super::dashed("GPU-cf70adc6-0e1f-ead7-c47d-3ac916833ba7"),
            "GPU-cf70adc6-0e1f-ead7-c47d-3ac916833ba7"
        );
    }
}
