//! The HTML report: `--html FILE` during a mock sweep and `block-size report RESULT.json --html
//! FILE` after it write the same page; the page is self-contained and has the table, the plot,
//! the provenance, the summary and the occupancy explorer; bad input is one line, exit 2.

use assert_cmd::Command;
use block_size_cli::app;
use block_size_runner::Console;
use block_size_runner::mock::MockDriver;
use std::path::PathBuf;

fn run(driver: &MockDriver, args: &[&str]) -> (i32, String, String) {
    let args: Vec<std::ffi::OsString> =
        std::iter::once("block-size").chain(args.iter().copied()).map(Into::into).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(driver, &args, &mut Console { out: &mut out, err: &mut err });
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("block-size-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

fn block_size() -> Command {
    let mut command = Command::cargo_bin("block-size").unwrap();
    command.env_remove("LD_LIBRARY_PATH");
    command
}

/// A mock sweep of the histogram (4096 bins: shared memory binds at small blocks), with its
/// JSON and HTML.
fn sweep(folder: &std::path::Path) -> (String, String) {
    let (json, html) = (folder.join("sweep.json"), folder.join("sweep.html"));
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].answer_16_kib_as_the_h200();
    driver.devices[0].run_spread = 0.02;
    driver.devices[0].milliseconds = vec![(64, 0.6), (256, 0.5), (1024, 0.55)];
    let (code, stdout, stderr) = run(
        &driver,
        &[
            "--kernel",
            "histogram",
            "--bins",
            "4096",
            "--width",
            "64",
            "--height",
            "64",
            "--warmups",
            "0",
            "--runs",
            "5",
            "--block-sizes",
            "64,100,256,1024",
            "--json",
            json.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(" thr/blk "), "the table on standard output: {stdout}");
    (json.to_str().unwrap().to_string(), html.to_str().unwrap().to_string())
}

#[test]
fn the_page_during_the_sweep_and_from_its_json_are_the_same() {
    let folder = scratch("same");
    let (json, html) = sweep(&folder);
    let again = folder.join("again.html");
    let output = block_size().args(["report", &json, "--html", again.to_str().unwrap()]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    assert_eq!(std::fs::read_to_string(&html).unwrap(), std::fs::read_to_string(&again).unwrap());
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn the_page_is_self_contained_and_has_every_part() {
    let folder = scratch("parts");
    let (_, html) = sweep(&folder);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.len() < 200 * 1024, "{} bytes", page.len());
    // Nothing to fetch: no external script, style, image or font; the only URL is SVG's
    // namespace, which a browser never loads.
    for fetch in ["<link", " src=", "@import", "url(", "<img", "<iframe", "fetch(", "XMLHttpRequest"] {
        assert!(!page.contains(fetch), "{fetch}");
    }
    let urls: Vec<&str> = page.match_indices("http").map(|(at, _)| &page[at..at + 26]).collect();
    assert!(urls.iter().all(|url| url.starts_with("http://www.w3.org/2000/svg")), "{urls:?}");
    for part in [
        "<title>block-size: histogram on Mock H200</title>",
        "<section id=\"summary\">",
        "<li>Fastest measured: 256 threads per block at 0.490 ms.</li>",
        "<section id=\"sweep\">",
        "Kernel: histogram of 4096 bins, 16384 B of dynamic shared memory per block",
        "<th>thr/blk</th>",
        "<td class=\"limiter\">shared memory</td>",
        "<section id=\"plot\">",
        "<svg",
        "<section id=\"explorer\">",
        "<summary>What this does not show</summary>",
        "<section id=\"provenance\">",
        "<tr><th>gpu</th><td>Mock H200</td></tr>",
        "Every check held",
        "<script type=\"application/json\" id=\"occupancy-model\">",
    ] {
        assert!(page.contains(part), "missing {part:?}");
    }
    assert_eq!(page.matches("<tr class=\"best\">").count(), 1);
    assert_eq!(page.matches("<td class=\"limiter\">").count(), 4);
    // The explorer starts at the measured GPU, the fastest row and the histogram's 16 KiB.
    assert!(
        page.contains("\"start\":{\"gpu\":\"measured\",\"threads\":256,\"registers\":16,\"shared\":16384}"),
        "{}",
        &page[page.find("\"start\"").unwrap()..][..100]
    );
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn html_on_standard_output_is_the_page() {
    let (code, stdout, stderr) = run(
        &block_size_builtin::mock::h200(),
        &["--width", "64", "--height", "64", "--runs", "2", "--block-sizes", "64,128", "--format", "html"],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(stdout.starts_with("<!DOCTYPE html>\n") && stdout.ends_with("</html>\n"), "{}", &stdout[..80]);
}

/// `block-size report` with bad input: one `Error:` line, exit 2, nothing written.
fn refused(args: &[&str], fragment: &str) {
    let output = block_size().arg("report").args(args).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("Error: ") && stderr.contains(fragment), "{args:?}: {stderr}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let folder = scratch("bad");
    let (json, _) = sweep(&folder);
    let out = folder.join("out.html");
    let out = out.to_str().unwrap();
    refused(&[&json], "the following required arguments were not provided");
    refused(
        &[&json, "--html", "/no/such/folder/r.html"],
        "cannot write /no/such/folder/r.html (--html): its folder does not exist",
    );
    refused(&[&json, "--html", &json], "names the file report reads: give the output a file of its own");
    // The same file by another path, a symlink or a hard link is the same file.
    let sweep_json = folder.join("sweep.json");
    std::os::unix::fs::symlink(&sweep_json, folder.join("soft.json")).unwrap();
    std::fs::hard_link(&sweep_json, folder.join("hard.json")).unwrap();
    let dotted = folder.join(".").join("sweep.json");
    for other in [dotted, folder.join("soft.json"), folder.join("hard.json")] {
        refused(&[&json, "--html", other.to_str().unwrap()], "names the file report reads");
    }
    let relative = Command::cargo_bin("block-size")
        .unwrap()
        .current_dir(&folder)
        .args(["report", "sweep.json", "--html", "./sweep.json"])
        .output()
        .unwrap();
    assert_eq!(relative.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&relative.stderr).contains("names the file report reads"));
    assert!(std::fs::read_to_string(&json).unwrap().starts_with('{'), "the JSON is kept");
    refused(&["/no/such.json", "--html", out], "cannot read result file /no/such.json: ");
    refused(&["/dev/zero", "--html", out], "result file /dev/zero is larger than 1 GiB: refused");
    let text = std::fs::read_to_string(&json).unwrap();
    let write = |name: &str, text: &str| {
        let path = folder.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Torn: the first half of a real export.
    let torn = write("torn.json", &text[..text.len() / 2]);
    refused(
        &[&torn, "--html", out],
        "torn.json: not a JSON export of a block-size sweep (--json, --format json): EOF while parsing",
    );
    let future = write("future.json", &text.replace("\"schema_version\": 4", "\"schema_version\": 5"));
    refused(
        &[&future, "--html", out],
        "future.json: schema version 5, newer than the 4 this block-size reads: update block-size",
    );
    // Hostile: a line break where a name is (serde quotes it in its message), and a hash that is
    // not ASCII where the page shows its first characters.
    let broken = write("broken.json", &text.replace("\"mode\": \"graph\"", "\"mode\": \"graph\\nrm -rf\""));
    refused(
        &[&broken, "--html", out],
        "broken.json: not a JSON export of a block-size sweep (--json, --format json): unknown variant `graph\\nrm -rf`",
    );
    assert!(!std::path::Path::new(out).exists());
    // A hash that is not 64 hex digits (a cut by bytes in it once panicked) is refused.
    let hash = text.split("\"ptx_sha256\": \"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let odd = write("odd.json", &text.replace(&hash, "ééééééééééééééééé"));
    refused(
        &[&odd, "--html", out],
        "odd.json: ptx_sha256 ééééééééééééééééé is not a SHA-256 (64 hex digits)",
    );
    assert!(!std::path::Path::new(out).exists());
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_page_to_a_fifo_reaches_its_reader_whole() {
    let folder = scratch("fifo");
    let (json, html) = sweep(&folder);
    let fifo = folder.join("page.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // The reader waits first: a probe that opened and closed the FIFO would hand it an empty
    // file, and the page's own write would then wait for a reader that never comes.
    let reader =
        std::process::Command::new("cat").arg(&fifo).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut report = std::process::Command::new(assert_cmd::cargo::cargo_bin("block-size"))
        .args(["report", &json, "--html", fifo.to_str().unwrap()])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = report.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(30) {
            let _ = report.kill();
            panic!("block-size report to a FIFO hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if !status.success() {
        // Release the reader, which would otherwise wait for a writer.
        let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
    }
    assert_eq!(status.code(), Some(0));
    let read = reader.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(read.stdout).unwrap(), std::fs::read_to_string(&html).unwrap());
    let _ = std::fs::remove_dir_all(folder);
}
