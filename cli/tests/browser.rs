//! The HTML report's occupancy explorer in a real browser: headless chromium loads the page
//! from disk with 50 configurations (seeded) in its URL's hash; the page's script sets each as
//! a user would (the GPU menu, then each slider, each with its event) and writes what the
//! page then shows into the DOM; chromium dumps the DOM, and every blocks/SM, warps/SM,
//! occupancy and binding limit shown must be `block-size occupancy`'s answer.
//!
//! Chromium is found as `$CHROMIUM`, or `chromium` / `chromium-browser` on PATH. Where there is
//! none the test says SKIPPED; under `CI=true` (as `.ci/run` sets, after installing Debian's
//! chromium) a missing browser fails it.

use block_size_cli::app;
use block_size_runner::Console;
use block_size_runner::commands;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Configurations the browser sets and reads back.
const CONFIGURATIONS: usize = 50;

/// Says SKIPPED on the terminal even when the harness captures output.
macro_rules! skipped {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The browser, or why there is none.
fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("CHROMIUM").filter(|path| !path.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("$CHROMIUM, {}, is not a file", path.display()))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for folder in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = folder.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err("no chromium on PATH and no $CHROMIUM (Debian: apt-get install chromium)".to_string())
}

/// SplitMix64: the configurations are the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn within(&mut self, low: u32, high: u32) -> u32 {
        low + (self.next() % u64::from(high - low + 1)) as u32
    }
}

/// One configuration: GPU key, threads per block, registers per thread, shared memory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Configuration {
    gpu: String,
    threads: u32,
    registers: u32,
    shared: u32,
}

/// 50 configurations over every GPU the explorer offers: half the block sizes multiples of a
/// warp, registers and shared memory sometimes small (where warps and blocks bind), sometimes
/// anywhere (where registers and shared memory do). Shared memory stays within the T4's 64 KiB,
/// the smallest slider.
fn configurations() -> Vec<Configuration> {
    let mut random = Random(20261201);
    let gpus = ["t4", "rtx5090", "h100", "h200", "measured"];
    (0..CONFIGURATIONS)
        .map(|index| Configuration {
            gpu: gpus[index % gpus.len()].to_string(),
            threads: if random.next().is_multiple_of(2) {
                32 * random.within(1, 32)
            } else {
                random.within(1, 1024)
            },
            registers: if random.next().is_multiple_of(2) {
                random.within(16, 64)
            } else {
                random.within(0, 255)
            },
            shared: match random.next() % 5 {
                0 => 0,
                1 | 2 => random.within(0, 2048),
                _ => random.within(0, 65536),
            },
        })
        .collect()
}

/// A mock sweep's HTML report (a Mock H200, whose limits are the H200 preset's).
fn report(folder: &Path) -> PathBuf {
    report_with(folder, &[])
}

/// [`report`] with more options.
fn report_with(folder: &Path, more: &[&str]) -> PathBuf {
    let html = folder.join("sweep.html");
    let args: Vec<std::ffi::OsString> = [
        "block-size",
        "--width",
        "64",
        "--height",
        "64",
        "--runs",
        "3",
        "--block-sizes",
        "64,256,1024",
        "--html",
        html.to_str().unwrap(),
    ]
    .iter()
    .chain(more)
    .map(Into::into)
    .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(
        &block_size_builtin::mock::h200(),
        &args,
        &mut Console { out: &mut out, err: &mut err },
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    html
}

/// Runs chromium headless on `url` and returns the DOM it dumps, killing it after a minute.
fn dump_dom(chromium: &Path, url: &str, profile: &Path) -> String {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--no-default-browser-check",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", chromium.display()));
    let reader = {
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text)
        })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap().unwrap()
}

/// What `block-size occupancy` answers: blocks/SM, warps/SM, occupancy in whole percent, the
/// binding limits.
fn occupancy(gpu: &str, threads: u32, registers: u32, shared: u32) -> (u32, u32, u32, String) {
    let (registers, shared, threads_text) = (registers.to_string(), shared.to_string(), threads.to_string());
    let options = ["--gpu", gpu, "--regs", &registers, "--smem", &shared, "--block-sizes", &threads_text];
    let table = commands::occupancy(&commands::OccupancyArgs::from_args(options).unwrap()).unwrap();
    let row = table.lines().last().unwrap();
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(words[0], threads.to_string(), "{table}");
    let percent = words[4].trim_end_matches('%').parse().unwrap();
    (words[2].parse().unwrap(), words[3].parse().unwrap(), percent, words[5..].join(" "))
}

#[test]
fn the_explorer_in_chromium_shows_the_occupancy_models_answers() {
    let chromium = match chromium() {
        Ok(chromium) => chromium,
        Err(why) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("CI=true, so the browser test may not be skipped: {why}")
        }
        Err(why) => {
            skipped!("SKIPPED the_explorer_in_chromium_shows_the_occupancy_models_answers: {why}");
            return;
        }
    };
    let folder = std::env::temp_dir().join(format!("block-size-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("profile")).unwrap();
    let html = report(&folder);

    let asked = configurations();
    let hash: Vec<String> =
        asked.iter().map(|c| format!("{}:{}:{}:{}", c.gpu, c.threads, c.registers, c.shared)).collect();
    let url = format!("file://{}#check={}", html.display(), hash.join(","));
    let dom = dump_dom(&chromium, &url, &folder.join("profile"));
    let start = dom.find("<pre id=\"explorer-check\">").unwrap_or_else(|| panic!("no check output:\n{dom}"));
    let shown = &dom[start + "<pre id=\"explorer-check\">".len()..];
    let shown = &shown[..shown.find("</pre>").unwrap()];
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), CONFIGURATIONS, "{shown}");

    let mut bindings = std::collections::BTreeSet::new();
    for (configuration, line) in asked.iter().zip(&lines) {
        let fields: Vec<&str> = line.split('|').collect();
        let [gpu, threads, registers, shared, blocks, warps, percent, binding] = fields[..] else {
            panic!("{line}")
        };
        // The sliders hold what was asked: nothing was clamped.
        assert_eq!(
            (gpu, threads, registers, shared),
            (
                configuration.gpu.as_str(),
                configuration.threads.to_string().as_str(),
                configuration.registers.to_string().as_str(),
                configuration.shared.to_string().as_str()
            ),
            "{line}"
        );
        // The measured GPU is the Mock H200, whose limits are the H200 preset's.
        let preset = if gpu == "measured" { "h200" } else { gpu };
        let expected =
            occupancy(preset, configuration.threads, configuration.registers, configuration.shared);
        let percent: f64 = percent.trim_end_matches('%').parse().unwrap();
        assert_eq!(blocks.parse::<u32>().unwrap(), expected.0, "blocks/SM: {line} vs {expected:?}");
        assert_eq!(warps.parse::<u32>().unwrap(), expected.1, "warps/SM: {line} vs {expected:?}");
        assert!((percent - f64::from(expected.2)).abs() <= 0.5 + 1e-9, "occupancy: {line} vs {expected:?}");
        assert_eq!(binding, expected.3, "binding limit: {line} vs {expected:?}");
        bindings.insert(expected.3);
    }
    // The configurations reach every kind of limit.
    for limit in ["warps", "blocks", "registers", "shared memory"] {
        assert!(
            bindings.iter().any(|binding| binding.split('+').any(|one| one == limit)),
            "{limit}: {bindings:?}"
        );
    }
    let _ = std::fs::remove_dir_all(folder);
}

/// Issue 25: a GPU whose name holds `<!--<script>`, `</script>` and a right-to-left override
/// still gets a working page: the explorer's model parses, its answers are the model's, and
/// no bidirectional control reaches the text.
#[test]
fn a_hostile_gpu_name_leaves_the_explorer_working() {
    let chromium = match chromium() {
        Ok(chromium) => chromium,
        Err(why) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("CI=true, so the browser test may not be skipped: {why}")
        }
        Err(why) => {
            skipped!("SKIPPED a_hostile_gpu_name_leaves_the_explorer_working: {why}");
            return;
        }
    };
    let folder = std::env::temp_dir().join(format!("block-size-browser-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("profile")).unwrap();
    let html = folder.join("sweep.html");
    let mut gpu = block_size_builtin::mock::h200_like();
    gpu.limits.name = "H200 <!--<script> </script> & \u{2028} \u{202e}lmth".into();
    let driver = block_size_runner::mock::MockDriver { cuda_version: 13000, devices: vec![gpu] };
    let args: Vec<std::ffi::OsString> =
        ["block-size", "--width", "64", "--height", "64", "--runs", "3", "--block-sizes", "64,256"]
            .iter()
            .map(Into::into)
            .chain([std::ffi::OsString::from("--html"), html.clone().into()])
            .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(&driver, &args, &mut Console { out: &mut out, err: &mut err });
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));

    let url = format!("file://{}#check=measured:256:32:0,h200:1024:64:0", html.display());
    let dom = dump_dom(&chromium, &url, &folder.join("profile"));
    let start = dom.find("<pre id=\"explorer-check\">").unwrap_or_else(|| panic!("no check output:\n{dom}"));
    let shown = &dom[start + "<pre id=\"explorer-check\">".len()..];
    let lines: Vec<&str> = shown[..shown.find("</pre>").unwrap()].lines().collect();
    assert_eq!(lines.len(), 2, "{shown}");
    for (line, (threads, registers)) in lines.iter().zip([(256, 32), (1024, 64)]) {
        let fields: Vec<&str> = line.split('|').collect();
        let expected = occupancy("h200", threads, registers, 0);
        assert_eq!(fields[4].parse::<u32>().unwrap(), expected.0, "{line} vs {expected:?}");
        assert_eq!(fields[7], expected.3, "{line} vs {expected:?}");
    }
    // The menu names the measured GPU as the page was given it, its override shown, not obeyed.
    assert!(dom.contains("H200 &lt;!--&lt;script&gt; &lt;/script&gt; &amp;"), "{dom}");
    assert!(dom.contains("\\u{202e}lmth") && !dom.contains('\u{202e}'), "{dom}");
    let _ = std::fs::remove_dir_all(folder);
}

/// `--counters`' columns in the HTML report: shown, and hidden by their checkbox, which
/// `#counters=off` in the address unticks as the page loads.
#[test]
fn the_counters_checkbox_hides_their_columns() {
    let chromium = match chromium() {
        Ok(chromium) => chromium,
        Err(why) if std::env::var("CI").is_ok_and(|ci| ci == "true") => {
            panic!("CI=true, so the browser test may not be skipped: {why}")
        }
        Err(why) => {
            skipped!("SKIPPED the_counters_checkbox_hides_their_columns: {why}");
            return;
        }
    };
    let folder = std::env::temp_dir().join(format!("block-size-browser-counters-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("profile")).unwrap();
    let html = report_with(&folder, &["--counters"]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<th class=\"counter\">DRAM GB/s</th>"), "the columns are in the page");
    let shown = dump_dom(&chromium, &format!("file://{}", html.display()), &folder.join("profile"));
    assert!(shown.contains("<table class=\"rows\">"), "shown: the table keeps its class alone");
    let hidden =
        dump_dom(&chromium, &format!("file://{}#counters=off", html.display()), &folder.join("profile"));
    assert!(hidden.contains("<table class=\"rows no-counters\">"), "hidden by the unticked box");
    assert!(hidden.contains("class=\"counters-toggle\""), "{hidden}");
    let _ = std::fs::remove_dir_all(folder);
}
