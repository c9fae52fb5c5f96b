//! No function of the runner's non-test code is over [`MAX_LINES`] lines, except those listed in
//! [`LONGER`], each at most as long as listed there: a ratchet that lets each only shrink, and
//! fails when one listed is no longer over the limit (so that its line is removed).

use block_size_tests::lengths::function_lengths;
use block_size_tests::repo_root;

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_LINES: usize = 80;

/// The functions over [`MAX_LINES`] when the check came (issue 44), with their lengths then or
/// since they were shortened: (file below runner/src, name, lines at most).
const LONGER: &[(&str, &str, usize)] = &[
    ("search/rounds.rs", "in_rungs", 210),
];

#[test]
fn no_runner_function_is_over_80_lines_but_those_listed_and_none_longer_than_listed() {
    let found = function_lengths(&repo_root(), "runner/src").unwrap_or_else(|error| panic!("{error}"));
    let mut problems = Vec::new();
    for function in found.iter().filter(|function| function.lines > MAX_LINES) {
        match LONGER.iter().find(|(file, name, _)| *file == function.file && *name == function.name) {
            None => problems.push(format!(
                "{} {}: {} lines, over {MAX_LINES}: split it",
                function.file, function.name, function.lines
            )),
            Some((_, _, most)) if function.lines > *most => problems.push(format!(
                "{} {}: {} lines, longer than the {most} listed in LONGER: split it",
                function.file, function.name, function.lines
            )),
            Some(_) => {}
        }
    }
    for (file, name, _) in LONGER {
        let now = found.iter().find(|function| function.file == *file && function.name == *name);
        if now.is_none_or(|function| function.lines <= MAX_LINES) {
            problems.push(format!(
                "{file} {name}: no longer over {MAX_LINES} lines (or gone): remove it from LONGER"
            ));
        }
    }
    let longer = found.iter().filter(|function| function.lines > MAX_LINES).count();
    println!("{longer} runner functions over {MAX_LINES} lines");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
