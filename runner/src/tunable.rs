/*!
A tunable beyond the block size: items per thread, a vector width, bins. A sweep over one runs
the cross product: one sweep over the block sizes ([`crate::sweep::measure`]) per value of
the tunable, each with that value's kernel active, and [`combine`] puts them into one
[`Sweep`] whose rows say their value ([`crate::sweep::Row::tunable`]), so that the same
table, exports and plot show each combination with the tunable as a column.
*/

use crate::backend::KernelResources;
use crate::sweep::{CheckFailure, ModelCheck, Sweep};

/// The sweeps of each value of the tunable `name`, in order, as one: rows concatenated and
/// tagged with their value, failures tagged likewise ([`CheckFailure::Tunable`]), the model
/// checks merged ([`ModelCheck::PerTunable`] where the values' kernels differ in resources),
/// the first value's device, pass, timing, grid and driver suggestion. `None` for no parts.
pub fn combine(name: &str, parts: Vec<(String, Sweep)>) -> Option<Sweep> {
    let mut parts = parts.into_iter();
    let (first_value, first) = parts.next()?;
    let mut combined = Sweep {
        tunable: Some(name.to_string()),
        rows: Vec::new(),
        failures: Vec::new(),
        ended_early: None,
        ..first.clone()
    };
    let mut checks = Vec::new();
    for (value, part) in std::iter::once((first_value, first)).chain(parts) {
        combined.rows.extend(
            part.rows.into_iter().map(|row| crate::sweep::Row { tunable: Some(value.clone()), ..row }),
        );
        combined.failures.extend(part.failures.into_iter().map(|failure| CheckFailure::Tunable {
            name: name.to_string(),
            value: value.clone(),
            failure: Box::new(failure),
        }));
        checks.push((value, part.model_check));
        // A sweep that ended early (a signal, a lost context) ends the whole cross product.
        combined.ended_early = combined.ended_early.or(part.ended_early);
    }
    combined.model_check = merge_model_checks(name, checks);
    Some(combined)
}

/// One model check for all values: the sum of agreeing rows where every value's kernel has the
/// same resources (or the model ran for none), else each value's own.
fn merge_model_checks(name: &str, checks: Vec<(String, ModelCheck)>) -> ModelCheck {
    let resources: Vec<Option<KernelResources>> = checks
        .iter()
        .map(|(_, check)| match check {
            ModelCheck::Ran { resources, .. } => Some(*resources),
            _ => None,
        })
        .collect();
    match (resources.first(), &checks.first()) {
        (Some(Some(first)), _) if resources.iter().all(|other| *other == Some(*first)) => ModelCheck::Ran {
            resources: *first,
            agreeing_rows: checks.iter().map(|(_, check)| check.agreeing_rows()).sum(),
        },
        (Some(None), Some((_, unavailable @ ModelCheck::Unavailable { .. })))
            if checks.iter().all(|(_, check)| check == unavailable) =>
        {
            unavailable.clone()
        }
        _ => ModelCheck::PerTunable { name: name.to_string(), checks },
    }
}

impl ModelCheck {
    /// Rows at which the model agreed with the driver (0 where it did not run).
    pub fn agreeing_rows(&self) -> usize {
        match self {
            Self::Ran { agreeing_rows, .. } => *agreeing_rows,
            Self::Unavailable { .. } => 0,
            Self::PerTunable { checks, .. } => checks.iter().map(|(_, check)| check.agreeing_rows()).sum(),
        }
    }

    /// For [`ModelCheck::PerTunable`]: each value's resources in words, "items/thr 1: 16
    /// registers/thread, 0 B static; items/thr 4: 18 registers/thread, 0 B static"; empty
    /// for the others.
    pub fn per_tunable_resources(&self) -> String {
        let Self::PerTunable { name, checks } = self else { return String::new() };
        let each: Vec<String> = checks
            .iter()
            .map(|(value, check)| match check {
                Self::Ran { resources, .. } => format!(
                    "{name} {value}: {} registers/thread, {} B static",
                    resources.registers_per_thread, resources.static_shared_memory
                ),
                Self::Unavailable { compute_capability: (major, minor) } => {
                    format!("{name} {value}: not checked (compute capability {major}.{minor})")
                }
                Self::PerTunable { .. } => format!("{name} {value}: {}", check.per_tunable_resources()),
            })
            .collect();
        each.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Timing;
    use crate::mock::MockGpu;
    use crate::workload::{Params, grayscale};

    fn sweep(gpu: &mut MockGpu, sizes: &[u32]) -> Sweep {
        let mut workload = (grayscale::KERNEL.create)(&Params::frame(32, 32)).unwrap();
        crate::backend::Device::load(gpu, &grayscale::KERNEL.rust_kernel()).unwrap();
        workload.upload(gpu).unwrap();
        crate::sweep::run(gpu, workload.as_mut(), sizes, Timing::launch(0, 2), None).unwrap()
    }

    #[test]
    fn the_parts_become_one_sweep_with_the_tunable_on_every_row() {
        let mut gpu = MockGpu::h200_like();
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        let one = sweep(&mut gpu, &[64, 128]);
        gpu.milliseconds = vec![(64, 0.2), (128, 0.3)];
        gpu.wrong_kernel = Some(grayscale::KERNEL.rust_kernel());
        let four = sweep(&mut gpu, &[64, 128]);
        assert_eq!(four.failures.len(), 2);
        let combined = combine("items/thr", vec![("1".into(), one), ("4".into(), four)]).unwrap();
        assert_eq!(combined.tunable.as_deref(), Some("items/thr"));
        let rows: Vec<(u32, Option<&str>)> =
            combined.rows.iter().map(|row| (row.threads_per_block, row.tunable.as_deref())).collect();
        assert_eq!(rows, [(64, Some("1")), (128, Some("1")), (64, Some("4")), (128, Some("4"))]);
        // The best row is found, and no other row is taken for it because it shares a size.
        let best = combined.best().unwrap();
        assert_eq!((best.threads_per_block, best.tunable.as_deref()), (64, Some("4")));
        assert!(!combined.within_noise_of_best(&combined.rows[0]));
        assert_eq!(combined.model_check.agreeing_rows(), 4);
        assert!(matches!(combined.model_check, ModelCheck::Ran { agreeing_rows: 4, .. }));
        assert_eq!(combined.failures.len(), 2);
        assert!(
            combined.failures[0]
                .to_string()
                .starts_with("items/thr 4: wrong output at 64 threads per block: "),
            "{}",
            combined.failures[0]
        );
        assert_eq!(combine("none", Vec::new()), None);
    }

    #[test]
    fn kernels_of_different_resources_keep_their_own_model_checks() {
        let mut gpu = MockGpu::h200_like();
        let one = sweep(&mut gpu, &[64]);
        gpu.resources.registers_per_thread = 32;
        gpu.blocks_per_sm = vec![(64, 32)];
        let four = sweep(&mut gpu, &[64]);
        let combined = combine("items/thr", vec![("1".into(), one), ("4".into(), four)]).unwrap();
        let ModelCheck::PerTunable { ref name, ref checks } = combined.model_check else {
            panic!("{:?}", combined.model_check)
        };
        assert_eq!((name.as_str(), checks.len()), ("items/thr", 2));
        assert_eq!(combined.model_check.agreeing_rows(), 2);
        assert_eq!(
            combined.model_check.per_tunable_resources(),
            "items/thr 1: 16 registers/thread, 0 B static; items/thr 4: 32 registers/thread, 0 B static"
        );
    }
}
