/*!
`block-size report RESULT.json --html FILE`: the HTML report of a sweep from its JSON export,
no GPU needed; the same page `--html FILE` writes during the sweep. A file of an older schema
version is upgraded as it is read, and its page says what that file did not record.
*/

use crate::commands::settings::check_files;
use crate::error::{Error, exit};
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
    /// Every check that needs no file read, the first failing one as one line (exit 2).
    pub(crate) fn validate(&self) -> Result<(), Error> {
        check_files(&[("--html", &self.html)]).map_err(|message| Error::new(exit::USAGE, message))?;
        if self.html == self.input {
            return Err(Error::new(
                exit::USAGE,
                format!("--html {} would overwrite the JSON it reads", self.html.display()),
            ));
        }
        Ok(())
    }
}

/// Reads the export, writes the page. A file that is not an export, or of a newer schema
/// version, is one line, exit 2; a page that cannot be written, exit 1.
pub(crate) fn exec(request: &ReportRequest) -> Result<(), Error> {
    request.validate()?;
    let record = SweepRecord::read(&request.input)?;
    let page = html::render(&record)
        .map_err(|why| Error::new(exit::USAGE, format!("{}: {why}", request.input.display())))?;
    std::fs::write(&request.html, page)
        .map_err(|error| Error::new(exit::FAILED, format!("writing {}: {error}", request.html.display())))
}
