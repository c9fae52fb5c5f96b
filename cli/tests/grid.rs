//! `--grid`: the sweep's grid policy, through the whole program on the mock driver: the grid
//! of every row, the header line, the JSON field, and bad values refused as bad input.

use block_size_cli::app;
use block_size_runner::{Console, exit};

fn run(args: &[&str]) -> (i32, String, String) {
    let args: Vec<std::ffi::OsString> =
        std::iter::once("block-size").chain(args.iter().copied()).map(Into::into).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(
        &block_size_builtin::mock::h200(),
        &args,
        &mut Console { out: &mut out, err: &mut err },
    );
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

/// A 1024 x 1024 frame, 128 threads per block (16 blocks/SM on the mock H200: a wave of 2112
/// blocks), one sample a row.
fn sweep(grid: &[&str], format: &[&str]) -> (i32, String, String) {
    let base =
        ["--width", "1024", "--height", "1024", "--block-sizes", "128", "--warmups", "0", "--runs", "1"];
    run(&[&base[..], grid, format].concat())
}

#[test]
fn every_policy_sizes_the_grid_and_says_so() {
    for (grid, blocks, line) in [
        (&[][..], 2112, None),
        (&["--grid", "one-wave"][..], 2112, None),
        (&["--grid", "waves:3"][..], 6336, Some("Grid: 3 full waves per row (--grid waves:3)")),
        (
            &["--grid", "per-item"][..],
            8192,
            Some("Grid: one thread per item, ceil(items / threads) blocks (--grid per-item)"),
        ),
    ] {
        let (code, stdout, stderr) = sweep(grid, &[]);
        assert_eq!((code, stderr.as_str()), (exit::SUCCESS, ""), "{grid:?}");
        let row = stdout.lines().find(|line| line.trim_start().starts_with("128 ")).expect("the row");
        assert!(row.split_whitespace().any(|cell| cell == blocks.to_string()), "{grid:?}: {row}");
        match line {
            Some(line) => assert!(stdout.contains(&format!("\n{line}\n")), "{grid:?}: {stdout}"),
            None => assert!(!stdout.contains("Grid: "), "the seed's header has no grid line: {stdout}"),
        }
        let (_, json, _) = sweep(grid, &["--format", "json"]);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["rows"][0]["grid_blocks"], blocks, "{grid:?}");
        let name = grid.get(1).copied().unwrap_or("one-wave");
        assert_eq!(json["grid"], name);
    }
}

#[test]
fn a_policy_that_is_not_one_is_bad_input() {
    for bad in ["waves", "all", "Per-Item"] {
        let (code, stdout, stderr) = sweep(&["--grid", bad], &[]);
        assert_eq!(code, exit::USAGE, "{bad}");
        assert!(stdout.is_empty());
        assert!(stderr.contains("is not one-wave, per-item or waves:K"), "{bad}: {stderr}");
    }
    let (code, stdout, stderr) = sweep(&["--grid", "waves:0"], &[]);
    assert_eq!((code, stdout.as_str()), (exit::USAGE, ""));
    assert_eq!(stderr, "Error: --grid waves:0 launches nothing: give waves:1 or more\n");
}
