//! docs/options.md against the command line itself: every option of the sweep (`block-size`
//! with no subcommand) has its row in the table, every row names an option the sweep takes,
//! and where clap has a default, the table's default column says it.

use block_size_cli::cli;
use std::collections::BTreeSet;

/// The table's rows: the options of the first column (`--width`, ...) and the default column.
fn documented() -> Vec<(Vec<String>, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/options.md")).unwrap();
    text.lines()
        .filter(|line| line.starts_with("| `--"))
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let options = cells[0]
                .split('`')
                .filter_map(|span| span.strip_prefix("--"))
                .map(|span| span.split(' ').next().unwrap().to_string())
                .collect();
            (options, cells[1].to_string())
        })
        .collect()
}

#[test]
fn every_option_of_the_sweep_is_in_docs_options_md_and_no_other() {
    let command = cli::build();
    let taken: BTreeSet<String> = command
        .get_arguments()
        .filter_map(|arg| arg.get_long())
        .filter(|long| !matches!(*long, "help" | "version"))
        .map(String::from)
        .collect();
    let rows = documented();
    let named: BTreeSet<String> = rows.iter().flat_map(|(options, _)| options.iter().cloned()).collect();
    let undocumented: Vec<&String> = taken.difference(&named).collect();
    let unknown: Vec<&String> =
        named.difference(&taken).filter(|option| *option != "corrupt-pixel").collect();
    assert!(undocumented.is_empty(), "options with no row in docs/options.md: {undocumented:?}");
    assert!(unknown.is_empty(), "rows of docs/options.md the sweep does not take: {unknown:?}");
}

#[test]
fn the_documented_defaults_are_clap_s() {
    let command = cli::build();
    for (options, default) in documented() {
        let Some(arg) = command.get_arguments().find(|arg| arg.get_long() == Some(options[0].as_str()))
        else {
            continue;
        };
        let values: Vec<String> =
            arg.get_default_values().iter().map(|value| value.to_string_lossy().into_owned()).collect();
        if values.is_empty() {
            continue;
        }
        let clap_default = values.join(",");
        assert!(
            default.trim_matches('`').starts_with(&clap_default)
                || default.split(", ").next().is_some_and(|first| first.trim_matches('`') == clap_default),
            "--{}: docs/options.md says {default}, clap's default is {clap_default}",
            options[0]
        );
    }
}
