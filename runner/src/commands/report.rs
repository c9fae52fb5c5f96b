/*!
`block-size report RESULT.json --html FILE`: the HTML report of a sweep from its JSON export,
no GPU needed; the same page `--html FILE` writes during the sweep. A file of an older schema
version is upgraded as it is read, and its page says what that file did not record. A T4
results file (Kernel Tuner's, or `--format t4`'s) gets a page of its configurations alone.
*/

use crate::error::{Error, exit, shown};
use crate::files;
use crate::results::export::html;
use crate::results::schema::SweepRecord;
use std::path::PathBuf;

/// What `block-size report` is asked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ReportRequest {
    /// A sweep's JSON export, of any schema version this tool wrote (`--json`, or `--format
    /// json`).
    pub input: PathBuf,
    /// `--html`: the page to write (its folder must exist).
    pub html: PathBuf,
}

impl ReportRequest {
    /// Every check that needs no file read, the first failing one as one line (exit 2): the
    /// page can be written (nothing opened: a FIFO is taken as it is), and it is not the JSON
    /// read by any path (another spelling, a symlink, a hard link).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        files::check_distinct(&[("--html", &self.html)], &[("report", &self.input)]).map_err(usage)?;
        files::check_writable("--html", &self.html).map_err(usage)
    }
}

/// Reads the export, writes the page whole ([`files::write_whole`]). A file that is not an
/// export, or of a newer schema version, is one line, exit 2; a page that cannot be written,
/// exit 1.
pub(crate) fn exec(request: &ReportRequest) -> Result<(), Error> {
    request.validate()?;
    // One sweep, or `merge --json`'s results of several GPU models, a section each.
    let records = SweepRecord::read_all(&request.input)?;
    let page = match &records[..] {
        [one] => html::render(one),
        several => html::render_many(several),
    }
    .map_err(|why| Error::new(exit::USAGE, format!("{}: {why}", shown(&request.input))))?;
    files::write_whole(&request.html, page.as_bytes())
        .map_err(|error| Error::new(exit::FAILED, format!("writing {}: {error}", shown(&request.html))))
}
