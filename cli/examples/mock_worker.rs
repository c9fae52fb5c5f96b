//! A stand-in for `block-size-cuda` in the tests of supervision (cli/tests/isolation.rs): the
//! same program on the runner's mock driver, whose faults come from the environment, so that a
//! test can run `block-size` with `BLOCK_SIZE_TEST_WORKER` pointing here and see a worker
//! fault, hang or take a signal as a GPU worker would.
//!
//! `MOCK_FAULT_AT=THREADS` (too many resources: the context survives), `MOCK_LOST_AT=THREADS`
//! (an illegal address: the context is lost), `MOCK_HANG_AT=THREADS` (the launch never
//! finishes), `MOCK_DELAY_MS=N` (every schedule takes N ms more, so a signal can arrive),
//! `MOCK_GPU_NAME=NAME` (the name the device reports, any bytes a driver could hand back),
//! `MOCK_SENSORS=1` (a clock and an energy counter, `block_size_runner::mock::MockSensors`),
//! with `MOCK_WATTS=THREADS:W,...` (the power at those block sizes; 450 W at others) and
//! `MOCK_THROTTLE=N` (the first N clock readings at 1400 MHz with the power cap set),
//! `MOCK_COUNTERS=ncu` (`--counters` read through the `ncu` that `BLOCK_SIZE_NCU` names, over a
//! replay of this program, as on a GPU) or `MOCK_COUNTERS=none:WHY` (no counters, and why),
//! `MOCK_DEVICES=N` (N such GPUs, for `--device all`), `MOCK_FAULTS_ON=ORDINAL` (the fault, loss
//! or hang above on that GPU alone) and `MOCK_GPU_NAMES=NAME,...` (each GPU's name in turn).

use block_size_cli::app;
use block_size_runner::mock::{ClockReading, MockDriver, MockFault, MockSensors};
use block_size_runner::with_stdio;

fn threads(name: &str) -> Option<u32> {
    std::env::var(name).ok().and_then(|text| text.parse().ok())
}

fn main() {
    let healthy = block_size_builtin::mock::h200_like();
    let mut gpu = healthy.clone();
    if let Some(at) = threads("MOCK_FAULT_AT") {
        gpu.fault_at = Some((at, MockFault { context_lost: false }));
    }
    if let Some(at) = threads("MOCK_LOST_AT") {
        gpu.fault_at = Some((at, MockFault { context_lost: true }));
    }
    gpu.hang_at = threads("MOCK_HANG_AT");
    gpu.delay = std::time::Duration::from_millis(threads("MOCK_DELAY_MS").unwrap_or(0).into());
    if let Some(name) = std::env::var_os("MOCK_GPU_NAME") {
        gpu.limits.name = name.to_string_lossy().into_owned();
    }
    if std::env::var_os("MOCK_SENSORS").is_some() {
        let mut sensors = MockSensors::default();
        for pair in std::env::var("MOCK_WATTS").unwrap_or_default().split(',').filter(|pair| !pair.is_empty())
        {
            let (threads, watts) = pair.split_once(':').expect("MOCK_WATTS is THREADS:W,...");
            sensors.watts.push((threads.parse().expect("threads"), watts.parse().expect("watts")));
        }
        let throttled = ClockReading { sm_mhz: 1400, reasons: 0x4 };
        sensors.clock_script = vec![throttled; threads("MOCK_THROTTLE").unwrap_or(0) as usize];
        if !sensors.clock_script.is_empty() {
            sensors.clock_script.push(ClockReading { sm_mhz: 1980, reasons: 0 });
        }
        gpu.sensors = Some(sensors);
    }
    match std::env::var("MOCK_COUNTERS").ok().as_deref() {
        Some("ncu") => gpu.counters.through_ncu = true,
        Some(other) => gpu.counters.unavailable = other.strip_prefix("none:").map(String::from),
        None => {}
    }
    let count = threads("MOCK_DEVICES").unwrap_or(1).max(1);
    let faults_on = threads("MOCK_FAULTS_ON");
    let names: Vec<String> = std::env::var("MOCK_GPU_NAMES")
        .unwrap_or_default()
        .split(',')
        .filter(|name| !name.is_empty())
        .map(String::from)
        .collect();
    let devices = (0..count)
        .map(|ordinal| {
            let mut device = match faults_on {
                Some(on) if on != ordinal => {
                    let mut device = gpu.clone();
                    (device.fault_at, device.hang_at) = (healthy.fault_at, healthy.hang_at);
                    device
                }
                _ => gpu.clone(),
            };
            if let Some(name) = names.get(ordinal as usize) {
                device.limits.name = name.clone();
            }
            device
        })
        .collect();
    let driver = MockDriver { cuda_version: 13000, devices };
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    std::process::exit(with_stdio(|console| app::main_with(&driver, &args, console)));
}
