/*!
`--journal FILE` and `--resume FILE`: each finished configuration as one JSON line, appended and
flushed as it finishes, and a later run that skips the configurations a journal already holds
under the same key.

The key is everything a measurement depends on: the GPU (name and UUID), the driver, every
module's PTX sha256, the kernel's entry points and work, the timing, the grid policy. A line
holds its key, its configuration (block size, and its values on the axes), and what was measured
(every sample, why the row stopped, where the output was wrong) or why nothing could be (a
launch fault, a hang). The rest of a row (occupancy, grid, statistics) is derived again.
*/

use crate::error::{Error, exit};
use crate::measure::timing::Stopped;
use crate::model::axis_values::AxisValues;
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
    /// Its values on the axes beyond the block size.
    #[serde(default, skip_serializing_if = "AxisValues::is_empty")]
    pub axes: AxisValues,
    /// A race's first round of this configuration ([`crate::search::race`]), kept apart from its
    /// second.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_round: bool,
}

impl std::fmt::Display for Configuration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.axes.is_empty() {
            write!(f, "{} threads per block", self.threads_per_block)?;
        } else {
            write!(f, "{}, {} threads per block", self.axes, self.threads_per_block)?;
        }
        if self.first_round { f.write_str(" (first round)") } else { Ok(()) }
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
        Self { key, configuration, run_ms: Vec::new(), stopped: None, mismatch: None, failed: None }
    }
}

/// The journal of one run: where finished configurations go, and those a resume skips.
pub(crate) struct Journal {
    file: Option<(PathBuf, File)>,
    key: Key,
    resumed: HashMap<Configuration, Entry>,
}

impl Journal {
    /// Appends to `journal` (created where missing) and skips what `resume` holds under `key`;
    /// the second value is the one line a resume says (how many it skips, how many it measures
    /// again because their key differs).
    pub fn open(
        journal: Option<&Path>,
        resumes: &[&Path],
        key: Key,
    ) -> Result<(Self, Option<String>), Error> {
        let mut resumed = HashMap::new();
        let mut note = None;
        for &path in resumes {
            let (same, other) = read(path, &key)?;
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
        let file = match journal {
            Some(path) => Some((path.to_path_buf(), append(path)?)),
            None => None,
        };
        Ok((Self { file, key, resumed }, note))
    }

    /// The entry of `configuration` a resume skips, where there is one.
    pub fn resumed(&self, configuration: &Configuration) -> Option<&Entry> {
        self.resumed.get(configuration)
    }

    /// An entry for `configuration` under this run's key.
    pub fn entry(&self, configuration: Configuration) -> Entry {
        Entry {
            key: self.key.clone(),
            configuration,
            run_ms: Vec::new(),
            stopped: None,
            mismatch: None,
            failed: None,
        }
    }

    /// Appends `entry` as one line and flushes it to the file; entries a resume skipped are
    /// written again, so that a journal is whole on its own.
    pub fn record(&mut self, entry: &Entry) -> Result<(), Error> {
        if let Some((path, file)) = &mut self.file {
            write_line(file, entry).map_err(|error| {
                Error::new(exit::FAILED, format!("writing the journal {}: {error}", path.display()))
            })?;
        }
        Ok(())
    }

    /// A handle that records the configuration a hang leaves behind, from the watchdog's thread.
    pub fn for_hangs(&self) -> Option<impl Fn(Entry) + Send + 'static> {
        let (_, file) = self.file.as_ref()?;
        let file = file.try_clone().ok()?;
        Some(move |entry: Entry| {
            let _ = write_line(&file, &entry);
        })
    }
}

fn write_line(mut file: &File, entry: &Entry) -> std::io::Result<()> {
    let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
    line.push('\n');
    file.write_all(line.as_bytes())?;
    file.sync_data()
}

/// The journal opened to append to: the one open of it, nothing probed before (a FIFO's open
/// waits here for its reader, as a write to it would).
fn append(path: &Path) -> Result<File, Error> {
    OpenOptions::new().append(true).create(true).open(path).map_err(|error| {
        Error::new(exit::USAGE, format!("cannot write the journal {}: {error}", crate::error::shown(path)))
    })
}

/// The entries of `path` under `key` (the last one of each configuration), and how many
/// configurations it holds under another key. A missing file holds none.
fn read(path: &Path, key: &Key) -> Result<(Vec<Entry>, usize), Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return Err(Error::new(exit::USAGE, format!("cannot read --resume {}: {error}", path.display())));
        }
    };
    let mut same: HashMap<Configuration, Entry> = HashMap::new();
    let mut other = std::collections::HashSet::new();
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let entry: Entry = serde_json::from_str(line).map_err(|error| {
            Error::new(
                exit::USAGE,
                format!("--resume {}: line {} is not a journal entry: {error}", path.display(), number + 1),
            )
        })?;
        if entry.key == *key {
            same.insert(entry.configuration.clone(), entry);
        } else {
            other.insert(entry.configuration);
        }
    }
    let other = other.iter().filter(|configuration| !same.contains_key(configuration)).count();
    let mut same: Vec<Entry> = same.into_values().collect();
    same.sort_by(|a, b| {
        (a.configuration.axes.clone(), a.configuration.threads_per_block)
            .cmp(&(b.configuration.axes.clone(), b.configuration.threads_per_block))
    });
    Ok((same, other))
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
    fn entries_go_out_one_line_each_and_a_resume_keeps_those_of_its_key() {
        let path = temp("resume");
        let (mut journal, note) = Journal::open(Some(&path), &[], key("H200 GPU-1")).unwrap();
        assert_eq!(note, None);
        for threads_per_block in [64, 128] {
            let mut entry = journal.entry(Configuration {
                threads_per_block,
                axes: AxisValues::none(),
                first_round: false,
            });
            entry.run_ms = vec![0.5, 0.25];
            entry.stopped = Some(Stopped::Converged);
            journal.record(&entry).unwrap();
        }
        let mut failed = journal.entry(Configuration {
            threads_per_block: 1024,
            axes: AxisValues::none(),
            first_round: false,
        });
        failed.failed = Some("an illegal memory access was encountered".into());
        journal.record(&failed).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);

        let (journal, note) = Journal::open(None, &[&path], key("H200 GPU-1")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 3 configuration(s) from "));
        let resumed = journal
            .resumed(&Configuration { threads_per_block: 128, axes: AxisValues::none(), first_round: false })
            .unwrap();
        assert_eq!(resumed.run_ms, [0.5, 0.25]);
        assert!(
            journal
                .resumed(&Configuration {
                    threads_per_block: 1024,
                    axes: AxisValues::none(),
                    first_round: false
                })
                .unwrap()
                .failed
                .is_some()
        );
        assert!(
            journal
                .resumed(&Configuration {
                    threads_per_block: 256,
                    axes: AxisValues::none(),
                    first_round: false
                })
                .is_none()
        );

        let (journal, note) = Journal::open(None, &[&path], key("H100 GPU-2")).unwrap();
        assert!(note.unwrap().contains("3 were measured under another key"));
        assert!(
            journal
                .resumed(&Configuration {
                    threads_per_block: 128,
                    axes: AxisValues::none(),
                    first_round: false
                })
                .is_none()
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_missing_resume_file_holds_nothing_and_a_bad_line_is_bad_input() {
        let path = temp("bad");
        let (journal, note) = Journal::open(None, &[&path], key("x")).unwrap();
        assert!(note.unwrap().starts_with("Resume: 0 configuration(s)"));
        assert!(
            journal
                .resumed(&Configuration {
                    threads_per_block: 64,
                    axes: AxisValues::none(),
                    first_round: false
                })
                .is_none()
        );
        std::fs::write(&path, "not json\n").unwrap();
        let error = Journal::open(None, &[&path], key("x")).err().unwrap();
        assert_eq!(error.exit_status(), exit::USAGE);
        assert!(error.to_string().contains("line 1 is not a journal entry"), "{error}");
        let _ = std::fs::remove_file(&path);
    }
}
