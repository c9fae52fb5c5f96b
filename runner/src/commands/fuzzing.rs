/*!
The fuzz targets' entry points (`fuzz/`, `scripts/fuzz`), behind the `fuzzing` feature: each
hands its bytes to the very reader the program uses on outside input, then to what the program
does with what it read, so that a panic anywhere on that path is a crash the fuzzer finds. None
needs a driver (nothing here reaches cust), so a target starts without libcuda.

Bytes that are not UTF-8 stop where the program's reader stops them ([`crate::files`] refuses
such a file in one line).
*/

use crate::commands::diff::{DiffRequest, diff_records, render};
use crate::measure::{compat, journal, ptx, stamp};
use crate::results::diff::DEFAULT_THRESHOLD;
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

/// The record of `data`, where the reader takes it.
fn record(data: &[u8]) -> Option<SweepRecord> {
    SweepRecord::parse(std::str::from_utf8(data).ok()?).ok()
}
