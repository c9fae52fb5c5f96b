//! The example's programs start anywhere, as `block-size` does: `reduce-example`,
//! `transpose-example`, `blur-example` and `faults-example` are launchers over workers that link
//! the driver (`reduce-example-cuda`, `transpose-example-cuda`, ...), so their help and their refusals need no
//! NVIDIA driver, and without one a sweep is one line, exit 3, not the loader's exit 127.

use std::process::{Command, Output};

const LAUNCHERS: [(&str, &str); 4] = [
    ("reduce-example", env!("CARGO_BIN_EXE_reduce-example")),
    ("transpose-example", env!("CARGO_BIN_EXE_transpose-example")),
    ("blur-example", env!("CARGO_BIN_EXE_blur-example")),
    ("faults-example", env!("CARGO_BIN_EXE_faults-example")),
];

/// What each launcher needs beside a sweep's options: `faults-example` its `--entry`.
fn required(name: &str) -> &'static [&'static str] {
    match name {
        "faults-example" => &["--entry", "copy_faulting_at_1024"],
        _ => &[],
    }
}

fn run(binary: &str, args: &[&str]) -> Output {
    Command::new(binary).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn each_launcher_needs_no_driver_library_and_its_worker_does() {
    let needed = |binary: &str| {
        let output = Command::new("readelf").args(["-d", binary]).output().expect("readelf (binutils)");
        assert!(output.status.success(), "readelf -d {binary}");
        text(&output.stdout).lines().any(|line| line.contains("(NEEDED)") && line.contains("libcuda"))
    };
    for (name, binary) in LAUNCHERS {
        assert!(!needed(binary), "{name} needs libcuda");
    }
    assert!(needed(env!("CARGO_BIN_EXE_reduce-example-cuda")), "the worker links the driver");
    assert!(needed(env!("CARGO_BIN_EXE_transpose-example-cuda")), "the worker links the driver");
    assert!(needed(env!("CARGO_BIN_EXE_blur-example-cuda")), "the worker links the driver");
}

#[test]
fn help_and_bad_input_are_answered_anywhere() {
    for (name, binary) in LAUNCHERS {
        let help = run(binary, &["--help"]);
        assert_eq!(help.status.code(), Some(0), "{name} --help: {}", text(&help.stderr));
        assert!(text(&help.stdout).contains(&format!("Usage: {name}")), "{}", text(&help.stdout));
        let bad = run(binary, &[required(name), &["--block-sizes", "0"]].concat());
        assert_eq!(bad.status.code(), Some(2), "{name}: {}", text(&bad.stderr));
        assert_eq!(text(&bad.stderr).lines().count(), 1, "{}", text(&bad.stderr));
    }
}

#[test]
fn without_a_driver_a_sweep_is_one_line_and_exit_3() {
    // SAFETY: loading the driver library runs its initialisers, as the launcher does.
    if unsafe { libloading::Library::new("libcuda.so.1") }.is_ok() {
        eprintln!("SKIPPED without_a_driver_a_sweep_is_one_line_and_exit_3: this machine has libcuda.so.1");
        return;
    }
    for (name, binary) in LAUNCHERS {
        let args = [required(name), &["--block-sizes", "32", "--runs", "1", "--warmups", "0"]].concat();
        let output = run(binary, &args);
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.starts_with("Error: no NVIDIA driver"), "{name}: {err}");
        assert!(output.stdout.is_empty(), "{name}");
    }
}
