/*!
The files a run reads and writes, kept whole: a file read from outside is bounded in size and
read with that bound (so `/dev/zero` is refused, not read until memory runs out); a regular file
is written to a temporary file beside it and renamed into place, so that it is never left half
written and a failed write keeps the old one; a special file (a FIFO, `/dev/stdout`) is written
in place, and nothing probes it beforehand (an open of a FIFO blocks until a reader comes, a
probe that opened and closed it would hand that reader an empty file); and two names of one file
(by another path, a symlink or a hard link) are found by its device and inode, from stat(2) (no
open: an open of a FIFO waits).

Every message is one line, with each path [`shown`] so that no character in it can split it.
*/

use crate::error::shown;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest file any reader takes: a result file, a journal, a stamp or a PTX module. A
/// 13-row sweep's export is tens of kilobytes; a journal of every sample of a 192-configuration
/// sweep a few megabytes.
pub(crate) const MAX_INPUT_BYTES: u64 = 1 << 30;

/// `sweep.json` for device 1 becomes `sweep-gpu1.json`: a file of `--device all` on a machine
/// of several GPUs.
pub(crate) fn per_device(path: &Path, ordinal: u32) -> PathBuf {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(extension) => format!("{stem}-gpu{ordinal}.{}", extension.to_string_lossy()),
        None => format!("{stem}-gpu{ordinal}"),
    };
    path.with_file_name(name)
}

/// The whole of `path` as text, refused in one line (naming it as `what`) where it cannot be
/// read, is larger than `limit` bytes (checked as it is read: a character device or a FIFO has
/// no size to ask), or is not UTF-8.
pub(crate) fn read_bounded(path: &Path, what: &str, limit: u64) -> Result<String, String> {
    let file =
        std::fs::File::open(path).map_err(|error| format!("cannot read {what} {}: {error}", shown(path)))?;
    if file.metadata().is_ok_and(|metadata| metadata.is_dir()) {
        return Err(format!("cannot read {what} {}: it is a folder", shown(path)));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read {what} {}: {error}", shown(path)))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{what} {} is larger than {}: refused", shown(path), size(limit)));
    }
    String::from_utf8(bytes).map_err(|error| {
        format!("{what} {} is not UTF-8 text (byte {} is not)", shown(path), error.utf8_error().valid_up_to())
    })
}

/// `bytes` in the unit a person reads (`1 GiB`, `64 MiB`, `512 B`).
fn size(bytes: u64) -> String {
    match bytes {
        bytes if bytes >= 1 << 30 && bytes % (1 << 30) == 0 => format!("{} GiB", bytes >> 30),
        bytes if bytes >= 1 << 20 && bytes % (1 << 20) == 0 => format!("{} MiB", bytes >> 20),
        bytes => format!("{bytes} B"),
    }
}

/// Writes `contents` to `path` whole or not at all. A regular file (or one not there yet) is
/// written to a temporary file in the same folder, flushed to disk, and renamed over `path`,
/// so that a reader never sees half of it and a failed write (a full disk) leaves the old file
/// as it was; a symlink is followed, and the file it names replaced. A special file (a FIFO, a
/// terminal, `/dev/stdout`) is opened and written in place.
pub(crate) fn write_whole(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if std::fs::metadata(&target).is_ok_and(|metadata| !metadata.is_file() && !metadata.is_dir()) {
        let mut file = std::fs::OpenOptions::new().write(true).open(&target)?;
        file.write_all(contents)?;
        return file.flush();
    }
    let temporary = temporary_beside(&target);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?;
        file.write_all(contents)?;
        file.sync_all()?;
        // The new file takes the permissions of the one it replaces (a 0600 file stays 0600).
        if let Ok(metadata) = std::fs::metadata(&target) {
            std::fs::set_permissions(&temporary, metadata.permissions())?;
        }
        std::fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A name in `path`'s folder that no other write of this process or another uses.
fn temporary_beside(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map_or_else(|| "file".into(), |name| name.to_string_lossy().into_owned());
    let unique = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{unique}.tmp", std::process::id()))
}

/// Where `path` can be written as [`write_whole`] writes it, checked without touching it: its
/// folder exists and takes a new file (a temporary one is made there and removed), and an
/// existing file there is not a folder. A special file is taken as it is, unopened (see the
/// module's note); a write that fails later says so then.
pub(crate) fn check_writable(option: &str, path: &Path) -> Result<(), String> {
    let refuse = |why: String| Err(format!("cannot write {} ({option}): {why}", shown(path)));
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    match std::fs::metadata(&target) {
        Ok(metadata) if metadata.is_dir() => return refuse("it is a folder".into()),
        Ok(metadata) if !metadata.is_file() => return Ok(()),
        Ok(metadata) if metadata.permissions().readonly() && !running_as_root() => {
            return refuse("it is read-only".into());
        }
        _ => {}
    }
    let folder = match target.parent() {
        Some(folder) if folder.as_os_str().is_empty() => Path::new("."),
        Some(folder) => folder,
        None => return refuse("it names no file".into()),
    };
    if !folder.is_dir() {
        return refuse("its folder does not exist".into());
    }
    let probe = temporary_beside(&target);
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(error) => refuse(format!("its folder takes no new file ({error})")),
    }
}

/// Whether this process runs as root, which writes read-only files anyway.
fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|metadata| {
        use std::os::unix::fs::MetadataExt as _;
        metadata.uid() == 0
    })
}

/// Whether `a` and `b` name one file: the same device and inode where both exist (another
/// path, a symlink, a hard link), else the same folder (resolved) and the same name.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    // stat(2), not same-file's open: an open of a FIFO for reading waits for a writer.
    use std::os::unix::fs::MetadataExt as _;
    if let (Ok(a), Ok(b)) = (std::fs::metadata(a), std::fs::metadata(b))
        && (a.dev(), a.ino()) == (b.dev(), b.ino())
    {
        return true;
    }
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// `path` with its folder resolved (symlinks, `.` and `..`), for a file that may not exist yet.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(path) = std::fs::canonicalize(path) {
        return Some(path);
    }
    let name = path.file_name()?;
    let folder = match path.parent() {
        Some(folder) if folder.as_os_str().is_empty() => Path::new("."),
        Some(folder) => folder,
        None => return None,
    };
    Some(std::fs::canonicalize(folder).ok()?.join(name))
}

/// No two of `outputs` name one file, and no output names one of `inputs`, by any path: each
/// pair is `(option, path)`. The message names both options and is one line.
pub(crate) fn check_distinct(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), String> {
    for (index, (option, path)) in outputs.iter().enumerate() {
        if let Some((input, _)) = inputs.iter().find(|(_, input)| same_file(input, path)) {
            return Err(format!(
                "{option} {} names the file {input} reads: give the output a file of its own",
                shown(path)
            ));
        }
        if let Some((other, _)) = outputs[..index].iter().find(|(_, earlier)| same_file(earlier, path)) {
            return Err(format!("{other} and {option} both name {}: give each its own file", shown(path)));
        }
    }
    Ok(())
}

/// Whether the JSON `text` gives every key of each of its objects once; `Err` names the first
/// key given twice, in one line. JSON allows a key twice and readers differ on which one counts
/// (serde_json and Python keep the last, T4's rule for results is the first), so a file of
/// another machine that gives one twice is refused: no writer of the files this program reads
/// (itself, Kernel Tuner, Python's json) writes one. Text that is not JSON is `Ok` here: the
/// reader's own parse says why.
pub(crate) fn check_unique_keys(text: &str) -> Result<(), String> {
    use serde::de::Deserializer as _;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    match (&mut deserializer).deserialize_any(UniqueKeys) {
        // "... at line 3 column 10": serde_json's position of the second.
        Err(error) if error.is_data() => Err(error.to_string()),
        _ => Ok(()),
    }
}

/// A visitor of any JSON value that fails on an object with a key twice.
struct UniqueKeys;

impl<'de> serde::de::DeserializeSeed<'de> for UniqueKeys {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if !keys.insert(key.clone()) {
                let quoted = crate::error::cut_for_quoting(&key);
                return Err(serde::de::Error::custom(format!(
                    "the key {quoted:?} is given twice in one object"
                )));
            }
            map.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_in_any_object_is_named() {
        assert_eq!(check_unique_keys(r#"{"a": 1, "b": {"a": [1, {"c": 2, "d": 3}]}}"#), Ok(()));
        assert_eq!(
            check_unique_keys(r#"{"a": 1, "b": [{"c": 2, "c": 3}]}"#),
            Err(r#"the key "c" is given twice in one object at line 1 column 27"#.to_string())
        );
        assert!(
            check_unique_keys("{\"rows\": [],\n \"rows\": []}")
                .unwrap_err()
                .starts_with(r#"the key "rows" is given twice in one object at line 2"#)
        );
        // Escapes count as what they stand for: "\u0061" is "a".
        assert!(check_unique_keys(r#"{"a": 1, "\u0061": 2}"#).is_err());
        // Not JSON: the reader's parse says why.
        assert_eq!(check_unique_keys("rows: 13"), Ok(()));
    }

    fn folder(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        folder
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let folder = folder("whole");
        let path = folder.join("out.json");
        std::fs::write(&path, "old").unwrap();
        write_whole(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);
    }

    #[test]
    fn a_write_through_a_symlink_replaces_the_file_it_names() {
        let folder = folder("symlink");
        std::fs::write(folder.join("real.json"), "old").unwrap();
        std::os::unix::fs::symlink(folder.join("real.json"), folder.join("link.json")).unwrap();
        write_whole(&folder.join("link.json"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(folder.join("real.json")).unwrap(), "new");
        assert!(std::fs::symlink_metadata(folder.join("link.json")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let folder = folder("failed");
        let path = folder.join("gone").join("out.json");
        assert!(write_whole(&path, b"new").is_err());
        assert!(!path.exists());
    }

    #[test]
    fn a_file_larger_than_the_bound_is_refused_as_it_is_read() {
        let error = read_bounded(Path::new("/dev/zero"), "result file", 1 << 20).unwrap_err();
        assert_eq!(error, "result file /dev/zero is larger than 1 MiB: refused");
        let folder = folder("bounded");
        std::fs::write(folder.join("a.json"), "{}").unwrap();
        assert_eq!(read_bounded(&folder.join("a.json"), "result file", 2).unwrap(), "{}");
        assert!(read_bounded(&folder.join("a.json"), "result file", 1).is_err());
        std::fs::write(folder.join("b.json"), [0xff, 0xfe]).unwrap();
        assert!(read_bounded(&folder.join("b.json"), "result file", 10).unwrap_err().contains("not UTF-8"));
        assert!(read_bounded(&folder, "result file", 10).unwrap_err().ends_with("it is a folder"));
    }

    #[test]
    fn one_file_by_two_paths_a_symlink_or_a_hard_link_is_one_file() {
        let folder = folder("same");
        let file = folder.join("c.json");
        std::fs::write(&file, "{}").unwrap();
        std::fs::hard_link(&file, folder.join("hard.json")).unwrap();
        std::os::unix::fs::symlink(&file, folder.join("soft.json")).unwrap();
        assert!(same_file(&file, &folder.join("hard.json")));
        assert!(same_file(&file, &folder.join("soft.json")));
        assert!(same_file(&file, &folder.join(".").join("c.json")));
        assert!(same_file(
            &folder.join("new.json"),
            &folder.join("..").join(folder.file_name().unwrap()).join("new.json")
        ));
        assert!(!same_file(&file, &folder.join("new.json")));
        let error =
            check_distinct(&[("--html", &folder.join("hard.json"))], &[("report", &file)]).unwrap_err();
        assert!(
            error.starts_with("--html ")
                && error.ends_with("names the file report reads: give the output a file of its own"),
            "{error}"
        );
        let error =
            check_distinct(&[("--json", &file), ("--csv", &folder.join("./c.json"))], &[]).unwrap_err();
        assert!(error.starts_with("--json and --csv both name "), "{error}");
    }

    #[test]
    fn a_fifo_is_taken_as_writable_without_being_opened() {
        let folder = folder("fifo");
        let fifo = folder.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // An open of the FIFO for writing would block here: no reader ever comes.
        assert_eq!(check_writable("--html", &fifo), Ok(()));
        // Nor is it opened for reading to tell two names of it apart: no writer comes either.
        assert!(same_file(&fifo, &folder.join(".").join("fifo")));
        assert_eq!(check_distinct(&[("--html", &fifo)], &[("report", &folder.join("a.json"))]), Ok(()));
        assert_eq!(
            check_writable("--json", &folder.join("none").join("x.json")),
            Err(format!(
                "cannot write {} (--json): its folder does not exist",
                folder.join("none").join("x.json").display()
            ))
        );
        assert!(check_writable("--json", &folder).unwrap_err().ends_with("it is a folder"));
    }
}
