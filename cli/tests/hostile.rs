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
/// right-to-left override, `{empty}` nothing and `{100k}` 100 000 `x`s inside an argument.
fn arguments(line: &str) -> Vec<String> {
    line.replace("{sweep}", SWEEP)
        .split_whitespace()
        .map(|arg| {
            arg.replace("{nl}", "\n")
                .replace("{rlo}", "\u{202e}")
                .replace("{empty}", "")
                .replace("{100k}", &"x".repeat(100_000))
        })
        .collect()
}

/// The longest refusal line a case accepts: a line quotes what it names, cut where long.
const LONGEST_REFUSAL: usize = 1000;

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

/// The two shards of the small sweep (`--shard 1/2`, `--shard 2/2`), their JSON exports, made
/// once on the mock worker.
fn shards() -> &'static (String, String) {
    static MADE: OnceLock<(String, String)> = OnceLock::new();
    MADE.get_or_init(|| {
        let folder = std::env::temp_dir().join(format!("hostile-{}-shards", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).unwrap();
        for index in 1..=2 {
            let args = arguments(&format!("{{sweep}} --shard {index}/2 --json s{index}.json"));
            let (code, _, err) = block_size(&folder, &args, &[]).expect("the fixture shard finishes");
            assert_eq!(code, 0, "the fixture shard {index}: {err}");
        }
        let read = |name: &str| std::fs::read_to_string(folder.join(name)).unwrap();
        (read("s1.json"), read("s2.json"))
    })
}

/// The two shards, the first with its `shard.index` set to `index`.
fn shards_with_first_at(folder: &Path, index: u32) {
    let mut first: Value = serde_json::from_str(&shards().0).unwrap();
    first["shard"]["index"] = json!(index);
    write_json(folder, "s1.json", &first);
    write(folder, "s2.json", &shards().1);
}

/// Kernel Tuner's cache and T4 file of runner/src/tests/t4/ (written by Kernel Tuner 1.5.0 of
/// synthetic numbers).
const CACHE: &str = include_str!("../../runner/src/tests/t4/kernel-tuner.cache.json");
const T4: &str = include_str!("../../runner/src/tests/t4/kernel-tuner.t4.json");

/// `text` with `from` replaced by `to` once, where `from` must be.
fn edited(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the fixture holds {from:?}");
    text.replacen(from, to, 1)
}

/// Whether the Rust source `name` compiles as a library and defines no function named
/// `evil...` or `injected`: rustc's own printing of what it parsed (`-Zunpretty=normal`, the
/// pinned nightly's), comments dropped, is searched.
fn defines_no_injected_item(folder: &Path, name: &str) -> Result<(), String> {
    let out_dir = std::env::temp_dir().join(format!("hostile-rustc-{}", std::process::id()));
    let compiled = Command::new("rustc")
        .args(["--edition", "2021", "--crate-type", "lib", "--emit=metadata", "-D", "warnings", "--out-dir"])
        .arg(&out_dir)
        .arg(name)
        .current_dir(folder)
        .output()
        .map_err(|error| error.to_string())?;
    let _ = std::fs::remove_dir_all(&out_dir);
    if !compiled.status.success() {
        return Err(format!("{name} does not compile: {}", String::from_utf8_lossy(&compiled.stderr)));
    }
    let output = Command::new("rustc")
        .args(["--edition", "2021", "--crate-type", "lib", "-Zunpretty=normal", name])
        .current_dir(folder)
        .output()
        .map_err(|error| error.to_string())?;
    if !output.status.success() {
        return Err(format!("{name} does not compile: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let parsed = String::from_utf8_lossy(&output.stdout);
    // An item starts its line in rustc's printing; a string literal holding the words does not.
    match parsed
        .lines()
        .map(|line| line.trim_start().trim_start_matches("pub "))
        .find(|line| line.starts_with("fn evil") || line.starts_with("fn injected"))
    {
        Some(line) => Err(format!("{name} defines {line:?}")),
        None => Ok(()),
    }
}

/// The small sweep's JSON export on a GPU named "Mock T4" beside the one on the mock H200,
/// both in `folder` (`h200.json`, `t4.json`), and their merge as `m.json`: a JSON array.
fn two_models_merged(folder: &Path) {
    good_json(folder);
    std::fs::rename(folder.join("good.json"), folder.join("h200.json")).unwrap();
    let ran = block_size(folder, &arguments("{sweep} --json t4.json"), &[("MOCK_GPU_NAME", "Mock T4")]);
    assert_eq!(ran.map(|(code, ..)| code), Some(0), "the T4 sweep");
    let ran = block_size(folder, &arguments("merge h200.json t4.json --json m.json"), &[]);
    assert_eq!(ran.map(|(code, ..)| code), Some(0), "the merge");
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
            if err.len() > LONGEST_REFUSAL {
                wrong.push(format!("a refusal of {} bytes", err.len()));
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
        // 10. Round four's features (issue 45): merge, shards, the emitted Rust, energy and
        // Kernel Tuner's files.
        Case::new("a merge part of shard 0", "merge s1.json s2.json", 2, "shard 0/2 is no shard")
            .given(|folder| shards_with_first_at(folder, 0)),
        Case::new("a merge part of shard 3 of 2", "merge s1.json s2.json --json m.json", 2, "shard 3/2 is no shard")
            .given(|folder| shards_with_first_at(folder, 3)),
        Case::new("the merge of both shards", "merge s1.json s2.json --json m.json", 0, "")
            .given(|folder| shards_with_first_at(folder, 1))
            .writes(&["m.json"])
            .then(|folder| has(folder, "m.json", "\"merged_from\"")),
        Case::new(
            "a GPU's export named over the journal resumed",
            "{sweep} --device all --json p8.json --resume p8-gpu1.json",
            2,
            "p8-gpu1.json",
        )
        .env(&[("MOCK_DEVICES", "2")])
        .given(|folder| write(folder, "p8-gpu1.json", &fixtures().1)),
        Case::new("a GPU name that breaks out of a comment", "{sweep} --emit-rust w.rs", 0, "")
            .env(&[("MOCK_GPU_NAME", "X */ pub fn evil1() {} //\n pub fn evil2() {} //")])
            .writes(&["w.rs", "w.rs.json"])
            .then(|folder| defines_no_injected_item(folder, "w.rs")),
        Case::new("GPU names with a line break, U+2028 and NUL", "{sweep} --emit-rust w.rs", 0, "")
            .env(&[("MOCK_GPU_NAME", "H200\u{2028}pub fn evil3() {}\rpub fn evil4() {}")])
            .writes(&["w.rs", "w.rs.json"])
            .then(|folder| defines_no_injected_item(folder, "w.rs")),
        Case::new("merge --emit-rust of a part whose GPU name holds code", "merge bad.json --emit-rust w.rs", 0, "")
            .given(|folder| good_and_bad(folder, |bad| gpu_named(bad, "H200\npub fn injected() {}")))
            .writes(&["w.rs", "w.rs.json"])
            .then(|folder| defines_no_injected_item(folder, "w.rs")),
        Case::new("a split across more GPUs than configurations", "{sweep} --device all --split", 0, "Note: --split")
            .env(&[("MOCK_DEVICES", "8")]),
        Case::new("FILE.rs.json whose winners are no list", "{sweep} --emit-rust w.rs", 2, "--force")
            .given(|folder| write(folder, "w.rs.json", r#"{"kernel": "grayscale", "axes": [], "winners": 5}"#)),
        Case::new("FILE.rs.json with a key twice", "{sweep} --emit-rust w.rs", 2, "given twice").given(|folder| {
            write(folder, "w.rs.json", r#"{"kernel": "grayscale", "axes": [], "winners": [], "winners": []}"#)
        }),
        Case::new(
            "a second kernel's winner into the first's file",
            "--kernel histogram --bins 256 --width 64 --height 64 --warmups 0 --runs 2 --block-sizes 64,128 --emit-rust w.rs",
            2,
            "--force",
        )
        .given(|folder| {
            let ran = block_size(folder, &arguments("{sweep} --emit-rust w.rs"), &[]);
            assert_eq!(ran.map(|(code, ..)| code), Some(0), "the first kernel's winner");
        }),
        Case::new("every row at 0 W", "{sweep} --energy --json e.json --output o.txt", 0, "")
            .env(&[("MOCK_SENSORS", "1"), ("MOCK_WATTS", "64:0,128:0")])
            .writes(&["e.json", "o.txt"])
            .then(|folder| {
                has(folder, "o.txt", "2 of 2 measured row(s) have no reading (n/a)")?;
                let export: Value = serde_json::from_str(&std::fs::read_to_string(folder.join("e.json")).unwrap())
                    .map_err(|error| error.to_string())?;
                match export["rows"].as_array().is_some_and(|rows| rows.iter().all(|row| row["energy"].is_null())) {
                    true => Ok(()),
                    false => Err("a row at 0 W has an energy".into()),
                }
            }),
        Case::new("one row at 0 W under --objective energy", "{sweep} --energy --objective energy --output o.txt", 0, "")
            .env(&[("MOCK_SENSORS", "1"), ("MOCK_WATTS", "64:0")])
            .writes(&["o.txt"])
            .then(|folder| has(folder, "o.txt", "Winner by --objective energy: 128 threads per block")),
        Case::new("a cache entry whose __error__ is no kind of Kernel Tuner's", "report c.json --html r.html", 2, "__error__")
            .given(|folder| write(folder, "c.json", &edited(CACHE, "\"RuntimeFailedConfig\"", "\"BogusConfig\""))),
        Case::new("a cache key that is not its entry's", "report c.json --html r.html", 2, "\"64,1,1\"").given(|folder| {
            write(folder, "c.json", &edited(CACHE, "\"64,1,1\": {\"block_size_x\": 64", "\"64,1,1\": {\"block_size_x\": 96"))
        }),
        Case::new("a cache with an entry given twice", "report c.json --html r.html", 2, "given twice").given(|folder| {
            let entry = "\"128,2,1\": {\"block_size_x\": 128, \"block_size_y\": 2, \"items_per_thread\": 1, \"time\": 9.0},\n";
            write(folder, "c.json", &edited(CACHE, "\"256,1,4\":", &format!("{entry}\"256,1,4\":")))
        }),
        Case::new("a result with a key twice", "diff good.json bad.json", 2, "given twice").given(|folder| {
            good_json(folder);
            write(folder, "bad.json", &edited(&fixtures().0, "{", "{\n  \"rows\": [],"));
        }),
        Case::new("a T4 result measured at a block of 2^32 - 1", "report t.json --html r.html", 2, "no CUDA GPU launches")
            .given(|folder| write(folder, "t.json", &edited(T4, "\"block_size_x\": 64", "\"block_size_x\": 4294967295"))),
        Case::new("diff of a merge of two GPU models", "diff m.json h200.json", 2, "2 GPU models").given(two_models_merged),
        Case::new("merge of a merge of two GPU models", "merge m.json --json again.json", 0, "")
            .given(two_models_merged)
            .writes(&["again.json"])
            .then(|folder| match std::fs::read(folder.join("again.json")).ok() == std::fs::read(folder.join("m.json")).ok() {
                true => Ok(()),
                false => Err("the merge of a merge is not the merge".into()),
            }),
        Case::new("the report of a merge of two GPU models", "report m.json --html r.html", 0, "")
            .given(two_models_merged)
            .writes(&["r.html"])
            .then(|folder| has(folder, "r.html", "Mock T4")),
        Case::new("a GPU name that opens a heading and a table row in Markdown", "{sweep} --markdown a.md", 0, "")
            .env(&[("MOCK_GPU_NAME", "H200\n# Injected heading\n| a | b |")])
            .writes(&["a.md"])
            .then(|folder| {
                let page = std::fs::read_to_string(folder.join("a.md")).map_err(|error| error.to_string())?;
                match page.lines().find(|line| line.starts_with("# Injected") || line.starts_with("| a ")) {
                    Some(line) => Err(format!("the GPU's name made the line {line:?}")),
                    None => Ok(()),
                }
            }),
        Case::new("a block shape with a minus", "--block-shapes -32x8 --width 64 --height 64", 2, "-32x8"),
        Case::new("a kernel name of 100 000 characters", "--kernel {100k} --width 64 --height 64", 2, "(100000 characters)"),
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
    assert!(cases.len() >= 85, "{} cases", cases.len());
    let failed: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(index, case)| {
            case.run(index).err().map(|why| format!("{} ({}): {why}", case.name, case.args))
        })
        .collect();
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), cases.len(), failed.join("\n"));
}
