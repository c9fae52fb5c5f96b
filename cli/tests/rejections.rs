//! Every rejection docs/options.md lists, through `block-size` and through the library: the
//! same one line on standard error, nothing on standard output, exit status 2. The library
//! side reads the options with its own `SweepArgs::from_args` (no program's parser) and sweeps
//! a kernel of its own; the CLI side parses the command line and sweeps grayscale. Then
//! `--device all` through both.

use anyhow::Result;
use block_size_builtin::{KernelChoice, SweepRequest};
use block_size_cli::app;
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, read_values, write_values};
use block_size_runner::{Arg, Check, Console, EmbeddedPtx, Kernel, SweepArgs, exit};

const PTX: &str = ".version 7.8\n.target sm_75\n.address_size 64\n\n\
    .visible .entry scale(\n\t.param .u64 scale_param_0,\n\t.param .u64 scale_param_1,\n\t.param .u64 scale_param_2\n)\n{\n\tret;\n}\n";
const MODULE: EmbeddedPtx = EmbeddedPtx::user("scale", PTX);
const N: usize = 91;

/// `out[i] = 2 x[i]`.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, _fault: Option<usize>) -> Result<()> {
    let [x, n, out] = launch.args.as_slice() else { anyhow::bail!("scale takes three arguments") };
    let values: Vec<f32> =
        read_values::<f32>(memory.at(x)?, n.as_usize()?)?.iter().map(|v| 2.0 * v).collect();
    write_values(memory.at_mut(out)?, &values)
}

fn kernel() -> Kernel {
    Kernel::new(MODULE, "scale")
        .items(N as u64, "values")
        .bytes_per_pass(8 * N as u64, "moved per pass")
        .input("x", vec![1.0f32; N])
        .output::<f32>("out", N)
        .args(|_| vec![Arg::Buffer("x"), Arg::Usize(N), Arg::Buffer("out")])
        .check(Check::reference(|result, _| match result.of::<f32>() {
            Some(values) if values.iter().all(|&value| value == 2.0) => Ok(()),
            _ => Err("not all 2".into()),
        }))
}

fn driver(devices: usize) -> MockDriver {
    let mut gpu = block_size_builtin::mock::h200_like();
    gpu.emulate(MODULE.kernel("scale"), emulate);
    MockDriver { cuda_version: 13000, devices: vec![gpu; devices] }
}

/// Exit status, standard output, standard error.
type Ran = (i32, String, String);

fn through_cli(args: &[&str]) -> Ran {
    let args: Vec<std::ffi::OsString> = std::iter::once("block-size")
        .chain(["--width", "7", "--height", "13", "--warmups", "0"])
        .chain(args.iter().copied())
        .map(Into::into)
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(&driver(1), &args, &mut Console { out: &mut out, err: &mut err });
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn through_library(args: &[&str]) -> Ran {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = match SweepArgs::from_args(["--warmups", "0"].iter().chain(args)) {
        Ok(options) => block_size_runner::sweep_and_print(
            &driver(1),
            &kernel(),
            &options,
            &mut Console { out: &mut out, err: &mut err },
        ),
        Err(error) => {
            err.extend(format!("Error: {error}\n").bytes());
            error.exit_status()
        }
    };
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn refused_alike(args: &[&str], line: &str) {
    let expected = (exit::USAGE, String::new(), format!("Error: {line}\n"));
    assert_eq!(through_cli(args), expected, "block-size {args:?}");
    assert_eq!(through_library(args), expected, "the library, for {args:?}");
}

#[test]
fn every_rejection_of_the_sweep_s_settings_is_the_same_line_through_both() {
    let cases: Vec<(&[&str], &str)> = vec![
        (&["--block-sizes", "64,128,64"], "block size 64 is listed twice in --block-sizes"),
        (
            &["--block-sizes", "64,0"],
            "--block-sizes: 0 is not a block size; each is 1 to the device's maximum",
        ),
        (&["--runs", "0"], "--runs must be at least 1, not 0"),
        (&["--min-runs", "0"], "--min-runs must be at least 1, not 0"),
        (&["--launches-per-sample", "0"], "--launches-per-sample must be at least 1, not 0"),
        (
            &["--runs", "5", "--min-runs", "5"],
            "--runs cannot be used with --min-runs: --runs is a fixed count, --min-runs a limit of the noise-driven stop",
        ),
        (
            &["--runs", "5", "--max-noise", "0.01"],
            "--runs cannot be used with --max-noise: --runs is a fixed count, --max-noise a limit of the noise-driven stop",
        ),
        (
            &["--runs", "5", "--max-time-per-row", "1"],
            "--runs cannot be used with --max-time-per-row: --runs is a fixed count, --max-time-per-row a limit of the noise-driven stop",
        ),
        (
            &["--max-noise", "2"],
            "--max-noise must be a fraction from 0 to 1 (0.005 is half a percent), not 2",
        ),
        (
            &["--timing", "cold", "--launches-per-sample", "4"],
            "--launches-per-sample applies to --timing batch and graph, not --timing cold",
        ),
        (&["--no-flush-l2"], "--no-flush-l2 applies to --timing cold, not --timing graph"),
        (&["--grid", "waves:0"], "--grid waves:0 launches nothing: give waves:1 or more"),
        (
            &["--format", "json", "--output", "/no/such/folder/sweep.json"],
            "cannot write /no/such/folder/sweep.json (--output): its folder does not exist",
        ),
        (
            &["--plot", "/no/such/folder/sweep.svg"],
            "cannot write /no/such/folder/sweep.svg (--plot): its folder does not exist",
        ),
        (
            &["--emit-rust", "/no/such/folder/winner.rs"],
            "cannot write /no/such/folder/winner.rs (--emit-rust): its folder does not exist",
        ),
        (
            &["--search", "race", "--runs", "5"],
            "--search race needs the noise-driven stop: --runs is a fixed count for every configuration",
        ),
        // Checked against the open device, by the same code for both.
        (
            &["--block-sizes", "64,2048"],
            "block size 2048 is above Mock H200's limit of 1024 threads per block",
        ),
    ];
    for (args, line) in cases {
        refused_alike(args, line);
    }
    // Both flags are one setting of the library's (`flush_l2`), which cannot hold both: clap
    // refuses the pair.
    assert_eq!(
        through_cli(&["--timing", "cold", "--flush-l2", "--no-flush-l2"]),
        (
            exit::USAGE,
            String::new(),
            "Error: the argument '--flush-l2' cannot be used with '--no-flush-l2'\n".into()
        )
    );
}

#[test]
fn no_output_clobbers_another_or_an_input_and_emit_rust_keeps_a_hand_written_file_through_both() {
    let folder = std::env::temp_dir().join(format!("rejections-{}-clobber", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(folder.join("d")).unwrap();
    let at = |name: &str| folder.join(name).to_str().unwrap().to_string();
    let (journal, main) = (at("j.jsonl"), at("main.rs"));
    std::fs::write(&journal, "").unwrap();
    std::fs::write(&main, "fn main() {}\n").unwrap();
    std::fs::write(at("t.txt"), "kept").unwrap();
    std::fs::hard_link(at("t.txt"), at("hard.txt")).unwrap();
    std::os::unix::fs::symlink(at("t.txt"), at("soft.txt")).unwrap();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["--json".into(), at("d/s.json"), "--csv".into(), at("./d/s.json")],
            format!("--json and --csv both name {}: give each its own file", at("./d/s.json")),
        ),
        (
            vec!["--json".into(), at("w.rs.json"), "--emit-rust".into(), at("w.rs")],
            format!("--json and --emit-rust both name {}: give each its own file", at("w.rs.json")),
        ),
        (
            vec!["--output".into(), at("t.txt"), "--json".into(), at("hard.txt")],
            format!("--output and --json both name {}: give each its own file", at("hard.txt")),
        ),
        (
            vec!["--plot".into(), at("soft.txt"), "--markdown".into(), at("t.txt")],
            format!("--plot and --markdown both name {}: give each its own file", at("t.txt")),
        ),
        (
            vec!["--resume".into(), journal.clone(), "--json".into(), journal.clone()],
            format!("--json {journal} names the file --resume reads: give the output a file of its own"),
        ),
        (
            vec!["--resume".into(), journal.clone(), "--emit-rust".into(), journal.clone()],
            format!("--emit-rust {journal} names the file --resume reads: give the output a file of its own"),
        ),
        (
            vec!["--emit-rust".into(), main.clone()],
            format!(
                "--emit-rust {main} is not a file --emit-rust wrote (its first line is not `// Written by ... --emit-rust: ...`): --force replaces it"
            ),
        ),
    ];
    for (args, line) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused_alike(&args, &line);
    }
    assert_eq!(std::fs::read_to_string(at("t.txt")).unwrap(), "kept");
    assert_eq!(std::fs::read_to_string(&main).unwrap(), "fn main() {}\n");
    // `--journal j --resume j` continues; `--force` replaces the hand-written file.
    let (code, _, stderr) =
        through_cli(&["--block-sizes", "64", "--runs", "1", "--journal", &journal, "--resume", &journal]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) =
        through_cli(&["--block-sizes", "64", "--runs", "1", "--emit-rust", &main, "--force"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(std::fs::read_to_string(&main).unwrap().starts_with("// Written by "));
    let forced = ["--block-sizes", "64", "--runs", "1", "--emit-rust", &at("lib.rs"), "--force"];
    std::fs::write(at("lib.rs"), "pub fn mine() {}\n").unwrap();
    assert_eq!(through_library(&forced).0, 0);
    assert!(std::fs::read_to_string(at("lib.rs")).unwrap().starts_with("// Written by "));
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn corrupt_output_outside_the_output_is_refused_by_both_naming_what_it_is_outside_of() {
    // The grayscale kernel of a 91-pixel frame (the CLI's) and the library's 91-value kernel
    // are described alike: each line names the output buffer and its length.
    let cli = through_cli(&["--corrupt-output", "91"]);
    assert_eq!(
        cli,
        (
            exit::USAGE,
            String::new(),
            "Error: --corrupt-output 91 is outside the 91-element output `out`\n".into()
        )
    );
    let library = through_library(&["--corrupt-output", "91"]);
    assert_eq!(
        library,
        (
            exit::USAGE,
            String::new(),
            "Error: --corrupt-output 91 is outside the 91-element output `out`\n".into()
        )
    );
}

/// The kernel choice (`--kernel`, `--bins`, `--width`, `--height`) is `block-size`'s, for this
/// repository's kernels; the library's `SweepRequest` refuses it with the same line.
#[test]
fn every_rejection_of_the_kernel_choice_is_the_same_line_through_the_request() {
    let cases: Vec<(&[&str], KernelChoice, &str)> = vec![
        (
            &["--width", "0"],
            KernelChoice { width: 0, ..KernelChoice::default() },
            "--width must be at least 1, not 0",
        ),
        (
            &["--height", "0"],
            KernelChoice { height: 0, ..KernelChoice::default() },
            "--height must be at least 1, not 0",
        ),
        (
            &["--bins", "512"],
            KernelChoice { bins: vec![512], ..KernelChoice::default() },
            "--bins does not apply to --kernel grayscale; it is an option of --kernel histogram, histogram_x4, \
             histogram_x8, histogram_x8k2, histogram_x8k4, histogram_x8k2c, histogram_x8k4c",
        ),
        (
            &["--kernel", "histogram", "--bins", "0"],
            KernelChoice { kernel: "histogram".into(), bins: vec![0], ..KernelChoice::default() },
            "--bins must be 1 to 4096, not 0",
        ),
        (
            &["--kernel", "histogram", "--bins", "4097"],
            KernelChoice { kernel: "histogram".into(), bins: vec![4097], ..KernelChoice::default() },
            "--bins must be 1 to 4096, not 4097",
        ),
    ];
    for (args, kernel, line) in cases {
        let args: Vec<&str> = ["block-size"].iter().chain(args).copied().collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = app::main_with(
            &driver(1),
            &args.iter().map(Into::into).collect::<Vec<_>>(),
            &mut Console { out: &mut out, err: &mut err },
        );
        assert_eq!(
            (code, out.is_empty(), String::from_utf8(err).unwrap()),
            (exit::USAGE, true, format!("Error: {line}\n"))
        );
        let request = SweepRequest { kernel, ..SweepRequest::default() };
        let error = request.validate().unwrap_err();
        assert_eq!((error.exit_status(), error.to_string()), (exit::USAGE, line.to_string()), "{args:?}");
    }
}

#[test]
fn every_device_is_swept_through_both() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let on = |device: &str| {
        SweepArgs::from_args(["--device", device, "--block-sizes", "64,128", "--runs", "1", "--warmups", "0"])
            .unwrap()
    };
    let code = block_size_runner::sweep_and_print(
        &driver(2),
        &kernel(),
        &on("all"),
        &mut Console { out: &mut out, err: &mut err },
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!((code, String::from_utf8(err).unwrap().as_str()), (exit::SUCCESS, ""), "{out}");
    assert!(
        out.contains("GPU 0 (Mock H200): fastest") && out.contains("GPU 1 (Mock H200): fastest"),
        "{out}"
    );
    for ordinal in ["0", "1"] {
        let measured = block_size_runner::sweep(&driver(2), &kernel(), &on(ordinal)).unwrap();
        assert_eq!(measured.exit_status(), exit::SUCCESS);
    }
    let one = block_size_runner::sweep(&driver(2), &kernel(), &on("all")).unwrap_err();
    assert_eq!(one.exit_status(), exit::USAGE);

    let args: Vec<std::ffi::OsString> = [
        "block-size",
        "--device",
        "all",
        "--width",
        "16",
        "--height",
        "16",
        "--runs",
        "1",
        "--block-sizes",
        "64,128",
    ]
    .iter()
    .map(Into::into)
    .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(
        &MockDriver { cuda_version: 13000, devices: vec![block_size_builtin::mock::h200_like(); 2] },
        &args,
        &mut Console { out: &mut out, err: &mut err },
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, exit::SUCCESS, "{}", String::from_utf8(err).unwrap());
    assert!(
        out.contains("GPU 0 (Mock H200): fastest") && out.contains("GPU 1 (Mock H200): fastest"),
        "{out}"
    );
}

/// Issue 25, hostile input on the command line: counts and times past any measurement, and
/// the values clap reads, each refused in one line with exit 2, never a panic or an abort.
mod hostile_command_line {
    use super::*;

    #[test]
    fn a_count_past_any_measurement_is_refused_alike_before_its_schedule_is_built() {
        let cases: Vec<(&[&str], &str)> = vec![
            (&["--runs", "4294967295"], "--runs must be at most 1000000, not 4294967295"),
            (&["--min-runs", "4294967295"], "--min-runs must be at most 1000000, not 4294967295"),
            (
                &["--launches-per-sample", "4294967295"],
                "--launches-per-sample must be at most 1000000, not 4294967295",
            ),
            (
                &["--runs", "1000000", "--launches-per-sample", "1000000"],
                "0 warm-ups and 1000000 samples of 1000000 launches are 1000000000000 launches a row, more than \
                 the 10000000 one row may take",
            ),
        ];
        for (args, line) in cases {
            refused_alike(args, line);
        }
    }

    /// `block-size ARGS` through the CLI alone: exit 2, nothing on stdout, one line on stderr.
    fn refused(args: &[&str]) -> String {
        let args: Vec<std::ffi::OsString> =
            std::iter::once("block-size").chain(args.iter().copied()).map(Into::into).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = app::main_with(&driver(1), &args, &mut Console { out: &mut out, err: &mut err });
        let (out, err) = (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap());
        assert_eq!((code, out.as_str()), (exit::USAGE, ""), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        err.strip_prefix("Error: ").unwrap().trim_end().to_string()
    }

    #[test]
    fn a_time_no_duration_holds_is_refused_not_a_panic() {
        for args in [
            &["--launch-timeout", "1e99"][..],
            &["--max-time-per-row", "1e20"],
            &["--max-time-per-row", "1e300"],
            &["--launch-timeout", "100000000000y"],
            &["--launch-timeout", "86401"],
        ] {
            assert!(refused(args).ends_with("a time of at most a day (86400 s)"), "{args:?}");
        }
        assert!(refused(&["--launch-timeout", "-1"]).ends_with("a time of 0 seconds or more"));
    }

    #[test]
    fn a_negative_or_huge_number_is_a_value_out_of_range() {
        assert_eq!(
            refused(&["--device", "-1"]),
            "invalid value '-1' for '--device <INDEX|all>': a device ordinal (0, 1, ...) or `all`"
        );
        assert_eq!(
            refused(&["--runs", "-1"]),
            "invalid value '-1' for '--runs <N>': -1 is not in 0..=4294967295"
        );
        assert_eq!(
            refused(&["--runs", "18446744073709551615"]),
            "invalid value '18446744073709551615' for '--runs <N>': number too large to fit in target type"
        );
        for args in [
            &["compare", "--device", "-1"][..],
            &["tail", "--device", "-1"],
            &["variants", "--device", "-1"],
            &["occupancy", "--gpu", "h200", "--regs", "-1"],
            &["occupancy", "--gpu", "h200", "--smem", "-1"],
            &["occupancy", "--gpu", "h200", "--block-sizes", "-1"],
            &["--kernel", "histogram", "--bins", "-1"],
            &["--corrupt-output", "-1"],
            &["--warmups", "-3"],
        ] {
            let message = refused(args);
            assert!(message.contains("is not in 0.."), "{args:?}: {message}");
        }
        assert!(refused(&["--max-noise", "-1"]).starts_with("--max-noise must be a fraction from 0 to 1"));
        assert!(
            refused(&["diff", "a.json", "b.json", "--threshold", "-2%"]).starts_with("--threshold must be")
        );
        assert_eq!(
            refused(&["compare", "--rounds", "4294967295"]),
            "--rounds must be at most 1000000, not 4294967295"
        );
        assert_eq!(
            refused(&["tail", "--runs", "4294967295"]),
            "--runs must be at most 1000000, not 4294967295"
        );
        assert_eq!(
            refused(&["variants", "--warmups", "4294967295"]),
            "--warmups must be at most 1000000, not 4294967295"
        );
    }

    #[test]
    fn a_missing_argument_is_named() {
        assert_eq!(
            refused(&["diff", "a.json"]),
            "the following required arguments were not provided: <NEW.json>"
        );
    }

    #[test]
    fn a_value_with_a_line_break_is_refused_in_one_line_that_shows_it() {
        let message = refused(&["--kernel", "grey\nscale"]);
        assert!(message.starts_with("invalid value 'grey\\nscale' for '--kernel <NAME>'"), "{message}");
        let message = refused(&["--grid", "waves:\u{202e}1"]);
        assert!(message.contains("waves:\\u{202e}1"), "{message}");
    }
}
