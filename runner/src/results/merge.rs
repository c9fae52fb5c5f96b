/*!
`block-size merge`'s rule, with no GPU: result files of one sweep definition (one kernel, PTX,
axes, work, timing and grid), from many machines, into one result per GPU model (its name and
compute capability). A GPU model's files are either one whole sweep or every shard of one
(`--shard I/N`, each once): the shards' rows are dealt back into the unsplit sweep's order
([`crate::model::shard::deal_back`]), their occupancy-model checks added up, their failures
kept, so that the merged sweep is the one an unsplit run would have recorded. Anything else is
refused in one line naming the files: another kernel, other axes, other PTX, a shard missing or
given twice, two results for one model, shards of different drivers or GPUs, a part that ended
before its last configuration.
*/

use crate::measure::record::provenance::Provenance;
use crate::model::axis_values::AxisValues;
use crate::model::limits::DeviceLimits;
use crate::model::shard::{self, Shard};
use crate::results::from_record::sweep_of;
use crate::results::schema::{PartRecord, SweepRecord};
use crate::search::assemble;
use crate::search::strategy::Search;
use crate::search::sweep::{ModelCheck, Sweep};

/// A GPU model: its name and compute capability.
type GpuModel = (String, (u32, u32));

/// One GPU model's result: the sweep, the provenance of its first part, the parts it was put
/// together from (empty for a whole sweep read as it is), and the files they came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Merged {
    /// The sweep, whole.
    pub sweep: Sweep,
    /// What measured it (its first shard's, where it was sharded).
    pub provenance: Provenance,
    /// Each shard's command, date and GPU, in shard order; empty for a whole sweep.
    pub parts: Vec<PartRecord>,
    /// The files, as named on the command line, in shard order.
    pub sources: Vec<String>,
}

impl Merged {
    /// The JSON record of the result: the sweep's, with its parts.
    pub fn record(&self) -> SweepRecord {
        SweepRecord {
            merged_from: self.parts.clone(),
            ..SweepRecord::of(&self.sweep, self.provenance.clone())
        }
    }

    /// "NVIDIA H200 (9.0)": the GPU model it is of.
    pub fn model(&self) -> String {
        let (major, minor) = self.sweep.limits.compute_capability;
        format!("{} ({major}.{minor})", self.sweep.limits.name)
    }
}

/// The files `records` (each with its name for the messages) merged, one result per GPU model in
/// the order the models first appear; `Err` is the one line of the first refusal.
pub(crate) fn merge(records: Vec<(String, SweepRecord)>) -> Result<Vec<Merged>, String> {
    let (first_name, first) = records.first().ok_or("merge needs at least one result file")?;
    for (name, record) in &records[1..] {
        same_sweep(first_name, first, name, record)?;
    }
    // The GPU models in order of first appearance, each with its files.
    let mut models: Vec<(GpuModel, Vec<(String, SweepRecord)>)> = Vec::new();
    for (name, record) in records {
        let model = (record.device.name.clone(), record.device.compute_capability);
        match models.iter_mut().find(|(known, _)| *known == model) {
            Some((_, files)) => files.push((name, record)),
            None => models.push((model, vec![(name, record)])),
        }
    }
    models.into_iter().map(|(_, files)| merge_model(files)).collect()
}

/// Whether `record` (file `name`) is of the sweep `first` (file `first_name`) is of: `Err` naming
/// what differs.
fn same_sweep(first_name: &str, first: &SweepRecord, name: &str, record: &SweepRecord) -> Result<(), String> {
    let differ = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
        Err(format!(
            "{first_name} and {name} are of different {what} ({a:?} and {b:?}): merge takes the results of one sweep"
        ))
    };
    if first.workload.kernel != record.workload.kernel || first.kernel != record.kernel {
        return differ("kernels", &first.workload.kernel, &record.workload.kernel);
    }
    if first.ptx_sha256 != record.ptx_sha256 {
        return differ("PTX", &first.ptx_sha256, &record.ptx_sha256);
    }
    if first.axes != record.axes {
        return differ("axes", &first.axes, &record.axes);
    }
    if (first.pixels, first.width, first.height, &first.workload)
        != (record.pixels, record.width, record.height, &record.workload)
    {
        return differ("work", &first.extent(), &record.extent());
    }
    if first.timing != record.timing {
        return differ("timing", &first.timing, &record.timing);
    }
    // With axes the grid may be one of them: a sweep's `grid` is then its first
    // configuration's, which a shard need not hold.
    if first.axes.is_empty() && first.grid != record.grid {
        return differ("grid policies", &first.grid.name(), &record.grid.name());
    }
    if first.objective != record.objective {
        return differ("objectives", &first.objective, &record.objective);
    }
    Ok(())
}

/// One GPU model's files into its one result.
fn merge_model(files: Vec<(String, SweepRecord)>) -> Result<Merged, String> {
    let gpu = format!(
        "{} ({}.{})",
        files[0].1.device.name,
        files[0].1.device.compute_capability.0,
        files[0].1.device.compute_capability.1
    );
    for (name, record) in &files {
        if let Some(ended) = &record.ended_early {
            return Err(format!(
                "{name}: the sweep ended before its last configuration ({ended}); resume it (--resume its journal) before merging"
            ));
        }
    }
    let whole: Vec<&String> =
        files.iter().filter(|(_, record)| record.shard.is_none()).map(|(name, _)| name).collect();
    if !whole.is_empty() {
        if files.len() > 1 {
            let other = files.iter().map(|(name, _)| name).find(|name| *name != whole[0]).expect("two files");
            return Err(format!(
                "{} and {other} are both of {gpu}, and {} is a whole sweep: merge takes one result per GPU model (a whole sweep, or every shard of one)",
                whole[0], whole[0]
            ));
        }
        let (name, record) = files.into_iter().next().expect("one file");
        let (sweep, provenance) = sweep_of(&record).map_err(|why| format!("{name}: {why}"))?;
        return Ok(Merged { sweep, provenance, parts: Vec::new(), sources: vec![name] });
    }
    // Shards: every one of 1..=N once, of one sweep of the same size.
    let (parts, configurations) = every_shard_once(files, &gpu)?;
    let mut sweeps = Vec::with_capacity(parts.len());
    for (name, record) in &parts {
        let (sweep, provenance) = sweep_of(record).map_err(|why| format!("{name}: {why}"))?;
        sweeps.push((name.clone(), sweep, provenance));
    }
    one_sweep(&sweeps, &gpu)?;
    let provenance = sweeps[0].2.clone();
    let sources: Vec<String> = sweeps.iter().map(|(name, ..)| name.clone()).collect();
    let records = parts.iter().map(|(_, record)| record);
    let parts_said: Vec<PartRecord> = records
        .map(|record| {
            let provenance = record.provenance.as_ref().expect("read by sweep_of");
            PartRecord {
                shard: record.shard.map(|of| of.shard),
                command: provenance.command.clone(),
                date: provenance.date.clone(),
                gpu: provenance.gpu.clone(),
            }
        })
        .collect();
    let sweeps: Vec<Sweep> = sweeps.into_iter().map(|(_, sweep, _)| sweep).collect();
    let sweep = deal_back(sweeps, configurations)?;
    Ok(Merged { sweep, provenance, parts: parts_said, sources })
}

/// Each shard of one GPU model's sweep, in order, each once and none missing, with the count of
/// configurations of the sweep they split.
fn every_shard_once(
    files: Vec<(String, SweepRecord)>,
    gpu: &str,
) -> Result<(Vec<(String, SweepRecord)>, usize), String> {
    let shard_of = |record: &SweepRecord| record.shard.expect("whole sweeps were taken above");
    let first = shard_of(&files[0].1);
    let count = first.shard.count;
    let mut slots: Vec<Option<(String, SweepRecord)>> = (0..count).map(|_| None).collect();
    for (name, record) in files {
        let of = shard_of(&record);
        if of.shard.count != count || of.configurations != first.configurations {
            return Err(format!(
                "{name} is shard {} of a sweep of {} configurations, where the other shards of {gpu} split one of {} into {count}",
                of.shard, of.configurations, first.configurations
            ));
        }
        let slot = &mut slots[of.shard.index as usize - 1];
        if let Some((earlier, _)) = slot {
            return Err(format!("{earlier} and {name} both hold shard {} of {gpu}", of.shard));
        }
        *slot = Some((name, record));
    }
    let mut parts = Vec::with_capacity(slots.len());
    for (index, slot) in slots.into_iter().enumerate() {
        let shard = Shard { index: index as u32 + 1, count };
        parts.push(slot.ok_or_else(|| {
            format!("shard {shard} of {gpu} is missing: merge needs every shard of the sweep")
        })?);
    }
    Ok((parts, first.configurations))
}

/// That the shards' sweeps are one: the same device limits and the same driver.
fn one_sweep(sweeps: &[(String, Sweep, Provenance)], gpu: &str) -> Result<(), String> {
    let (first_name, first_sweep, first_provenance) = &sweeps[0];
    for (name, sweep, provenance) in &sweeps[1..] {
        if !same_device(&sweep.limits, &first_sweep.limits) {
            return Err(format!(
                "{first_name} and {name} ran on GPUs of {gpu} whose limits differ: their shards are not one sweep"
            ));
        }
        if (&provenance.driver_release, &provenance.cuda_driver_api)
            != (&first_provenance.driver_release, &first_provenance.cuda_driver_api)
        {
            return Err(format!(
                "{first_name} and {name} ran on different drivers ({} and {}): their shards are not one sweep",
                driver(first_provenance),
                driver(provenance)
            ));
        }
    }
    Ok(())
}

/// The shards `sweeps` (in shard order) of a sweep of `configurations` as that sweep.
pub(crate) fn deal_back(sweeps: Vec<Sweep>, configurations: usize) -> Result<Sweep, String> {
    let mut sweeps = sweeps.into_iter();
    let first = sweeps.next().ok_or("no shard")?;
    let mut merged = Sweep {
        rows: Vec::new(),
        failures: Vec::new(),
        shard: None,
        wall_time: None,
        search: Search::Exhaustive,
        ..first.clone()
    };
    let mut rows = vec![first.rows];
    let mut checks = vec![first.model_check];
    merged.failures.extend(first.failures);
    for sweep in sweeps {
        rows.push(sweep.rows);
        checks.push(sweep.model_check);
        merged.failures.extend(sweep.failures);
        merged.ended_early = merged.ended_early.or(sweep.ended_early);
    }
    merged.rows = shard::deal_back(rows, configurations)?;
    merged.model_check = added_up(checks, &merged.rows);
    Ok(merged)
}

/// The shards' occupancy-model checks as the unsplit sweep's: each configuration of the axes'
/// agreeing rows added up over the shards, then put together as [`assemble`] puts the
/// configurations of a sweep together.
fn added_up(checks: Vec<ModelCheck>, rows: &[crate::search::sweep::Row]) -> ModelCheck {
    // Each shard's check per configuration of the axes (a sweep without axes has one, of none).
    let mut each: Vec<(AxisValues, ModelCheck)> = Vec::new();
    for check in checks {
        let parts = match check {
            ModelCheck::PerConfiguration { checks } => checks,
            whole => vec![(rows.first().map(|row| row.axes.clone()).unwrap_or_default(), whole)],
        };
        for (axes, check) in parts {
            match each.iter_mut().find(|(known, _)| *known == axes) {
                Some((_, known)) => *known = add(known, &check),
                None => each.push((axes, check)),
            }
        }
    }
    // In the sweep's order of its configurations.
    let order = |axes: &AxisValues| rows.iter().position(|row| row.axes == *axes).unwrap_or(usize::MAX);
    each.sort_by_key(|(axes, _)| order(axes));
    match each.len() {
        1 if rows.iter().all(|row| row.axes.is_empty()) => each.pop().expect("one").1,
        _ => assemble::merge_model_checks(each),
    }
}

/// Two shards' checks of one configuration of the axes (one kernel): their agreeing rows added.
fn add(a: &ModelCheck, b: &ModelCheck) -> ModelCheck {
    match (a, b) {
        (ModelCheck::Ran { resources, agreeing_rows: x }, ModelCheck::Ran { agreeing_rows: y, .. }) => {
            ModelCheck::Ran { resources: *resources, agreeing_rows: x + y }
        }
        (known, _) => known.clone(),
    }
}

/// Whether two devices are of one model and alike in every limit (their ordinals aside).
fn same_device(a: &DeviceLimits, b: &DeviceLimits) -> bool {
    DeviceLimits { ordinal: 0, ..a.clone() } == DeviceLimits { ordinal: 0, ..b.clone() }
}

fn driver(provenance: &Provenance) -> String {
    match &provenance.driver_release {
        Some(release) => format!("{release}, CUDA {}", provenance.cuda_driver_api),
        None => format!("CUDA {}", provenance.cuda_driver_api),
    }
}
