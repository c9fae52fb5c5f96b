/*!
One device session for every command that measures (the sweep, `compare`, `tail` and
`variants`): the device opened and the kernels loaded ([`open`]), then the request checked
against that device, the run described for its provenance, its host data built and, where the
command measures in this process at once, uploaded ([`prepare`]). Each command decides only what
differs: which kernels must load, the blocks it launches, the scratch memory it needs beside
the kernel's buffers, and whether it describes the run.
*/

use crate::error::{Console, Error, exit, failed};
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Device, Driver};
use crate::measure::gpu::device::{self, Facts};
use crate::measure::gpu::ptx::KernelRef;
use crate::measure::sampling::workload::Workload as _;
use crate::model::block_shape::BlockShape;
use std::ffi::OsString;

/// What a module the driver cannot load does to the session.
pub(crate) enum Loading<'a, 'c> {
    /// Every kernel must load: the first module left out is the session's end (exit 3, its
    /// line). The sweep and `tail`, which measure one kernel's own builds.
    Every,
    /// What loads is measured, a `Left out:` line on this console's standard error for each
    /// module that does not; none loading is exit 3. `compare` and `variants`, which measure
    /// several builds.
    WhatLoads(&'a mut Console<'c>),
}

/// The device open and the kernels loaded, in the order asked.
pub(crate) struct Opened<G> {
    /// The open device.
    pub gpu: G,
    /// The kernels that loaded.
    pub loaded: Vec<KernelRef>,
    /// Seconds the opening and loading took.
    pub open_s: f64,
}

/// Opens device `ordinal` and loads `kernels` as `loading` says.
pub(crate) fn open<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernels: &[KernelRef],
    loading: Loading,
) -> Result<Opened<D::Device>, Error> {
    let started = std::time::Instant::now();
    let device::Opened { gpu, loaded, left_out } = device::open_loading(driver, ordinal, kernels)?;
    match loading {
        Loading::Every => {
            if let Some(unloadable) = left_out.first() {
                return Err(Error::new(exit::NO_DEVICE, unloadable.to_string()));
            }
        }
        Loading::WhatLoads(console) => {
            for unloadable in &left_out {
                console.err(&format!("Left out: {unloadable}\n"));
            }
            if loaded.is_empty() {
                return Err(device::none_loadable(driver.cuda_version()));
            }
        }
    }
    Ok(Opened { gpu, loaded, open_s: started.elapsed().as_secs_f64() })
}

/// What [`prepare`] does with an open device and a run.
pub(crate) struct Preparation<'a> {
    /// The blocks the command launches, each checked against the device with its
    /// configuration's shared memory.
    pub blocks: &'a [BlockShape],
    /// Device memory the command needs beside the kernel's buffers (the L2 flush's buffers,
    /// a copy's source and destination), in bytes.
    pub scratch: u64,
    /// The kernels whose facts describe the run (its provenance), with the command line the
    /// facts name; `None`: the run is not described.
    pub describe: Option<(&'a [KernelRef], &'a [OsString])>,
    /// The CUDA version the driver reports, which the facts name.
    pub cuda_version: i32,
    /// Whether the host data is uploaded here (the sweep uploads in its measuring loop).
    pub upload: bool,
}

/// What [`prepare`] found and timed.
pub(crate) struct Prepared {
    /// The run's facts, where asked for.
    pub facts: Option<Facts>,
    /// Seconds building the host data took.
    pub host_data_s: f64,
}

/// Checks `run`'s request against the open `gpu` ([`check_device`]), gathers the facts that
/// describe it where asked, builds its host data (a host that cannot hold it is bad input, exit
/// 2, before anything is printed) and uploads it where asked.
pub(crate) fn prepare<G: Device>(
    gpu: &mut G,
    run: &mut Run,
    preparation: &Preparation,
) -> Result<Prepared, Error> {
    check_device(run, gpu, preparation.blocks, preparation.scratch)?;
    let facts = match preparation.describe {
        Some((kernels, command)) => {
            Some(Facts::gather(gpu, preparation.cuda_version, kernels, command).map_err(failed)?)
        }
        None => None,
    };
    let building = std::time::Instant::now();
    run.build().map_err(|error| Error::new(exit::USAGE, format!("{error:#}")))?;
    let host_data_s = building.elapsed().as_secs_f64();
    if preparation.upload {
        run.upload(gpu).map_err(failed)?;
    }
    Ok(Prepared { facts, host_data_s })
}

/// Checks the sweep of `run` against the open device: every block size it launches within the
/// device's limits with its configuration's dynamic shared memory, its buffers (and `scratch`
/// bytes) within free device memory, its host data within available host memory. Only the
/// configurations the restriction keeps are launched, so only they are checked; one whose
/// shared memory no block may have is pruned (a row with its reason), unless that leaves
/// nothing to launch.
pub(crate) fn check_device(
    run: &mut Run,
    gpu: &dyn Device,
    blocks: &[BlockShape],
    scratch: u64,
) -> Result<(), Error> {
    let kernel = run.kernel();
    let footprint = run.footprint();
    let mut refusal = None;
    let mut launchable = 0;
    for variant in kernel.variants() {
        let kept = kernel.kept(variant.index, blocks);
        // One check a block: those that fit, and the first refusal (a block's bytes may follow
        // its shape, Kernel::dynamic_shared_memory_by_shape).
        let mut fits: Vec<BlockShape> = Vec::with_capacity(kept.len());
        for block in kept {
            let bytes = (kernel.shared)(block, variant);
            match device::check_dynamic_shared_memory(&[block.threads()], &|_| bytes) {
                Ok(()) => fits.push(block),
                Err(why) => refusal = refusal.or(Some(why)),
            }
        }
        if fits.is_empty() {
            continue;
        }
        launchable += fits.len();
        let threads: Vec<u32> = fits.iter().map(|block| block.threads()).collect();
        // The most any fitting block of a thread count needs.
        let shared = |count: u32| {
            fits.iter()
                .filter(|block| block.threads() == count)
                .map(|&block| (kernel.shared)(block, variant))
                .max()
                .unwrap_or(0)
        };
        device::check_request(gpu, &threads, &shared, &footprint, scratch)?;
    }
    match refusal {
        Some(why) if launchable == 0 => Err(Error::new(exit::USAGE, why)),
        _ => Ok(()),
    }
}
