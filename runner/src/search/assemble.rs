/*!
Axes beyond the block size: a sweep over them runs one sweep over the block sizes
([`crate::search::sweep::measure`]) per configuration of the axes, each with that configuration's
kernel and grid, and [`combine`] puts them into one [`Sweep`] whose rows say their values
([`crate::search::sweep::Row::axes`]), so that the same table, exports and plot show every
configuration with a column per axis.
*/

use crate::model::axis_values::AxisValues;
use crate::model::limits::KernelResources;
use crate::search::sweep::{CheckFailure, ModelCheck, Sweep};

/// The sweeps of each configuration of the axes `names`, in order, as one: rows concatenated
/// and tagged with their values, failures tagged likewise ([`CheckFailure::Configuration`]),
/// the model checks merged ([`ModelCheck::PerConfiguration`] where the configurations'
/// kernels differ in resources), the first part's device, pass, timing, grid and driver
/// suggestion. `None` for no parts.
pub fn combine(names: Vec<String>, parts: Vec<(AxisValues, Sweep)>) -> Option<Sweep> {
    let mut parts = parts.into_iter();
    let (first_values, first) = parts.next()?;
    let mut combined =
        Sweep { axes: names, rows: Vec::new(), failures: Vec::new(), ended_early: None, ..first.clone() };
    let mut checks = Vec::new();
    for (values, part) in std::iter::once((first_values, first)).chain(parts) {
        combined.rows.extend(
            part.rows.into_iter().map(|row| crate::search::sweep::Row { axes: values.clone(), ..row }),
        );
        combined.failures.extend(
            part.failures.into_iter().map(|failure| CheckFailure::Configuration {
                axes: values.clone(),
                failure: Box::new(failure),
            }),
        );
        checks.push((values, part.model_check));
        // A sweep that ended early (a signal, a lost context) ends the whole cross product.
        combined.ended_early = combined.ended_early.or(part.ended_early);
    }
    combined.model_check = merge_model_checks(checks);
    Some(combined)
}

/// The sweep of `parts`: the one part as it is where there is no axis (`names` empty), else
/// the parts [`combine`]d. `None` for no parts.
pub fn assemble(names: Vec<String>, mut parts: Vec<(AxisValues, Sweep)>) -> Option<Sweep> {
    if names.is_empty() { parts.pop().map(|(_, sweep)| sweep) } else { combine(names, parts) }
}

/// One model check for all configurations: the sum of agreeing rows where every
/// configuration's kernel has the same resources (or the model ran for none), else each
/// configuration's own.
pub(crate) fn merge_model_checks(checks: Vec<(AxisValues, ModelCheck)>) -> ModelCheck {
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
        _ => ModelCheck::PerConfiguration { checks },
    }
}

impl ModelCheck {
    /// Rows at which the model agreed with the driver (0 where it did not run).
    pub fn agreeing_rows(&self) -> usize {
        match self {
            Self::Ran { agreeing_rows, .. } => *agreeing_rows,
            Self::Unavailable { .. } => 0,
            Self::PerConfiguration { checks } => checks.iter().map(|(_, check)| check.agreeing_rows()).sum(),
        }
    }

    /// For [`ModelCheck::PerConfiguration`]: the resources in words, each distinct one once
    /// with the configurations that have it: "items/thr 1: 16 registers/thread, 0 B static;
    /// items/thr 4: 18 registers/thread, 0 B static", or for several "16 registers/thread, 0 B
    /// static (6 configurations, items/thr 1, grid one-wave first)"; empty for the others.
    pub fn per_configuration_resources(&self) -> String {
        let Self::PerConfiguration { checks } = self else { return String::new() };
        let words = |check: &ModelCheck| match check {
            Self::Ran { resources, .. } => format!(
                "{} registers/thread, {} B static",
                resources.registers_per_thread, resources.static_shared_memory
            ),
            Self::Unavailable { compute_capability: (major, minor) } => {
                format!("not checked (compute capability {major}.{minor})")
            }
            Self::PerConfiguration { .. } => check.per_configuration_resources(),
        };
        // Distinct resources in order of first appearance, with their configurations.
        let mut groups: Vec<(String, Vec<&AxisValues>)> = Vec::new();
        for (values, check) in checks {
            let said = words(check);
            match groups.iter_mut().find(|(known, _)| *known == said) {
                Some((_, members)) => members.push(values),
                None => groups.push((said, vec![values])),
            }
        }
        let each: Vec<String> = groups
            .into_iter()
            .map(|(said, members)| match members[..] {
                [only] => format!("{only}: {said}"),
                _ => format!("{said} ({} configurations, {} first)", members.len(), members[0]),
            })
            .collect();
        each.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::backend::Timing;
    use crate::measure::gpu::mock::MockGpu;
    use crate::tests::fixture;

    fn items(value: u64) -> AxisValues {
        AxisValues(vec![("items/thr".into(), value.to_string())])
    }

    fn sweep(gpu: &mut MockGpu, sizes: &[u32]) -> Sweep {
        let mut workload = fixture::workload(gpu, fixture::kernel(1024));
        crate::search::sweep::run(gpu, workload.as_mut(), sizes, Timing::launch(0, 2), None).unwrap()
    }

    #[test]
    fn the_parts_become_one_sweep_with_the_axes_on_every_row() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        let one = sweep(&mut gpu, &[64, 128]);
        gpu.milliseconds = vec![(64, 0.2), (128, 0.3)];
        gpu.wrong_kernel = Some(fixture::MODULE.kernel("scale"));
        let four = sweep(&mut gpu, &[64, 128]);
        assert_eq!(four.failures.len(), 2);
        let combined = combine(vec!["items/thr".into()], vec![(items(1), one), (items(4), four)]).unwrap();
        assert_eq!(combined.axes, ["items/thr"]);
        let rows: Vec<(u32, Option<&str>)> =
            combined.rows.iter().map(|row| (row.threads_per_block, row.axes.get("items/thr"))).collect();
        assert_eq!(rows, [(64, Some("1")), (128, Some("1")), (64, Some("4")), (128, Some("4"))]);
        // The best row is found, and no other row is taken for it because it shares a size.
        let best = combined.best().unwrap();
        assert_eq!((best.threads_per_block, best.axes.get("items/thr")), (64, Some("4")));
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
        assert_eq!(combine(vec!["none".into()], Vec::new()), None);
    }

    #[test]
    fn kernels_of_different_resources_keep_their_own_model_checks() {
        let mut gpu = fixture::gpu();
        let one = sweep(&mut gpu, &[64]);
        gpu.resources.registers_per_thread = 32;
        gpu.blocks_per_sm = vec![(64, 32)];
        let four = sweep(&mut gpu, &[64]);
        let combined =
            combine(vec!["items/thr".into()], vec![(items(1), one.clone()), (items(4), four.clone())])
                .unwrap();
        let ModelCheck::PerConfiguration { ref checks } = combined.model_check else {
            panic!("{:?}", combined.model_check)
        };
        assert_eq!(checks.len(), 2);
        assert_eq!(combined.model_check.agreeing_rows(), 2);
        assert_eq!(
            combined.model_check.per_configuration_resources(),
            "items/thr 1: 16 registers/thread, 0 B static; items/thr 4: 32 registers/thread, 0 B static"
        );
        // Several configurations of one kernel are said once, with their count.
        let two = |value: u64, grid: &str| {
            AxisValues(vec![("items/thr".into(), value.to_string()), ("grid".into(), grid.into())])
        };
        let parts = vec![
            (two(1, "one-wave"), one.clone()),
            (two(1, "waves:2"), one),
            (two(4, "one-wave"), four.clone()),
            (two(4, "waves:2"), four),
        ];
        let combined = combine(vec!["items/thr".into(), "grid".into()], parts).unwrap();
        assert_eq!(
            combined.model_check.per_configuration_resources(),
            "16 registers/thread, 0 B static (2 configurations, items/thr 1, grid one-wave first); \
             32 registers/thread, 0 B static (2 configurations, items/thr 4, grid one-wave first)"
        );
    }
}
