/*!
The fuzz targets' entry points (`fuzz/`, `scripts/fuzz`), behind the `fuzzing` feature: each
hands its bytes to the very reader the program uses on outside input, then to what the program
does with what it read, so that a panic anywhere on that path is a crash the fuzzer finds. None
needs a driver (nothing here reaches cust), so a target starts without libcuda.

Bytes that are not UTF-8 stop where the program's reader stops them ([`crate::files`] refuses
such a file in one line).
*/

use crate::commands::diff::{DiffRequest, diff_records, render};
use crate::measure::gpu::{compat, ptx};
use crate::measure::record::{journal, stamp};
use crate::results::diff::DEFAULT_THRESHOLD;
use crate::results::emit;
use crate::results::export::html;
use crate::results::schema::SweepRecord;

/// `block-size diff F F`: the result file's reader, the comparison of the record with itself,
/// and its rendering.
pub fn diff(data: &[u8]) {
    let Some(record) = record(data) else { return };
    let comparison = diff_records(&record, &record, DEFAULT_THRESHOLD);
    let _ = render(&DiffRequest::default(), &record, &record, &comparison);
}

/// `block-size report F --html PAGE`: the result file's reader and the page it renders.
pub fn report(data: &[u8]) {
    let Some(record) = record(data) else { return };
    let _ = html::render(&record);
}

/// `--resume FILE`: the journal's reader.
pub fn journal(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = journal::entries(text);
}

/// A PTX module's stamp: its reader, and the stamp written again and read back.
pub fn stamp(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(parsed) = stamp::Stamp::parse(text) {
        let again = stamp::Stamp::parse(&parsed.render()).expect("a stamp written reads back");
        assert_eq!(again, parsed, "a stamp written reads back as it was");
    }
}

/// A PTX module's header and entries: its ISA (`.version`), target, entry points and each
/// one's parameters, and what its ISA requires of a driver.
pub fn ptx(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(isa) = compat::parse_isa(text) {
        let _ = compat::required_cuda(isa).to_string();
    }
    let _ = compat::parse_target(text);
    for entry in stamp::entry_names(text) {
        let _ = ptx::entry_params(text, &entry);
    }
}

/// `block-size merge PART...`: the parts are `data` split at the byte 0x1E (ASCII's record
/// separator), each read as merge reads a file (one export, or `merge --json`'s array of
/// several), then merged, and each result's record, page, winner and emitted Rust made.
pub fn merge(data: &[u8]) {
    let mut records = Vec::new();
    for (index, part) in data.split(|&byte| byte == 0x1e).enumerate() {
        let Ok(text) = std::str::from_utf8(part) else { return };
        let Ok(read) = SweepRecord::parse_all(text) else { return };
        records.extend(read.into_iter().map(|record| (format!("part{index}"), record)));
    }
    let Ok(merged) = crate::results::merge::merge(records) else { return };
    let records: Vec<SweepRecord> = merged.iter().map(|result| result.record()).collect();
    let _ = html::render_many(&records);
    let mut winners: Option<emit::Winners> = None;
    for result in &merged {
        let Some(winner) = emit::winner(&result.sweep, &result.provenance) else { continue };
        match &mut winners {
            Some(known) => known.add(winner),
            None => winners = Some(emit::Winners::merge(None, result.sweep.axes.clone(), winner).0),
        }
    }
    if let Some(winners) = winners {
        let _ = emit::rust_source(&winners);
    }
}

/// Kernel Tuner's cache (`tune_kernel(cache=FILE)`), as `diff` and `report` read it: the record
/// it reads as, compared with itself and drawn. (The result files' targets reach the cache
/// too; this one starts from caches, open and closed, so its inputs stay caches.)
pub fn kernel_tuner_cache(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(record) = SweepRecord::parse(text) else { return };
    let comparison = diff_records(&record, &record, DEFAULT_THRESHOLD);
    let _ = render(&DiffRequest::default(), &record, &record, &comparison);
    let _ = html::render(&record);
}

/// `--emit-rust FILE.rs`'s JSON beside it (`FILE.rs.json`), as a later run reads it: the strict
/// reader that decides whether it may be replaced, the Rust source of what it holds, and its
/// first winner added to it again (as a later run on that GPU adds its own) and written.
pub fn emitted_winners(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(known) = emit::read_winners(text) else { return };
    let _ = emit::rust_source(&known);
    if let Some(first) = known.winners.first() {
        let (joined, _) = emit::Winners::merge(Some(text), known.axes.clone(), first.clone());
        let _ = emit::rust_source(&joined);
    }
}

/// The record of `data`, where the reader takes it.
fn record(data: &[u8]) -> Option<SweepRecord> {
    SweepRecord::parse(std::str::from_utf8(data).ok()?).ok()
}
