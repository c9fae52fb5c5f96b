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

#[cfg(test)]
mod tests {
    use super::*;

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
