/*!
What a run of a [`Kernel`] needs checked before any device is opened: its description holds,
every entry point it launches is in its PTX (and in each twin a command measures), and for a
sweep the settings hold and `--corrupt-output` names an element of its first output.
*/

use crate::commands::options::SweepArgs;
use crate::commands::settings::Settings;
use crate::error::{Error, exit};
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::gpu::ptx::{EmbeddedPtx, KernelRef, entry_params};
use crate::measure::sampling::timing::Timing;

/// The kernel's description holds and every entry point its configurations launch is in
/// `modules` (its own, and the twins the command measures); the message is one line (exit 2).
pub(crate) fn check_kernel(kernel: &Kernel, modules: &[EmbeddedPtx]) -> Result<(), Error> {
    let usage = |message: String| Error::new(exit::USAGE, message);
    kernel.validate().map_err(usage)?;
    for &module in modules {
        for kernel_ref in kernel.kernels_in(module) {
            entry_in(kernel_ref)?;
        }
    }
    Ok(())
}

/// The parameters of `kernel`'s entry in its PTX, or the one line (exit 2) saying that the PTX
/// has no such entry and naming those it has.
pub(crate) fn entry_in(kernel: KernelRef) -> Result<Vec<String>, Error> {
    entry_params(kernel.module.ptx, kernel.entry).ok_or_else(|| {
        let entries = kernel.module.stamp().kernels.join(", ");
        Error::new(
            exit::USAGE,
            format!(
                "the {} PTX has no kernel `{}`; its kernels: {entries}",
                kernel.module.label, kernel.entry
            ),
        )
    })
}

/// Everything about a sweep of `kernel` with `settings` that needs no device: the settings
/// hold ([`Settings::checked`], their timing returned), the kernel's description holds, every
/// entry point is in its PTX, its restriction keeps a configuration, `--corrupt-output` names
/// an element of its first output. Returns the run, its outputs of one element per block sized
/// for the largest grid of the block sizes.
pub(crate) fn prepare<'k>(kernel: &'k Kernel, settings: &Settings) -> Result<(Run<'k>, Timing), Error> {
    let timing = settings.checked()?;
    let usage = |message: String| Error::new(exit::USAGE, message);
    let blocks = settings.blocks_of(kernel).map_err(usage)?;
    check_kernel(kernel, &[kernel.module()])?;
    let asked = blocks.len() * kernel.variants().len().max(1);
    if kernel.configurations(&blocks) == 0 {
        return Err(usage(format!(
            "the kernel's restriction keeps none of the {asked} configurations asked for"
        )));
    }
    if let Some(index) = settings.corrupt_output {
        let (outputs, whole) = kernel.first_output().ok_or_else(|| {
            usage("--corrupt-output needs an output buffer to overwrite; this kernel has none".to_string())
        })?;
        super::check_corrupt_output(Some(index), outputs, &whole)?;
    }
    let max_grid = kernel.largest_grid(&blocks);
    Ok((Run::new(kernel, max_grid), timing))
}

impl Settings {
    /// Every check of a sweep of `kernel` with these settings that needs no device: the
    /// settings' own ([`Settings::validate`]), the kernel's description, every entry point in
    /// its PTX, a configuration its restriction keeps, `--corrupt-output` within its first
    /// output. The first that fails as one line, exit status 2.
    pub(crate) fn validate_for(&self, kernel: &Kernel) -> Result<(), Error> {
        prepare(kernel, self).map(|_| ())
    }
}

impl SweepArgs {
    /// Every check of a sweep of `kernel` with these options that needs no device: the
    /// options' own ([`SweepArgs::validate`]), the kernel's description, every entry point in
    /// its PTX, a configuration its restriction keeps, `--corrupt-output` within its first
    /// output. The first that fails as one line, exit status 2, before the sweep would open
    /// the device: what a launcher checks before it starts its worker.
    pub fn validate_for(&self, kernel: &Kernel) -> Result<(), Error> {
        self.settings().validate_for(kernel)
    }
}
