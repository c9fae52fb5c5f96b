/*!
`--journal FILE` and `--resume FILE`: each finished configuration as one JSON line, appended and
flushed as it finishes, and a later run that skips the configurations a journal already holds
under the same key.

The key is everything a measurement depends on: the GPU (name and UUID), the driver, every
module's PTX sha256, the kernel's entry points and work, the timing, the grid policy. A line
holds its key, its configuration (block size, and its values on the axes), and what was measured
(every sample, why the row stopped, where the output was wrong) or why nothing could be (a
launch fault, a hang). The rest of a row (occupancy, grid, statistics) is derived again.

A journal read back is outside input ([`read`]): at most [`MAX_INPUT_BYTES`], every line an
entry whose samples are times (finite, above zero) where it was measured and none where it
failed. One exception: a last line cut off with no line end, as a run killed mid-write leaves
it, is dropped with one warning and the complete lines are resumed; a malformed line anywhere
else is refused.
*/

use crate::error::{Error, exit, shown};
use crate::files::{MAX_INPUT_BYTES, read_bounded};
use crate::measure::sampling::timing::Stopped;
use crate::measure::sensors::{RowClock, RowEnergy};
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::BlockShape;
use crate::model::mismatch::Mismatch;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What a measurement depends on; two lines of journal are of the same run where these agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Key {
    /// The GPU's name and UUID.
    pub gpu: String,
    /// The CUDA version the driver supports, and its release where known.
    pub driver: String,
    /// Each module's label and PTX sha256.
    pub ptx: Vec<String>,
    /// The entry points measured.
    pub kernel: Vec<String>,
    /// What one pass covers and moves (the frame or problem size).
    pub work: String,
    /// The timing settings.
    pub timing: String,
    /// The grid policy.
    pub grid: String,
}

/// One configuration of a sweep.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Configuration {
    pub threads_per_block: u32,
    /// Its block's shape, where it is not `threads_per_block` in x alone (a journal written
    /// before block shapes has none: each of its configurations is a block in x alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockShape>,
    /// Its values on the axes beyond the block size.
    #[serde(default, skip_serializing_if = "AxisValues::is_empty")]
    pub axes: AxisValues,
    /// A race's first round of this configuration ([`crate::search::race`]), kept apart from its
    /// second.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_round: bool,
    /// A later rung (1, 2, ...) of a race in rungs, kept apart from its first round, its other
    /// rungs and its last round; 0 for any other.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rung: u32,
}

fn is_zero(rung: &u32) -> bool {
    *rung == 0
}

impl Configuration {
    /// The configuration of `block` at `axes`, of a race's first round or not.
    pub fn new(block: BlockShape, axes: AxisValues, first_round: bool) -> Self {
        let shape = (!block.is_linear()).then_some(block);
        Self { threads_per_block: block.threads(), block: shape, axes, first_round, rung: 0 }
    }

    /// The configuration of `block` at `axes` in a race's later rung `rung` (1, 2, ...).
    pub fn of_rung(block: BlockShape, axes: AxisValues, rung: u32) -> Self {
        Self { rung, ..Self::new(block, axes, false) }
    }

    /// Its block: its shape, or its threads in x alone.
    pub fn shape(&self) -> BlockShape {
        self.block.unwrap_or(BlockShape::linear(self.threads_per_block))
    }
}

impl std::fmt::Display for Configuration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let block = self.shape().in_words();
        if self.axes.is_empty() {
            f.write_str(&block)?;
        } else {
            write!(f, "{}, {block}", self.axes)?;
        }
        match (self.first_round, self.rung) {
            (true, _) => f.write_str(" (first round)"),
            (false, 0) => Ok(()),
            (false, rung) => write!(f, " (rung {rung})"),
        }
    }
}

/// One finished configuration: measured, or failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub key: Key,
    pub configuration: Configuration,
    /// Every sample's milliseconds (empty where it failed).
    #[serde(default)]
    pub run_ms: Vec<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Where the output disagreed with the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<Mismatch>,
    /// Why the configuration has no measurement: the driver's message for a launch that
    /// failed, or the hang.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// The SM clock while its samples ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<RowClock>,
    /// Its energy (`--energy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<RowEnergy>,
}

impl Entry {
    /// An entry outside any journal (a sweep without one).
    pub fn unkeyed(configuration: Configuration) -> Self {
        let key = Key {
            gpu: String::new(),
            driver: String::new(),
            ptx: Vec::new(),
            kernel: Vec::new(),
            work: String::new(),
            timing: String::new(),
            grid: String::new(),
        };
        Self::measuring(key, configuration)
    }

    /// An entry of `configuration` under `key`, nothing measured yet.
    fn measuring(key: Key, configuration: Configuration) -> Self {
        Self {
            key,
            configuration,
            run_ms: Vec::new(),
            stopped: None,
            mismatch: None,
            failed: None,
            clock: None,
            energy: None,
        }
    }
}

/// How far each entry goes before the next configuration runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// Written and synced to the disk (`fdatasync`): a journal the user named (`--journal`),
    /// which a later run resumes, outlives a crash of the machine.
    Synced,
    /// Written to the file, not synced: a journal a supervisor keeps for its own workers (a
    /// temporary one, a worker's part), read back only while this machine runs, where a worker
    /// that dies leaves every line it wrote in the page cache. A sync an entry cost about 0.2
    /// ms on the H200's machine (evidence/2026-12-05-h200-floor), more on a slow disk.
    Written,
}

/// The journal of one run: where finished configurations go, and those a resume skips.
pub(crate) struct Journal {
    file: Option<(PathBuf, File)>,
    durability: Durability,
    key: Key,
    resumed: HashMap<Configuration, Entry>,
}

impl Journal {
    /// Appends to `journal` (created where missing), each entry as far as `durability` says, and
    /// skips what `resume` holds under `key`; the second value is the one line a resume says (how many it skips, how many it measures
    /// again because their key differs), the third the warnings of its reading (a torn last
    /// line dropped), each one line for standard error.
    pub fn open(
        journal: Option<(&Path, Durability)>,
        resumes: &[&Path],
        key: Key,
    ) -> Result<(Self, Option<String>, Vec<String>), Error> {
        let mut resumed = HashMap::new();
        let mut note = None;
        let mut warnings = Vec::new();
        for &path in resumes {
            let Read { same, other, torn } = read(path, &key)?;
            warnings.extend(torn.map(|line| {
                format!(
                    "Warning: --resume {}: line {line} is cut off (a run ended mid-write): dropped; the {} line(s) before it are resumed\n",
                    shown(path),
                    line - 1
                )
            }));
            note = Some(match other {
                0 => format!(
                    "Resume: {} configuration(s) from {} are not measured again\n",
                    same.len(),
                    path.display()
                ),
                other => format!(
                    "Resume: {} configuration(s) from {} are not measured again; {other} were measured under another \
                     key (GPU, driver, PTX, kernel, work, timing or grid differ) and are measured again\n",
                    same.len(),
                    path.display()
                ),
            });
            resumed.extend(same.into_iter().map(|entry| (entry.configuration.clone(), entry)));
        }
        let (file, durability) = match journal {
            Some((path, durability)) => (Some((path.to_path_buf(), append(path)?)), durability),
            None => (None, Durability::Written),
        };
        Ok((Self { file, durability, key, resumed }, note, warnings))
    }

    /// The entry of `configuration` a resume skips, where there is one.
    pub fn resumed(&self, configuration: &Configuration) -> Option<&Entry> {
        self.resumed.get(configuration)
    }

    /// An entry for `configuration` under this run's key.
    pub fn entry(&self, configuration: Configuration) -> Entry {
        Entry::measuring(self.key.clone(), configuration)
    }

    /// Appends `entry` as one line, written to the file (and synced where the journal is
    /// [`Durability::Synced`]); entries a resume skipped are written again, so that a journal is
    /// whole on its own.
    pub fn record(&mut self, entry: &Entry) -> Result<(), Error> {
        let durability = self.durability;
        if let Some((path, file)) = &mut self.file {
            write_line(file, entry, durability).map_err(|error| {
                Error::new(exit::FAILED, format!("writing the journal {}: {error}", path.display()))
            })?;
        }
        Ok(())
    }

    /// A handle that records the configuration a hang leaves behind, from the watchdog's thread.
    pub fn for_hangs(&self) -> Option<impl Fn(Entry) + Send + 'static> {
        let (_, file) = self.file.as_ref()?;
        let file = file.try_clone().ok()?;
        let durability = self.durability;
        Some(move |entry: Entry| {
            let _ = write_line(&file, &entry, durability);
        })
    }
}

fn write_line(mut file: &File, entry: &Entry, durability: Durability) -> std::io::Result<()> {
    let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    line.push('\n');
    file.write_all(line.as_bytes())?;
    match durability {
        Durability::Synced => file.sync_data(),
        Durability::Written => Ok(()),
    }
}

/// The journal opened to append to: the one open of it, nothing probed before (a FIFO's open
/// waits here for its reader, as a write to it would). A regular file whose last line has no
/// line end gets one first, so that the next entry starts a line of its own: a whole entry is
/// kept, and a torn one (a run killed mid-write, which a resume drops) is cut off, since an
/// entry written after it would turn it into a bad line in the middle that no resume takes.
fn append(path: &Path) -> Result<File, Error> {
    let cannot = |error: std::io::Error| {
        Error::new(exit::USAGE, format!("cannot write the journal {}: {error}", crate::error::shown(path)))
    };
    let file = OpenOptions::new().append(true).create(true).open(path).map_err(cannot)?;
    if file.metadata().is_ok_and(|metadata| metadata.is_file() && metadata.len() > 0) {
        end_the_last_line(path, &file).map_err(cannot)?;
    }
    Ok(file)
}

/// Ends a journal's last line where it has no line end (see [`append`]).
fn end_the_last_line(path: &Path, mut file: &File) -> std::io::Result<()> {
    let text = std::fs::read(path)?;
    if text.ends_with(b"\n") {
        return Ok(());
    }
    let start = text.iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
    if serde_json::from_slice::<Entry>(&text[start..]).is_ok() {
        file.write_all(b"\n")
    } else {
        file.set_len(start as u64)
    }
}

/// What a journal holds for one run.
struct Read {
    /// The entries under the run's key, the last one of each configuration.
    same: Vec<Entry>,
    /// How many configurations it holds under another key only.
    other: usize,
    /// The number of a torn last line that was dropped.
    torn: Option<usize>,
}

/// The entries of `path` under `key` (the last one of each configuration), how many
/// configurations it holds under another key, and a torn last line dropped. A missing file
/// holds none.
fn read(path: &Path, key: &Key) -> Result<Read, Error> {
    let usage = |why: String| Error::new(exit::USAGE, why);
    let text = match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        _ => read_bounded(path, "the --resume journal", MAX_INPUT_BYTES).map_err(usage)?,
    };
    let (entries, torn) = entries(&text).map_err(|why| usage(format!("--resume {}: {why}", shown(path))))?;
    let mut same: HashMap<Configuration, Entry> = HashMap::new();
    let mut other = std::collections::HashSet::new();
    for entry in entries {
        if entry.key == *key {
            same.insert(entry.configuration.clone(), entry);
        } else {
            other.insert(entry.configuration);
        }
    }
    let other = other.iter().filter(|configuration| !same.contains_key(configuration)).count();
    let mut same: Vec<Entry> = same.into_values().collect();
    same.sort_by(|a, b| {
        (a.configuration.axes.clone(), a.configuration.threads_per_block, a.configuration.shape()).cmp(&(
            b.configuration.axes.clone(),
            b.configuration.threads_per_block,
            b.configuration.shape(),
        ))
    });
    Ok(Read { same, other, torn })
}

/// The entries of a journal's text, checked, and the number of a torn last line (one with no
/// line end that is not an entry), which is left out; `Err` names the first bad line.
pub(crate) fn entries(text: &str) -> Result<(Vec<Entry>, Option<usize>), String> {
    let mut entries = Vec::new();
    let ends_whole = text.is_empty() || text.ends_with('\n');
    let count = text.lines().count();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        let entry = match serde_json::from_str::<Entry>(line) {
            Ok(entry) => entry,
            Err(_) if number == count && !ends_whole => return Ok((entries, Some(number))),
            Err(error) => {
                return Err(crate::error::one_line(&format!(
                    "line {number} is not a journal entry: {error}"
                )));
            }
        };
        crate::files::check_unique_keys(line)
            .map_err(|why| crate::error::one_line(&format!("line {number}: {why}")))?;
        check(&entry).map_err(|why| format!("line {number} ({}) {why}", entry.configuration))?;
        entries.push(entry);
    }
    Ok((entries, None))
}

/// An entry as a run writes one: a block size, samples that are times where it was measured,
/// none where it failed.
fn check(entry: &Entry) -> Result<(), String> {
    if entry.configuration.threads_per_block == 0 {
        return Err("has threads_per_block 0, not a block size".to_string());
    }
    if let Some(shape) = entry.configuration.block {
        if shape.is_linear() {
            return Err(format!(
                "has block {shape}, a block in x alone, which a run writes as threads_per_block alone"
            ));
        }
        if shape.threads() != entry.configuration.threads_per_block {
            return Err(format!(
                "has block {shape} beside threads_per_block {}, not a shape of that many threads",
                entry.configuration.threads_per_block
            ));
        }
    }
    match &entry.failed {
        Some(_) if !entry.run_ms.is_empty() => {
            Err(format!("failed yet holds {} sample(s) (run_ms)", entry.run_ms.len()))
        }
        Some(_) => Ok(()),
        None if entry.run_ms.is_empty() => Err("has no samples (run_ms) and did not fail".to_string()),
        None => match entry.run_ms.iter().enumerate().find(|(_, ms)| !(ms.is_finite() && **ms > 0.0)) {
            Some((index, ms)) => {
                Err(format!("has run_ms[{index}] {ms} ms: a time must be finite and above 0"))
            }
            None => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(gpu: &str) -> Key {
        Key {
            gpu: gpu.into(),
            driver: "13.0".into(),
            ptx: vec!["cuda_builder abc".into()],
            kernel: vec!["grayscale".into()],
            work: "4K".into(),
            timing: "batch".into(),
            grid: "one-wave".into(),
        }
    }

    fn temp(name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("journal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        path
    }

    #[test]
    fn a_written_journal_holds_each_entry_as_it_finishes_as_a_synced_one_does() {
        let entry_of = |journal: &Journal| {
            let mut entry = journal.entry(Configuration {
                block: None,
                threads_per_block: 64,
                axes: AxisValues::none(),
                first_round: false,
                rung: 0,
            });
            entry.run_ms = vec![0.5];
            entry.stopped = Some(Stopped::Converged);
            entry
        };
        let mut lines = Vec::new();
        for (name, durability) in [("synced", Durability::Synced), ("written", Durability::Written)] {
            let path = temp(name);
            let (mut journal, _, _) = Journal::open(Some((&path, durability)), &[], key("x")).unwrap();
            journal.record(&entry_of(&journal)).unwrap();
            // Read back while the journal is still open, as a supervisor reads a worker's.
            lines.push(std::fs::read_to_string(&path).unwrap());
            let _ = std::fs::remove_file(&path);
        }
        assert_eq!(lines[0].lines().count(), 1, "{lines:?}");
        assert_eq!(lines[0], lines[1]);
    }

    #[test]
    fn entries_go_out_one_line_each_and_a_resume_keeps_those_of_its_key() {
        let path = temp("resume");
        let (mut journal, note, _) =
            Journal::open(Some((&path, Durability::Synced)), &[], key("H200 GPU-1")).unwrap();
        assert_eq!(note, None);
        for threads_per_block in [64, 128] {
            let mut entry = journal.entry(Configuration {
                block: None,
                threads_per_block,
                axes: AxisValues::none(),
                first_round: false,
                rung: 0,
            });
            entry.run_ms = vec![0.5, 0.25];
            entry.stopped = Some(Stopped::Converged);
            journal.record(&entry).unwrap();
        }
        let mut failed = journal.entry(Configuration {
            block: None,
            threads_per_block: 1024,
            axes: AxisValues::none(),
            first_round: false,
            rung: 0,
        });
        failed.failed = Some("an illegal memory access was encountered".into());
        journal.record(&failed).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);

        let (journal, note, warnings) = Journal::open(None, &[&path], key("H200 GPU-1")).unwrap();
        assert_eq!(warnings, Vec::<String>::new());
        assert!(note.unwrap().starts_with("Resume: 3 configuration(s) from "));
        let resumed = journal
            .resumed(&Configuration {
                block: None,
                threads_per_block: 128,
                axes: AxisValues::none(),
                first_round: false,
                rung: 0,
            })
            .unwrap();
        assert_eq!(resumed.run_ms, [0.5, 0.25]);
        assert!(
            journal
                .resumed(&Configuration {
                    block: None,
                    threads_per_block: 1024,
                    axes: AxisValues::none(),
                    first_round: false,
                    rung: 0
                })
                .unwrap()
                .failed
                .is_some()
        );
        assert!(
            journal
                .resumed(&Configuration {
                    block: None,
                    threads_per_block: 256,
                    axes: AxisValues::none(),
                    first_round: false,
                    rung: 0
                })
                .is_none()
        );

        let (journal, note, _) = Journal::open(None, &[&path], key("H100 GPU-2")).unwrap();
        assert!(note.unwrap().contains("3 were measured under another key"));
        assert!(
            journal
                .resumed(&Configuration {
                    block: None,
                    threads_per_block: 128,
                    axes: AxisValues::none(),
                    first_round: false,
                    rung: 0
                })
                .is_none()
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_missing_resume_file_holds_nothing_and_a_bad_line_is_bad_input() {
        let path = temp("bad");
        let (journal, note, _) = Journal::open(None, &[&path], key("x")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 0 configuration(s)"));
        assert!(
            journal
                .resumed(&Configuration {
                    block: None,
                    threads_per_block: 64,
                    axes: AxisValues::none(),
                    first_round: false,
                    rung: 0
                })
                .is_none()
        );
        std::fs::write(&path, "not json\n").unwrap();
        let error = Journal::open(None, &[&path], key("x")).err().unwrap();
        assert_eq!(error.exit_status(), exit::USAGE);
        assert!(error.to_string().contains("line 1 is not a journal entry"), "{error}");
        let _ = std::fs::remove_file(&path);
    }

    /// A journal of two measured configurations, as a run writes it.
    fn two_lines() -> String {
        let entry = |threads_per_block| {
            let mut entry = Entry::unkeyed(Configuration {
                block: None,
                threads_per_block,
                axes: AxisValues::none(),
                first_round: false,
                rung: 0,
            });
            (entry.key, entry.run_ms) = (key("x"), vec![0.5, 0.25]);
            serde_json::to_string(&entry).unwrap() + "\n"
        };
        entry(64) + &entry(128)
    }

    #[test]
    fn a_journal_continued_after_a_torn_line_resumes_again() {
        let path = temp("continued");
        let text = two_lines();
        // Killed mid-write, then resumed into the same journal, twice.
        std::fs::write(&path, &text[..text.len() - 20]).unwrap();
        let (mut journal, _, warnings) =
            Journal::open(Some((&path, Durability::Synced)), &[&path], key("x")).unwrap();
        assert_eq!(warnings.len(), 1);
        let mut entry = journal.entry(Configuration {
            block: None,
            threads_per_block: 128,
            axes: AxisValues::none(),
            first_round: false,
            rung: 0,
        });
        entry.run_ms = vec![1.0, 1.5];
        journal.record(&entry).unwrap();
        drop(journal);
        let (_, note, warnings) =
            Journal::open(Some((&path, Durability::Synced)), &[&path], key("x")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 2 configuration(s) from ") && warnings.is_empty());
        // A whole last entry without its line end is kept, and the next one starts a line.
        std::fs::write(&path, text.trim_end()).unwrap();
        let (mut journal, _, _) = Journal::open(Some((&path, Durability::Synced)), &[], key("x")).unwrap();
        journal.record(&entry).unwrap();
        drop(journal);
        let lines = std::fs::read_to_string(&path).unwrap();
        assert_eq!(lines.lines().count(), 3, "{lines}");
        assert!(Journal::open(None, &[&path], key("x")).is_ok());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_torn_last_line_is_dropped_with_one_warning_and_the_rest_resumed() {
        let path = temp("torn");
        let text = two_lines();
        // Killed mid-write: the second line cut off, with no line end.
        std::fs::write(&path, &text[..text.len() - 20]).unwrap();
        let (journal, note, warnings) = Journal::open(None, &[&path], key("x")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 1 configuration(s) from "));
        assert_eq!(
            warnings,
            [format!(
                "Warning: --resume {}: line 2 is cut off (a run ended mid-write): dropped; the 1 line(s) before it are resumed\n",
                path.display()
            )]
        );
        let configuration = |threads_per_block| Configuration {
            block: None,
            threads_per_block,
            axes: AxisValues::none(),
            first_round: false,
            rung: 0,
        };
        assert!(
            journal.resumed(&configuration(64)).is_some() && journal.resumed(&configuration(128)).is_none()
        );
        // A whole last line without its line end is an entry; a bad line with one is refused,
        // and so is a bad line that is not the last.
        std::fs::write(&path, text.trim_end()).unwrap();
        let (_, note, warnings) = Journal::open(None, &[&path], key("x")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 2 configuration(s) from ") && warnings.is_empty());
        for bad in [format!("{}\n", &text[..text.len() - 20]), format!("{{\"key\"\n{text}")] {
            std::fs::write(&path, bad).unwrap();
            let error = Journal::open(None, &[&path], key("x")).err().unwrap();
            assert_eq!(error.exit_status(), exit::USAGE);
            assert!(error.to_string().contains(" is not a journal entry: "), "{error}");
            assert_eq!(error.to_string().lines().count(), 1);
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn an_entry_no_run_writes_is_refused_naming_its_line() {
        let text = two_lines();
        for (from, to, why) in [
            ("[0.5,0.25]", "[-0.5,0.25]", "has run_ms[0] -0.5 ms: a time must be finite and above 0"),
            ("[0.5,0.25]", "[]", "has no samples (run_ms) and did not fail"),
            ("[0.5,0.25]", "[0.5],\"failed\":\"hung\"", "failed yet holds 1 sample(s) (run_ms)"),
        ] {
            let error = entries(&text.replacen(from, to, 1)).unwrap_err();
            assert_eq!(error, format!("line 1 (64 threads per block) {why}"));
        }
        let error =
            entries(&text.replacen("\"threads_per_block\":64", "\"threads_per_block\":0", 1)).unwrap_err();
        assert_eq!(error, "line 1 (0 threads per block) has threads_per_block 0, not a block size");
        let error = entries(&text.replacen("[0.5,0.25]", "[0.5,1e308]", 1)).unwrap_err();
        assert!(error.starts_with("line 1 is not a journal entry: "), "{error}");
        assert_eq!(entries(&text).unwrap().0.len(), 2);
    }

    #[test]
    fn a_block_shape_is_part_of_the_key_and_an_older_line_is_a_block_in_x_alone() {
        let shaped = Configuration::new(BlockShape { x: 32, y: 8, z: 1 }, AxisValues::none(), false);
        let linear = Configuration::new(BlockShape::linear(256), AxisValues::none(), false);
        assert_ne!(shaped, linear, "two configurations of 256 threads");
        assert_eq!(
            (shaped.to_string(), linear.to_string()),
            ("block 32x8".into(), "256 threads per block".into())
        );
        let mut entry = Entry::unkeyed(shaped.clone());
        (entry.key, entry.run_ms) = (key("x"), vec![0.5]);
        let line = serde_json::to_string(&entry).unwrap() + "\n";
        assert!(line.contains("\"threads_per_block\":256,\"block\":\"32x8\""), "{line}");
        assert_eq!(entries(&line).unwrap().0[0].configuration.shape(), shaped.shape());
        // A line of before block shapes has none: its block is its block size in x alone.
        let older = line.replacen(",\"block\":\"32x8\"", "", 1);
        assert_eq!(entries(&older).unwrap().0[0].configuration, linear);
        for (block, why) in [
            ("16x8", "has block 16x8 beside threads_per_block 256, not a shape of that many threads"),
            ("256", "has block 256, a block in x alone, which a run writes as threads_per_block alone"),
        ] {
            let edited = line.replacen("\"block\":\"32x8\"", &format!("\"block\":\"{block}\""), 1);
            let shown =
                if block == "256" { "256 threads per block".to_string() } else { format!("block {block}") };
            assert_eq!(entries(&edited).unwrap_err(), format!("line 1 ({shown}) {why}"));
        }
    }
}
