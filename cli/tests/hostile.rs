//! Hostile input, as a table: each case prepares a folder of its own (result files, journals,
//! links, a FIFO), runs `block-size` there (a sweep on the mock worker of
//! `examples/mock_worker.rs`, or `diff`, `report`, `occupancy`, `new`, which need no GPU), and
//! asserts what docs/reliability.md promises of every input:
//!
//! - no panic (never exit 101) and no hang (each run is killed after 30 s and fails the case);
//! - the documented exit status;
//! - a refusal (exit 2 or 3) is exactly one line on standard error, `Error: ...`, holding the
//!   case's words, with nothing on standard output;
//! - every file in the folder that the case does not name as written is byte for byte as it was,
//!   and no temporary file is left beside it.
//!
//! All cases run, and every failing one is listed, before the test fails.

mod support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::mock_worker;

/// What `{sweep}` in a case's arguments stands for: a small sweep on the mock worker.
const SWEEP: &str = "--width 64 --height 64 --warmups 0 --runs 2 --block-sizes 64,128";

/// Exit status, standard output, standard error; `None` for a run killed after 30 s.
type Ran = Option<(i32, String, String)>;

fn block_size(folder: &Path, args: &[String], env: &[(&str, &str)]) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_block-size"));
    command
        .args(args)
        .current_dir(folder)
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker())
        .env("RUST_BACKTRACE", "0");
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // A group of its own, so that a hung run is killed with every process it started.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || std::io::read_to_string(&mut out).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(&mut err).unwrap_or_default());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = Command::new("kill").args(["-KILL", &format!("-{}", child.id())]).status();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    status.map(|status| (status.code().unwrap_or(-1), out, err))
}

/// `{sweep}` expanded, then split at spaces; `{nl}` becomes a newline, `{rlo}` a
/// right-to-left override and `{empty}` nothing inside an argument.
fn arguments(line: &str) -> Vec<String> {
    line.replace("{sweep}", SWEEP)
        .split_whitespace()
        .map(|arg| arg.replace("{nl}", "\n").replace("{rlo}", "\u{202e}").replace("{empty}", ""))
        .collect()
}

/// A small sweep's JSON export and its journal, made once on the mock worker.
fn fixtures() -> &'static (String, String) {
    static MADE: OnceLock<(String, String)> = OnceLock::new();
    MADE.get_or_init(|| {
        let folder = std::env::temp_dir().join(format!("hostile-{}-fixtures", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        let ran = block_size(&folder, &arguments("{sweep} --json good.json --journal good.jsonl"), &[]);
        let (code, _, err) = ran.expect("the fixture sweep finishes");
        assert_eq!(code, 0, "the fixture sweep: {err}");
        (
            std::fs::read_to_string(folder.join("good.json")).unwrap(),
            std::fs::read_to_string(folder.join("good.jsonl")).unwrap(),
        )
    })
}

fn good() -> Value {
    serde_json::from_str(&fixtures().0).unwrap()
}

fn write(folder: &Path, name: &str, text: &str) {
    std::fs::write(folder.join(name), text).unwrap();
}

fn write_json(folder: &Path, name: &str, value: &Value) {
    write(folder, name, &serde_json::to_string_pretty(value).unwrap());
}

/// The good export with `change` made to it, as `bad.json`, and the good one as `good.json`.
fn good_and_bad(folder: &Path, change: impl FnOnce(&mut Value)) {
    let mut bad = good();
    change(&mut bad);
    write_json(folder, "good.json", &good());
    write_json(folder, "bad.json", &bad);
}

fn first_row(document: &mut Value) -> &mut Value {
    &mut document["rows"][0]
}

fn gpu_named(document: &mut Value, name: &str) {
    document["device"]["name"] = json!(name);
    if let Some(provenance) = document.get_mut("provenance").and_then(Value::as_object_mut)
        && provenance.contains_key("gpu")
    {
        provenance.insert("gpu".into(), json!(name));
    }
}

fn fifo(folder: &Path, name: &str) {
    let made = Command::new("mkfifo").arg(folder.join(name)).status().unwrap();
    assert!(made.success());
}

/// A reader of the FIFO `name` that copies what it gets to `into`, as `cat` would.
fn fifo_reader(folder: &Path, name: &str, into: &str) {
    let (from, to) = (folder.join(name), folder.join(into));
    std::thread::spawn(move || {
        let text = std::fs::read(&from).unwrap_or_default();
        std::fs::write(&to, text).unwrap();
    });
}

/// Waits up to 10 s for `name` to appear in `folder` (a FIFO reader's copy) and returns it.
fn arrived(folder: &Path, name: &str) -> String {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(text) = std::fs::read_to_string(folder.join(name)) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    String::new()
}

/// Every regular file under `folder`, by name, and its bytes.
fn contents(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    walk(folder, folder)
}

fn walk(root: &Path, folder: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if kind.is_dir() {
            files.extend(walk(root, &path));
        } else if kind.is_file() {
            files.insert(name, std::fs::read(&path).unwrap_or_default());
        }
    }
    files
}

/// A check of a case's folder after its run: `Err` says what did not hold.
type FolderCheck = fn(&Path) -> Result<(), String>;

/// One hostile input.
struct Case {
    /// What it is, for the failure list.
    name: &'static str,
    /// The folder's files before the run.
    setup: fn(&Path),
    /// The arguments (see [`arguments`]).
    args: &'static str,
    /// The mock worker's environment.
    env: &'static [(&'static str, &'static str)],
    /// The exit status.
    exit: i32,
    /// Words standard error must hold.
    says: &'static str,
    /// Files the run may write or replace; every other file stays as it was.
    writes: &'static [&'static str],
    /// A last check of the folder after the run.
    then: Option<FolderCheck>,
}

const NOTHING: fn(&Path) = |_| {};

impl Case {
    const fn new(name: &'static str, args: &'static str, exit: i32, says: &'static str) -> Self {
        Case { name, setup: NOTHING, args, env: &[], exit, says, writes: &[], then: None }
    }
    const fn given(mut self, setup: fn(&Path)) -> Self {
        self.setup = setup;
        self
    }
    const fn env(mut self, env: &'static [(&'static str, &'static str)]) -> Self {
        self.env = env;
        self
    }
    const fn writes(mut self, writes: &'static [&'static str]) -> Self {
        self.writes = writes;
        self
    }
    const fn then(mut self, then: FolderCheck) -> Self {
        self.then = Some(then);
        self
    }

    /// Runs the case in a folder of its own: `Err` says what did not hold.
    fn run(&self, index: usize) -> Result<(), String> {
        let folder = std::env::temp_dir().join(format!("hostile-{}-{index}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        (self.setup)(&folder);
        let before = contents(&folder);
        let Some((code, out, err)) = block_size(&folder, &arguments(self.args), self.env) else {
            return Err("still running after 30 s: killed".into());
        };
        let mut wrong = Vec::new();
        if code == 101 || err.contains("panicked") {
            wrong.push(format!("panicked: {err}"));
        }
        if code != self.exit {
            wrong.push(format!("exit {code}, not {}", self.exit));
        }
        if !err.contains(self.says) {
            wrong.push(format!("stderr does not say {:?}", self.says));
        }
        if self.exit >= 2 {
            if err.lines().count() != 1 || !err.starts_with("Error: ") {
                wrong.push("a refusal is not one `Error: ` line".into());
            }
            if !out.is_empty() {
                wrong.push(format!("a refusal printed on stdout: {out:?}"));
            }
        }
        let after = contents(&folder);
        for (name, bytes) in &before {
            if self.writes.contains(&name.as_str()) {
                continue;
            }
            match after.get(name) {
                None => wrong.push(format!("{name} is gone")),
                Some(now) if now != bytes => wrong.push(format!("{name} was changed")),
                Some(_) => {}
            }
        }
        for name in after.keys() {
            if name.ends_with(".tmp") {
                wrong.push(format!("a temporary file is left: {name}"));
            }
        }
        if let Some(Err(why)) = self.then.map(|then| then(&folder)) {
            wrong.push(why);
        }
        let _ = std::fs::remove_dir_all(&folder);
        match wrong.is_empty() {
            true => Ok(()),
            false => Err(format!("{}\n    stderr: {err:?}", wrong.join("; "))),
        }
    }
}

fn good_json(folder: &Path) {
    write(folder, "good.json", &fixtures().0);
}

fn good_journal(folder: &Path) {
    write(folder, "j.jsonl", &fixtures().1);
}

fn has(folder: &Path, name: &str, words: &str) -> Result<(), String> {
    match std::fs::read_to_string(folder.join(name)) {
        Ok(text) if text.contains(words) => Ok(()),
        Ok(_) => Err(format!("{name} does not hold {words:?}")),
        Err(error) => Err(format!("{name}: {error}")),
    }
}

fn cases() -> Vec<Case> {
    vec![
        // 1. Numbers that panicked or overflow.
        Case::new("a launch timeout of 1e99 s", "{sweep} --launch-timeout 1e99", 2, "--launch-timeout"),
        Case::new("a row budget of 1e20 s", "{sweep} --max-time-per-row 1e20", 2, "--max-time-per-row"),
        Case::new("an infinite launch timeout", "{sweep} --launch-timeout inf", 2, "--launch-timeout"),
        Case::new("a launch timeout that is not a number", "{sweep} --launch-timeout nan", 2, "--launch-timeout"),
        Case::new("a negative launch timeout", "{sweep} --launch-timeout -1", 2, "--launch-timeout"),
        Case::new("a zero launch timeout", "{sweep} --launch-timeout 0", 2, "--launch-timeout"),
        Case::new("a negative row budget", "{sweep} --max-time-per-row -5", 2, "--max-time-per-row"),
        Case::new("a row budget of 1e-300 s", "{sweep} --max-time-per-row 1e-300s", 2, "--max-time-per-row"),
        Case::new("a noise budget that is not a number", "--max-noise nan --width 64 --height 64", 2, "--max-noise"),
        Case::new("a noise budget above 1", "--max-noise 2 --width 64 --height 64", 2, "--max-noise"),
        Case::new("runs past u64", "{sweep} --runs 18446744073709551616", 2, "--runs"),
        Case::new("zero runs", "--width 64 --height 64 --runs 0", 2, "--runs"),
        Case::new("a zero width", "--width 0 --height 64", 2, "--width"),
        Case::new("a frame of 2^64 pixels", "--width 4294967296 --height 4294967296", 2, "--width"),
        Case::new("zero waves", "{sweep} --grid waves:0", 2, "waves"),
        Case::new("waves past u64", "{sweep} --grid waves:99999999999999999999", 2, "waves"),
        Case::new("an empty block size in a list", "--width 64 --height 64 --block-sizes 64,,128", 2, "--block-sizes"),
        Case::new("a block size past u32", "--width 64 --height 64 --block-sizes 99999999999", 2, "--block-sizes"),
        Case::new("a negative block size in a list", "--width 64 --height 64 --block-sizes -1,2", 2, "-1 is not in"),
        Case::new("an option where a list should be", "--width 64 --height 64 --block-sizes --json", 2, "--block-sizes"),
        Case::new("a repeated block size", "--width 64 --height 64 --block-sizes 64,64", 2, "twice"),
        Case::new("zero launches a sample", "{sweep} --launches-per-sample 0", 2, "--launches-per-sample"),
        Case::new("device -1", "{sweep} --device -1", 2, "--device"),
        Case::new("a device that is not there", "{sweep} --device 7", 3, "7"),
        Case::new("registers -1", "occupancy --gpu h200 --regs -1", 2, "--regs"),
        Case::new("registers past u32", "occupancy --gpu h200 --regs 99999999999", 2, "--regs"),
        Case::new("shared memory past u64", "occupancy --gpu h200 --smem 99999999999999999999", 2, "--smem"),
        Case::new("a block size past the preset's limit", "occupancy --gpu h200 --block-sizes 2048", 2, "2048"),
        Case::new("a GPU preset that is not one", "occupancy --gpu h900", 2, "h900"),
        // 2. A sweep whose every row failed keeps its exports.
        Case::new(
            "every row failed: every export is written with its failures",
            "--width 64 --height 64 --warmups 0 --runs 2 --block-sizes 512 --json a.json --csv a.csv --markdown a.md --html a.html",
            1,
            "512",
        )
        .env(&[("MOCK_FAULT_AT", "512")])
        .given(|folder| write(folder, "a.json", "old"))
        .writes(&["a.json", "a.csv", "a.md", "a.html"])
        .then(|folder| {
            has(folder, "a.json", "too many resources requested for launch")?;
            has(folder, "a.csv", "512")?;
            has(folder, "a.md", "No configuration was measured")?;
            match std::fs::read_to_string(folder.join("a.md")).unwrap_or_default().contains("95 percent") {
                true => Err(String::from("a.md says how many rows reach a fastest row there is not")),
                false => Ok(()),
            }?;
            has(folder, "a.html", "512")
        }),
        Case::new("the report of a sweep whose every row failed", "report failed.json --html r.html", 0, "")
            .given(|folder| {
                // The export of a real sweep whose every row failed, on the mock worker.
                let args = arguments("--width 64 --height 64 --warmups 0 --runs 2 --block-sizes 512 --json failed.json");
                let ran = block_size(folder, &args, &[("MOCK_FAULT_AT", "512")]);
                assert_eq!(ran.map(|(code, _, _)| code), Some(1), "the failing sweep");
            })
            .writes(&["r.html"]),
        // 3. Files clobbered.
        Case::new("a report over its own input", "report good.json --html ./good.json", 2, "good.json").given(good_json),
        Case::new("a report over its input by a symlink", "report good.json --html link.json", 2, "link.json").given(
            |folder| {
                good_json(folder);
                std::os::unix::fs::symlink(folder.join("good.json"), folder.join("link.json")).unwrap();
            },
        ),
        Case::new("a report over its input by a hard link", "report good.json --html hard.json", 2, "hard.json").given(
            |folder| {
                good_json(folder);
                std::fs::hard_link(folder.join("good.json"), folder.join("hard.json")).unwrap();
            },
        ),
        Case::new("a report over its input by another folder", "report good.json --html sub/../good.json", 2, "good.json")
            .given(|folder| {
                good_json(folder);
                std::fs::create_dir(folder.join("sub")).unwrap();
            }),
        Case::new("two exports of one file", "{sweep} --json d/s.json --csv ./d/s.json", 2, "--csv")
            .given(|folder| std::fs::create_dir(folder.join("d")).unwrap()),
        Case::new("an export over the emitted JSON", "{sweep} --json w.rs.json --emit-rust w.rs", 2, "w.rs.json"),
        Case::new("an export over --output", "{sweep} --output t.txt --json ./t.txt", 2, "t.txt")
            .given(|folder| write(folder, "t.txt", "kept")),
        Case::new("an export over the journal resumed", "{sweep} --resume j.jsonl --json j.jsonl", 2, "j.jsonl")
            .given(good_journal),
        Case::new("emitted Rust over the journal resumed", "{sweep} --resume j.jsonl --emit-rust j.jsonl", 2, "j.jsonl")
            .given(good_journal),
        Case::new("the journal written as an export", "{sweep} --journal j.jsonl --json j.jsonl", 2, "j.jsonl"),
        Case::new("the plot over the HTML report", "{sweep} --plot p.svg --html p.svg", 2, "p.svg"),
        Case::new("emitted Rust over a hand-written file", "{sweep} --emit-rust main.rs", 2, "--force")
            .given(|folder| write(folder, "main.rs", "fn main() { println!(\"mine\"); }\n")),
        Case::new("emitted Rust over a hand-written file, forced", "{sweep} --emit-rust main.rs --force", 0, "")
            .given(|folder| write(folder, "main.rs", "fn main() { println!(\"mine\"); }\n"))
            .writes(&["main.rs", "main.rs.json"])
            .then(|folder| has(folder, "main.rs", "config_for")),
        Case::new("an export that is a folder", "{sweep} --json d", 2, "d")
            .given(|folder| std::fs::create_dir(folder.join("d")).unwrap()),
        Case::new("an export in a folder that is not there", "{sweep} --json none/x.json", 2, "none/x.json"),
        Case::new("the journal resumed and continued", "{sweep} --resume j.jsonl --journal j.jsonl", 0, "")
            .given(good_journal)
            .writes(&["j.jsonl"]),
        // 4. Impossible data.
        Case::new("a negative median", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = json!(-0.072))),
        Case::new("a zero median", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = json!(0.0))),
        Case::new("a median of 1e308 ms", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = json!(1e308))),
        Case::new("a median that is null", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = Value::Null)),
        Case::new("a median that is a string", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = json!("NaN"))),
        Case::new("a negative sample", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["run_ms"][0] = json!(-5.0))),
        Case::new("a measured row without samples", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["run_ms"] = json!([]))),
        Case::new("a failed row without samples", "diff good.json bad.json", 2, "bad.json").given(|folder| {
            good_and_bad(folder, |bad| {
                first_row(bad)["failed"] = json!("an illegal memory access was encountered");
                first_row(bad).as_object_mut().unwrap().remove("run_ms");
            })
        }),
        Case::new("a hash that is not hex", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| bad["ptx_sha256"] = json!("é".repeat(40)))),
        Case::new("the report of a hash that is not hex", "report bad.json --html r.html", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| bad["ptx_sha256"] = json!("é".repeat(40)))),
        Case::new("the report of a negative median", "report bad.json --html r.html", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| first_row(bad)["median_ms"] = json!(-5.0))),
        Case::new("a schema from the future", "diff good.json bad.json", 2, "bad.json")
            .given(|folder| good_and_bad(folder, |bad| bad["schema_version"] = json!(99))),
        Case::new("a file that is not JSON", "diff good.json bad.json", 2, "bad.json").given(|folder| {
            good_json(folder);
            write(folder, "bad.json", "rows: 13\n");
        }),
        Case::new("an empty file", "diff good.json bad.json", 2, "bad.json").given(|folder| {
            good_json(folder);
            write(folder, "bad.json", "");
        }),
        Case::new("a JSON array", "diff good.json bad.json", 2, "bad.json").given(|folder| {
            good_json(folder);
            write(folder, "bad.json", "[]");
        }),
        Case::new("a file without end", "diff good.json /dev/zero", 2, "/dev/zero").given(good_json),
        Case::new("a folder as a result file", "diff good.json d", 2, "d").given(|folder| {
            good_json(folder);
            std::fs::create_dir(folder.join("d")).unwrap();
        }),
        Case::new("a result file that is not there", "diff good.json none.json", 2, "none.json").given(good_json),
        Case::new("a journal with a negative sample", "{sweep} --resume j.jsonl", 2, "j.jsonl").given(|folder| {
            let lines: Vec<String> = fixtures()
                .1
                .lines()
                .map(|line| {
                    let mut entry: Value = serde_json::from_str(line).unwrap();
                    if let Some(samples) = find_samples(&mut entry) {
                        samples[0] = json!(-1.0);
                    }
                    entry.to_string()
                })
                .collect();
            write(folder, "j.jsonl", &(lines.join("\n") + "\n"));
        }),
        // 5. A torn journal.
        Case::new("a journal whose last line was torn", "{sweep} --resume j.jsonl", 0, "j.jsonl").given(|folder| {
            let journal = &fixtures().1;
            write(folder, "j.jsonl", &journal[..journal.len() - 20]);
        }),
        Case::new("a journal with a broken line before its end", "{sweep} --resume j.jsonl", 2, "j.jsonl").given(
            |folder| {
                let journal = &fixtures().1;
                write(folder, "j.jsonl", &format!("{{\"torn\n{journal}"));
            },
        ),
        // 6. FIFOs: written in place, never probed.
        Case::new("a report into a FIFO with a reader", "report good.json --html page.fifo", 0, "")
            .given(|folder| {
                good_json(folder);
                fifo(folder, "page.fifo");
                fifo_reader(folder, "page.fifo", "page.html");
            })
            .writes(&["page.html"])
            .then(|folder| match arrived(folder, "page.html").contains("</html>") {
                true => Ok(()),
                false => Err("the FIFO's reader got no page".into()),
            }),
        Case::new("an export into a FIFO with a reader", "{sweep} --json export.fifo", 0, "")
            .given(|folder| {
                fifo(folder, "export.fifo");
                fifo_reader(folder, "export.fifo", "export.json");
            })
            .writes(&["export.json"])
            .then(|folder| match arrived(folder, "export.json").contains("\"rows\"") {
                true => Ok(()),
                false => Err("the FIFO's reader got no export".into()),
            }),
        // 7. Lines that split or say nothing.
        Case::new("a path with a newline", "{sweep} --json no{nl}such/x.json", 2, "no\\nsuch"),
        Case::new("a path with a right-to-left override", "{sweep} --json no{rlo}such/x.json", 2, "\\u{202e}"),
        Case::new("a result file named with a newline", "diff good.json a{nl}b.json", 2, "a\\nb.json").given(good_json),
        Case::new("GPU names with a newline and an override", "diff good.json bad.json", 2, "\\n").given(|folder| {
            good_and_bad(folder, |bad| gpu_named(bad, "NVIDIA H200\nfake\u{202e}"))
        }),
        Case::new("diff with one file", "diff good.json", 2, "NEW").given(good_json),
        Case::new("diff with no file", "diff", 2, "OLD"),
        Case::new("report without --html", "report good.json", 2, "--html").given(good_json),
        Case::new("an option that is not one", "--frobnicate", 2, "--frobnicate"),
        Case::new("a kernel that is not one", "--kernel nosuch --width 64 --height 64", 2, "nosuch"),
        Case::new("a format that is not one", "--format xml --width 64 --height 64", 2, "xml"),
        Case::new("a subcommand that is not one", "frobnicate", 2, "frobnicate"),
        // 8. `new`: bad input is exit 2.
        Case::new("a project under /sys", "new /sys/x", 2, "/sys/x"),
        Case::new("a project under a file", "new file/sub", 2, "file/sub").given(|folder| write(folder, "file", "")),
        Case::new("a project over a folder with files", "new full", 2, "full")
            .given(|folder| {
                std::fs::create_dir(folder.join("full")).unwrap();
                write(folder, "full/notes.txt", "mine");
            }),
        Case::new("a project named with nothing", "new {empty}", 2, "<PATH>"),
        // 9. The HTML page.
        Case::new("a GPU name that opens a comment and a script", "report odd.json --html r.html", 0, "")
            .given(|folder| {
                let mut odd = good();
                gpu_named(&mut odd, "H200 <!--<script>alert(1)</script>");
                write_json(folder, "odd.json", &odd);
            })
            .writes(&["r.html"])
            .then(|folder| {
                let page = std::fs::read_to_string(folder.join("r.html")).map_err(|error| error.to_string())?;
                match page.contains("<!--<script>") || page.contains("alert(1)</script>") {
                    true => Err("the GPU's name stands unescaped in the page".into()),
                    false => Ok(()),
                }
            }),
        Case::new("a GPU name with a right-to-left override", "report odd.json --html r.html", 0, "")
            .given(|folder| {
                let mut odd = good();
                gpu_named(&mut odd, "H200 \u{202e}reversed");
                write_json(folder, "odd.json", &odd);
            })
            .writes(&["r.html"])
            .then(|folder| {
                let page = std::fs::read_to_string(folder.join("r.html")).map_err(|error| error.to_string())?;
                match page.contains('\u{202e}') {
                    true => Err("the override stands in the page".into()),
                    false => Ok(()),
                }
            }),
    ]
}

/// The samples of a journal entry, wherever its layout keeps them.
fn find_samples(entry: &mut Value) -> Option<&mut Vec<Value>> {
    match entry {
        Value::Object(map) => {
            let key = ["samples", "run_ms"].into_iter().find(|key| {
                map.get(*key).and_then(Value::as_array).is_some_and(|samples| !samples.is_empty())
            });
            match key {
                Some(key) => map.get_mut(key).and_then(Value::as_array_mut),
                None => map.values_mut().find_map(find_samples),
            }
        }
        _ => None,
    }
}

#[test]
fn every_hostile_input_gets_its_line_and_exit_and_leaves_every_file_intact() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let failed: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(index, case)| {
            case.run(index).err().map(|why| format!("{} ({}): {why}", case.name, case.args))
        })
        .collect();
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), cases.len(), failed.join("\n"));
}
