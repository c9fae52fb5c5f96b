/*!
`block-size merge FILE...`: result files (whole sweeps, or the shards of `--shard I/N`) from
many machines into one document, with no GPU: a table per GPU model on standard output, and
where asked one JSON (`--json`), one `--emit-rust` file with a module per GPU model, and one
HTML page of them all. The rule of what merges is [`crate::results::merge`]'s.
*/

use crate::commands::sweep::{Delivery, Effect};
use crate::error::{Console, Error, exit, shown};
use crate::files;
use crate::results::emit;
use crate::results::export::html;
use crate::results::merge::{self, Merged};
use crate::results::schema::SweepRecord;
use crate::results::table;
use std::path::PathBuf;

/// What `block-size merge` is asked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct MergeRequest {
    /// The result files (`--json` of a sweep or of a shard), in any order.
    pub inputs: Vec<PathBuf>,
    /// `--json`: the merged result (one GPU model: a sweep's JSON export, which `diff`, `report`
    /// and `merge` read; several: a JSON array of them).
    pub json: Option<PathBuf>,
    /// `--emit-rust`: the winners' Rust source, a module per GPU model, its JSON beside it.
    pub emit_rust: Option<PathBuf>,
    /// `--html`: one page of every GPU model's result.
    pub html: Option<PathBuf>,
    /// `--stats`: the min, max and MAD columns in the tables.
    pub stats: bool,
    /// `--force`: let `--emit-rust` replace a file it did not write.
    pub force: bool,
}

impl MergeRequest {
    /// Every check that needs no file read, the first failing one as one line (exit 2).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        if self.inputs.is_empty() {
            return Err(usage("merge needs at least one result file".into()));
        }
        let mut outputs: Vec<(&str, PathBuf)> = Vec::new();
        outputs.extend(self.json.iter().map(|path| ("--json", path.clone())));
        outputs.extend(self.html.iter().map(|path| ("--html", path.clone())));
        if let Some(path) = &self.emit_rust {
            outputs.push(("--emit-rust", path.clone()));
            outputs.push(("--emit-rust", emit::json_path(path)));
        }
        let named: Vec<(&str, &std::path::Path)> =
            outputs.iter().map(|(option, path)| (*option, path.as_path())).collect();
        let inputs: Vec<(&str, &std::path::Path)> =
            self.inputs.iter().map(|path| ("merge", path.as_path())).collect();
        files::check_distinct(&named, &inputs).map_err(usage)?;
        for (index, (_, input)) in inputs.iter().enumerate() {
            if let Some((_, earlier)) =
                inputs[..index].iter().find(|(_, earlier)| files::same_file(earlier, input))
            {
                return Err(usage(format!(
                    "{} and {} are one file, given twice",
                    shown(earlier),
                    shown(input)
                )));
            }
        }
        for (option, path) in &named {
            files::check_writable(option, path).map_err(usage)?;
        }
        match &self.emit_rust {
            Some(path) if !self.force => emit::check_replaceable(path).map_err(usage),
            _ => Ok(()),
        }
    }
}

/// Reads and merges the files, prints a table per GPU model and writes what is asked; `Ok`
/// carries the exit status (1 where a check failed in any part). A file that cannot be read or
/// does not merge is one line, exit 2; a file that cannot be written, exit 1.
pub(crate) fn exec(request: &MergeRequest, console: &mut Console) -> Result<i32, Error> {
    request.validate()?;
    let mut records = Vec::with_capacity(request.inputs.len());
    for input in &request.inputs {
        // A merge's own JSON of several GPU models is an array: each element a part, `FILE[1]`.
        let read = SweepRecord::read_all(input)?;
        let several = read.len() > 1;
        for (index, record) in read.into_iter().enumerate() {
            let name = match several {
                true => format!("{}[{index}]", shown(input)),
                false => shown(input).to_string(),
            };
            if record.origin.kernel_tuner.is_some() {
                return Err(Error::new(
                    exit::USAGE,
                    format!(
                        "{name}: a T4 results file: merge takes block-size's own JSON (--json), which records the device, occupancy model and provenance a T4 file lacks; diff and report read it"
                    ),
                ));
            }
            records.push((name, record));
        }
    }
    let merged = merge::merge(records).map_err(|why| Error::new(exit::USAGE, why))?;
    if let (Some(path), Some(first), false) = (&request.emit_rust, merged.first(), request.force) {
        emit::check_same_sweep(path, &first.sweep.pass.kernel, &first.sweep.axes)
            .map_err(|why| Error::new(exit::USAGE, why))?;
    }
    let delivery = deliver(&merged, request).map_err(|why| Error::new(exit::FAILED, why))?;
    delivery.perform(console)?;
    let failed = merged.iter().any(|result| !result.sweep.failures.is_empty());
    Ok(if failed { exit::FAILED } else { exit::SUCCESS })
}

/// What the merge writes, in order: each GPU model's table (its header, rows and summary) and
/// failed checks, a line per model where there are several, then the files.
fn deliver(merged: &[Merged], request: &MergeRequest) -> Result<Delivery, String> {
    let mut effects = Vec::new();
    for (index, result) in merged.iter().enumerate() {
        let sweep = &result.sweep;
        let mut text = if index > 0 { "\n".to_string() } else { String::new() };
        text += &format!("Merged: {}\n", said_sources(result));
        text += &table::header(&sweep.limits, &sweep.pass, sweep.timing);
        text += &sweep.grid.header_line();
        text += &table::body(sweep, request.stats);
        effects.push(Effect::Stdout(text));
        effects.push(Effect::Stderr(table::stderr(sweep)));
    }
    if merged.len() > 1 {
        let lines: String = merged.iter().map(|result| table::model_summary(&result.sweep)).collect();
        effects.push(Effect::Stdout(format!("\n{lines}")));
    }
    let records: Vec<SweepRecord> = merged.iter().map(Merged::record).collect();
    if let Some(path) = &request.json {
        let json = match &records[..] {
            [one] => serde_json::to_string_pretty(one),
            several => serde_json::to_string_pretty(several),
        }
        .map_err(|error| error.to_string())?;
        effects.push(Effect::File(path.clone(), json + "\n"));
    }
    if let Some(path) = &request.html {
        let page = match &records[..] {
            [one] => html::render(one)?,
            several => html::render_many(several)?,
        };
        effects.push(Effect::File(path.clone(), page));
    }
    if let Some(path) = &request.emit_rust {
        effects.extend(emitted(merged, path)?);
    }
    effects
        .retain(|effect| !matches!(effect, Effect::Stdout(text) | Effect::Stderr(text) | Effect::Note(text) if text.is_empty()));
    Ok(Delivery(effects))
}

/// "2 shards (part-1.json, part-2.json) on NVIDIA H200 (9.0)", or "a.json on ...".
fn said_sources(result: &Merged) -> String {
    match result.parts.len() {
        0 => format!("{} on {}", result.sources.join(", "), result.model()),
        shards => format!("{shards} shards ({}) on {}", result.sources.join(", "), result.model()),
    }
}

/// The `--emit-rust` file and its JSON: each GPU model's winner added to what the file holds,
/// as a sweep adds its own; a model whose checks failed adds none, with the line that says so.
fn emitted(merged: &[Merged], path: &std::path::Path) -> Result<Vec<Effect>, String> {
    let mut effects = Vec::new();
    let mut winners: Option<emit::Winners> = None;
    for result in merged {
        if !result.sweep.failures.is_empty() {
            effects.push(Effect::Note(format!(
                "--emit-rust: no winner of {}: a check failed\n",
                result.model()
            )));
            continue;
        }
        let Some(winner) = emit::winner(&result.sweep, &result.provenance) else { continue };
        match &mut winners {
            // The merged files are of one kernel and axes: the later models join the first.
            Some(known) => known.add(winner),
            None => {
                let existing = emit::existing_winners(path);
                let (first, note) =
                    emit::Winners::merge(existing.as_deref(), result.sweep.axes.clone(), winner);
                if let Some(note) = note {
                    effects.push(Effect::Note(format!(
                        "--emit-rust: {} {note}\n",
                        shown(emit::json_path(path))
                    )));
                }
                winners = Some(first);
            }
        }
    }
    match winners {
        Some(winners) => {
            let json = serde_json::to_string_pretty(&winners).map_err(|error| error.to_string())?;
            effects.push(Effect::File(path.to_path_buf(), emit::rust_source(&winners)));
            effects.push(Effect::File(emit::json_path(path), json + "\n"));
        }
        None => effects.push(Effect::Note(format!(
            "--emit-rust: {} not written: no GPU model's checks all held\n",
            shown(path)
        ))),
    }
    Ok(effects)
}
