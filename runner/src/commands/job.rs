/*!
A run of one of this repository's kernels on a device: the [`Job`] (its kernel, its parameters,
its block sizes), the device opened and checked for it, its workload built.
*/

use crate::error::{Console, Error, exit};
use crate::kernel::workload::{KernelSpec, Params};
use crate::measure::backend::Device;
use crate::measure::backend::Driver;
use crate::measure::compat;
use crate::measure::device::{Opened, check_request, open_loading};
use crate::measure::ptx;
use crate::measure::workload::Workload;
use crate::model::limits::DeviceLimits;

/// What a run measures: a kernel's workload, from these parameters.
#[derive(Clone, Copy)]
pub(crate) struct Job<'a> {
    /// The kernel measured.
    pub spec: &'static KernelSpec,
    /// What its workload is built from.
    pub params: Params,
    /// Threads per block of each row.
    pub block_sizes: &'a [u32],
}

/// [`check_request`] for a run of one of this repository's kernels.
pub(crate) fn check_job(
    gpu: &dyn Device,
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
) -> Result<(), Error> {
    let Job { spec, params, block_sizes } = job;
    let scratch = scratch_bytes(gpu.limits());
    let subject = format!("a {} frame", params.frame);
    check_request(
        gpu,
        block_sizes,
        &|threads| (spec.dynamic_shared_memory)(&params, threads),
        &subject,
        &(spec.footprint)(&params),
        scratch,
    )
}

/// Opens the device for a run of one module: any module the driver cannot load stops the
/// run (exit 3) with its line; then [`check_request`].
pub(crate) fn open_one<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernel: ptx::KernelRef,
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
) -> Result<D::Device, Error> {
    let Opened { gpu, left_out, .. } = open_loading(driver, ordinal, &[kernel])?;
    if let Some(unloadable) = left_out.first() {
        return Err(Error::new(exit::NO_DEVICE, unloadable.to_string()));
    }
    check_job(&gpu, job, scratch_bytes)?;
    Ok(gpu)
}

/// Opens the device for a run of several modules: each module the driver cannot load is
/// left out with one line on `console`'s stderr, and the rest run; none loadable is exit 3.
pub(crate) fn open_several<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernels: &[ptx::KernelRef],
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
    console: &mut Console,
) -> Result<Opened<D::Device>, Error> {
    let opened = open_loading(driver, ordinal, kernels)?;
    for unloadable in &opened.left_out {
        console.err(&format!("Left out: {unloadable}\n"));
    }
    if opened.loaded.is_empty() {
        return Err(Error::new(
            exit::NO_DEVICE,
            format!(
                "this driver (CUDA {}) can load none of the modules this command measures: each is named above",
                compat::driver_version_text(driver.cuda_version())
            ),
        ));
    }
    check_job(&opened.gpu, job, scratch_bytes)?;
    Ok(opened)
}

/// The workload on the host (inputs and CPU reference); the host failing to hold it is bad
/// input, as a frame too large for the device is.
pub(crate) fn create_workload(spec: &KernelSpec, params: &Params) -> Result<Box<dyn Workload>, Error> {
    (spec.create)(params).map_err(|error| Error::new(exit::USAGE, format!("{error:#}")))
}
