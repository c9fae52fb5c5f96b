/*!
A sweep of a [`UserKernel`]: what it needs checked before the device (`prepare`), and its
[`Target`], the same device path as this repository's kernels.
*/

use crate::commands::settings::Settings;
use crate::commands::sweep::{self as sweep_cmd, Target};
use crate::error::{Error, exit, failed};
use crate::kernel::UserKernel;
use crate::measure::backend::{Device, Gpu};
use crate::measure::device::Footprint;
use crate::measure::journal::Journal;
use crate::measure::ptx::KernelRef;
use crate::measure::timing::Timing;
use crate::measure::workload::Workload;
use crate::model::pass::Pass;
use crate::search::sweep::{self, Session, Sweep};

/// Everything about a sweep of `kernel` with `settings` that needs no device: the settings
/// hold ([`Settings::checked`], their timing returned), the kernel's description holds, every
/// entry point is in its PTX, `--corrupt-output` names an element of its first output. Then
/// sizes its per-block outputs for the largest grid of the block sizes.
pub(crate) fn prepare(kernel: &mut UserKernel, settings: &Settings) -> Result<Timing, Error> {
    let timing = settings.checked()?;
    let (block_sizes, corrupt) = (&settings.block_sizes[..], settings.corrupt_output);
    let usage = |message: String| Error::new(exit::USAGE, message);
    kernel.validate().map_err(usage)?;
    let module = kernel.module();
    for kernel_ref in kernel.kernels() {
        if crate::measure::ptx::entry_params(module.ptx, kernel_ref.entry).is_none() {
            let entries = module.stamp().kernels.join(", ");
            return Err(usage(format!(
                "the {} PTX has no kernel `{}`; its kernels: {entries}",
                module.label, kernel_ref.entry
            )));
        }
    }
    let asked = block_sizes.len() * kernel.variants().len().max(1);
    if kernel.configurations(block_sizes) == 0 {
        return Err(usage(format!(
            "the kernel's restriction keeps none of the {asked} configurations asked for"
        )));
    }
    kernel.prepare(block_sizes);
    if let Some(index) = corrupt {
        let (outputs, whole) = kernel.first_output().ok_or_else(|| {
            usage("--corrupt-output needs an output buffer to overwrite; this kernel has none".to_string())
        })?;
        sweep_cmd::check_corrupt_output(Some(index), outputs, &whole)?;
    }
    Ok(timing)
}

impl Target for UserKernel {
    fn kernels(&self) -> Vec<KernelRef> {
        UserKernel::kernels(self)
    }

    fn pass(&self) -> Pass {
        Workload::pass(self).clone()
    }

    fn check(&mut self, gpu: &dyn Device, block_sizes: &[u32], scratch: u64) -> Result<(), Error> {
        let footprint = Footprint {
            device_bytes: Some(self.device_bytes(crate::model::grid::GridPolicy::largest_grid(
                Workload::pass(self).item_count(),
                block_sizes,
            ))),
            device_what: "its buffers",
            host_bytes: Some(self.host_bytes()),
            host_what: "its outputs read back",
        };
        // Only the configurations the restriction keeps are launched, so only they are checked;
        // one whose shared memory no block may have is pruned (a row with its reason), unless
        // that leaves nothing to launch.
        let mut refusal = None;
        let mut launchable = 0;
        for index in 0..self.variants().len() {
            let kept = self.kept(index, block_sizes);
            self.select(index);
            let shared = |threads| Workload::dynamic_shared_memory(self, threads);
            // One check a block size: those that fit, and the first refusal.
            let mut fits = Vec::with_capacity(kept.len());
            for threads in kept {
                match crate::measure::device::check_dynamic_shared_memory(&[threads], &shared) {
                    Ok(()) => fits.push(threads),
                    Err(why) => refusal = refusal.or(Some(why)),
                }
            }
            if fits.is_empty() {
                continue;
            }
            launchable += fits.len();
            crate::measure::device::check_request(gpu, &fits, &shared, "the kernel", &footprint, scratch)?;
        }
        self.select(0);
        match refusal {
            Some(why) if launchable == 0 => Err(Error::new(exit::USAGE, why)),
            _ => Ok(()),
        }
    }

    fn build(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn configurations(&self, block_sizes: &[u32]) -> usize {
        UserKernel::configurations(self, block_sizes)
    }

    fn measure(
        &mut self,
        gpu: &mut dyn Gpu,
        settings: &sweep::Settings,
        mut journal: Option<&mut Journal>,
    ) -> Result<Sweep, Error> {
        self.upload(gpu).map_err(failed)?;
        let variants = self.variants().to_vec();
        let mut parts = Vec::with_capacity(variants.len());
        for variant in variants {
            let block_sizes = self.kept(variant.index, &settings.block_sizes);
            if block_sizes.is_empty() {
                // The restriction keeps no block size of this configuration: no rows, no part.
                continue;
            }
            gpu.select_kernel(self.module().kernel(variant.entry)).map_err(failed)?;
            self.select(variant.index);
            let settings = sweep::Settings {
                block_sizes,
                grid: variant.grid.unwrap_or(settings.grid),
                ..settings.clone()
            };
            let mut session = Session { journal: journal.as_deref_mut(), axes: variant.axes.clone() };
            let part = sweep_cmd::sweep_uploaded(gpu, self, &settings, &mut session)?;
            let ended_early = part.ended_early.is_some();
            parts.push((variant.axes, part));
            if ended_early {
                break;
            }
        }
        Ok(crate::search::assemble::assemble(self.axis_names(), parts)
            .expect("a kernel has at least one configuration to sweep (validated)"))
    }
}
