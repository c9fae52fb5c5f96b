//! No function of the runner's non-test code is over [`MAX_LINES`] lines (issue 44): a long
//! function is split into the steps it takes, each named.

use block_size_tests::lengths::function_lengths;
use block_size_tests::repo_root;

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_LINES: usize = 80;

#[test]
fn no_runner_function_is_over_80_lines() {
    let found = function_lengths(&repo_root(), "runner/src").unwrap_or_else(|error| panic!("{error}"));
    assert!(found.len() > 500, "the runner's functions were read: {} found", found.len());
    let longer: Vec<String> = found
        .iter()
        .filter(|function| function.lines > MAX_LINES)
        .map(|function| format!("{} {}: {} lines", function.file, function.name, function.lines))
        .collect();
    println!("{} runner functions, the longest {} lines", found.len(), found[0].lines);
    assert!(longer.is_empty(), "over {MAX_LINES} lines, split each:\n{}", longer.join("\n"));
}
