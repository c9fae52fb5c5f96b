//! The README and `docs/` against the program: every command they show runs as written,
//! and every relative link leads somewhere.
//!
//! Commands are the lines of fenced `sh` blocks, and inline code spans that start with
//! `block-size ` or `scripts/sweep ` and pass options (synopses with `[`, `|`, `<`, `...` or a
//! placeholder such as `FILE` or `OLD.json` are not commands). `scripts/sweep ARGS` is `block-size ARGS` after its set-up and build, so
//! both run the freshly built `block-size`:
//!
//! - those that need no GPU (`occupancy`, `diff`, `report`, `help`, `--help`) must exit 0 and
//!   print something (`report`: write its page); an argument that is a path of this repository
//!   (an evidence file) is read from the repository, anything else is relative to a scratch
//!   folder;
//! - those that need a GPU must get past option parsing: on a machine that cannot run a sweep
//!   (no driver, no GPU: exit 3) they must exit 3 with nothing on stdout, never 2 (bad input).
//!   Where this machine could run them, they are not started (a sweep is not a unit test) and
//!   the test says SKIPPED for them;
//! - the rest (`scripts/test`, `scripts/regenerate-ptx`, the example host crate's `cargo run`,
//!   `examples/slurm/submit`)
//!   are named in [`NOT_RUN`] with the reason; any other command fails the test, so that a new
//!   one gets a decision.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository: this package's parent folder.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ has a parent").to_path_buf()
}

/// Commands shown in the docs that this test does not run, by their first words, and why.
const NOT_RUN: [(&str, &str); 5] = [
    ("scripts/test", "it runs this test suite, this test included"),
    (
        "scripts/regenerate-ptx",
        "it needs, or with --check looks for, LLVM 7 and rust-cuda's source (docs/ptx.md)",
    ),
    (
        "target/release/block-size new",
        "it writes a project where it is told; cli/tests/new.rs runs it into a temporary folder, then builds and tests what it wrote",
    ),
    (
        "examples/slurm/submit",
        "it submits jobs to a Slurm cluster; scripts/slurm-test runs it on a single-node Slurm it starts, \
         with the mock worker standing in for the GPU",
    ),
    (
        "cargo run --release -p reduce-example",
        "it builds the example; examples/reduce/tests/reduce.rs runs the program on the mock driver and \
         parses every such command, and examples/reduce/tests/launchers.rs runs the launchers without a driver",
    ),
];

/// Whether `command` is `program` (one or more words) or `program` followed by more words.
fn starts_with_words(command: &str, program: &str) -> bool {
    command.strip_prefix(program).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// The exit status of `block-size` when no driver, GPU or loadable module is there (3), and for
/// bad input (2): the exit table of docs/options.md.
const NO_DEVICE: i32 = 3;
const USAGE: i32 = 2;

/// A Markdown file checked here: the README and every page of `docs/`.
struct Page {
    /// Relative to the repository root, for messages.
    name: String,
    path: PathBuf,
    text: String,
}

fn pages() -> Vec<Page> {
    let root = repo_root();
    let mut paths = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("a readable docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|path| Page {
            name: path.strip_prefix(&root).expect("below the root").display().to_string(),
            text: std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display())),
            path,
        })
        .collect()
}

/// A command as a page shows it.
struct Shown {
    /// `README.md:15`, for messages.
    place: String,
    command: String,
}

/// The text of a page outside fenced blocks, with each fenced block's lines blanked out (so
/// line numbers stay), and the `sh` blocks' lines with their numbers.
fn split_fences(text: &str) -> (String, Vec<(usize, String)>) {
    let mut prose = String::new();
    let mut sh_lines = Vec::new();
    let mut fence: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &fence {
            None if trimmed.starts_with("```") => {
                fence = Some(trimmed.trim_start_matches('`').trim().to_string());
                prose.push('\n');
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
            Some(_) if trimmed.starts_with("```") => {
                fence = None;
                prose.push('\n');
            }
            Some(info) => {
                if info == "sh" {
                    sh_lines.push((index + 1, line.to_string()));
                }
                prose.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "a fenced block is never closed");
    (prose, sh_lines)
}

/// The commands of a page's `sh` blocks: comments and blank lines dropped, `\` continuations
/// joined.
fn sh_commands(page: &Page) -> Vec<Shown> {
    let (_, lines) = split_fences(&page.text);
    let mut shown = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (number, line) in lines {
        let code = strip_comment(&line);
        let (start, mut command) = pending.take().unwrap_or((number, String::new()));
        command.push_str(code.trim());
        if let Some(head) = command.strip_suffix('\\') {
            pending = Some((start, format!("{} ", head.trim_end())));
        } else if !command.is_empty() {
            shown.push(Shown { place: format!("{}:{start}", page.name), command });
        }
    }
    assert!(pending.is_none(), "{}: an sh block ends in a `\\` continuation", page.name);
    shown
}

/// A shell line without its comment: from the first `#` that starts a word.
fn strip_comment(line: &str) -> &str {
    let mut previous = ' ';
    for (at, character) in line.char_indices() {
        if character == '#' && previous.is_whitespace() {
            return &line[..at];
        }
        previous = character;
    }
    line
}

/// The inline code spans of a page's prose, each with the line it starts on.
fn code_spans(page: &Page) -> Vec<(usize, String)> {
    let (prose, _) = split_fences(&page.text);
    let mut spans = Vec::new();
    let mut line = 1;
    let mut open: Option<(usize, String)> = None;
    for character in prose.chars() {
        match (&mut open, character) {
            (None, '`') => open = Some((line, String::new())),
            (Some(_), '`') => spans.push(open.take().expect("open")),
            (Some((_, span)), '\n') => span.push(' '),
            (Some((_, span)), other) => span.push(other),
            (None, _) => {}
        }
        if character == '\n' {
            line += 1;
        }
    }
    spans
}

/// Inline code spans that are whole commands: `block-size ...` or `scripts/sweep ...` with
/// options, no placeholders.
fn inline_commands(page: &Page) -> Vec<Shown> {
    code_spans(page)
        .into_iter()
        .filter(|(_, span)| span.starts_with("block-size ") || span.starts_with("scripts/sweep "))
        .filter(|(_, span)| span.split_whitespace().any(|word| word.starts_with("--")))
        .filter(|(_, span)| !["[", "|", "<", "...", "…"].iter().any(|synopsis| span.contains(synopsis)))
        .filter(|(_, span)| !span.split_whitespace().any(is_placeholder))
        .map(|(line, span)| Shown { place: format!("{}:{line}", page.name), command: span })
        .collect()
}

/// A synopsis's placeholder: `N`, `FILE`, `OLD.json`: upper case (and digits, `_`) up to its
/// first `.`.
fn is_placeholder(word: &str) -> bool {
    let stem = word.split('.').next().unwrap_or("");
    stem.starts_with(|c: char| c.is_ascii_uppercase())
        && stem.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// What a shown command needs.
enum Kind {
    /// Runs anywhere: must exit 0 and print.
    NoGpu(Vec<String>),
    /// Needs a GPU: its options must parse.
    Gpu(Vec<String>),
    /// Not run, for this reason.
    NotRun(&'static str),
}

/// What a command needs, or why this test cannot tell.
fn classify(shown: &Shown) -> Result<Kind, String> {
    if shown.command.contains(['"', '\'', '$', '`', '|', ';', '&', '>', '<', '*']) {
        return Err(format!(
            "{}: `{}` needs a shell; this test runs plain words only",
            shown.place, shown.command
        ));
    }
    let words: Vec<&str> = shown.command.split_whitespace().collect();
    if let Some((_, why)) = NOT_RUN.iter().find(|(program, _)| starts_with_words(&shown.command, program)) {
        return Ok(Kind::NotRun(why));
    }
    if !matches!(words[0], "block-size" | "scripts/sweep") {
        return Err(format!(
            "{}: `{}` is a command this test does not know; run it here, or name it in NOT_RUN with the reason",
            shown.place, shown.command
        ));
    }
    let args: Vec<String> = words[1..].iter().map(|word| word.to_string()).collect();
    let no_gpu = matches!(args.first().map(String::as_str), Some("occupancy" | "diff" | "report" | "help"))
        || args.iter().any(|arg| arg == "--help" || arg == "-h");
    Ok(if no_gpu { Kind::NoGpu(args) } else { Kind::Gpu(args) })
}

/// `block-size`, as cargo built it for this package's tests.
fn block_size() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_block-size"))
}

/// The scratch folder commands run in.
fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-commands")
}

/// Runs `block-size ARGS` in a scratch folder (an `--output`, `--plot` or `--html` lands there,
/// never in the repository); an argument that names a file of the repository (an evidence
/// file a `diff` reads) is given as that file's full path.
fn run(args: &[String]) -> Output {
    let scratch = scratch();
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{}: {error}", scratch.display()));
    let args: Vec<std::ffi::OsString> = args
        .iter()
        .map(|arg| {
            let in_repository = repo_root().join(arg);
            if !arg.starts_with('-') && in_repository.is_file() { in_repository.into() } else { arg.into() }
        })
        .collect();
    Command::new(block_size())
        .current_dir(&scratch)
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", block_size().display()))
}

/// What a command that needs no GPU left: its standard output, or for `report` the page it
/// wrote (the word after `--html`).
fn produced(args: &[String], output: &Output) -> bool {
    if args.first().is_some_and(|first| first == "report") {
        let page = args.iter().skip_while(|arg| *arg != "--html").nth(1);
        return page
            .is_some_and(|page| std::fs::metadata(scratch().join(page)).is_ok_and(|file| file.len() > 0));
    }
    !output.stdout.is_empty()
}

fn describe(output: &Output) -> String {
    format!(
        "{}\n--- stdout:\n{}\n--- stderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Whether a sweep cannot run here, so that running a GPU command only parses its options: no
/// driver library loads (as `block-size` itself asks), and a one-pixel, one-launch sweep exits
/// 3. Where a driver loads, no GPU command is started: a sweep is not a unit test.
fn sweeps_cannot_run_here() -> bool {
    // SAFETY: loading the driver library runs its initialisers, as `block-size` does.
    if unsafe { libloading::Library::new("libcuda.so.1") }.is_ok() {
        return false;
    }
    let probe: Vec<String> =
        ["--width", "1", "--height", "1", "--block-sizes", "32", "--warmups", "0", "--runs", "1"]
            .iter()
            .map(|arg| arg.to_string())
            .collect();
    run(&probe).status.code() == Some(NO_DEVICE)
}

fn all_commands() -> Vec<Shown> {
    pages().iter().flat_map(|page| sh_commands(page).into_iter().chain(inline_commands(page))).collect()
}

#[test]
fn every_command_shown_runs_as_written() {
    let shown = all_commands();
    assert!(
        shown.iter().any(|shown| shown.command == "scripts/sweep"),
        "the README's two commands are not found: is the sh block still there?"
    );
    let gpu_checkable = sweeps_cannot_run_here();
    let mut failures = Vec::new();
    let (mut ran, mut parsed, mut skipped) = (0, 0, Vec::new());
    for shown in &shown {
        let kind = match classify(shown) {
            Ok(kind) => kind,
            Err(failure) => {
                failures.push(failure);
                continue;
            }
        };
        match kind {
            Kind::NotRun(why) => skipped.push(format!("{}: `{}` not run: {why}", shown.place, shown.command)),
            Kind::NoGpu(args) => {
                let output = run(&args);
                ran += 1;
                if !output.status.success() || !produced(&args, &output) {
                    failures.push(format!(
                        "{}: `{}` needs no GPU and must exit 0 with output; it gave {}",
                        shown.place,
                        shown.command,
                        describe(&output)
                    ));
                }
            }
            Kind::Gpu(_) if !gpu_checkable => skipped.push(format!(
                "{}: `{}` SKIPPED: a sweep could run on this machine, and a test does not start one",
                shown.place, shown.command
            )),
            Kind::Gpu(args) => {
                let output = run(&args);
                parsed += 1;
                if output.status.code() != Some(NO_DEVICE) || !output.stdout.is_empty() {
                    let what = if output.status.code() == Some(USAGE) {
                        "its options do not parse (exit 2, bad input)"
                    } else {
                        "it should have stopped after parsing its options, at the missing driver or GPU (exit 3)"
                    };
                    failures.push(format!(
                        "{}: `{}`: {what}; it gave {}",
                        shown.place,
                        shown.command,
                        describe(&output)
                    ));
                }
            }
        }
    }
    for line in &skipped {
        eprintln!("{line}");
    }
    eprintln!(
        "{} commands shown: {ran} run (no GPU needed), {parsed} parsed (GPU), {} not run",
        shown.len(),
        skipped.len()
    );
    assert!(
        failures.is_empty(),
        "commands in the docs that do not run as written:\n\n{}",
        failures.join("\n\n")
    );
    assert!(
        ran > 0,
        "no command that needs no GPU found: is the occupancy block in docs/occupancy.md still there?"
    );
}

/// GitHub's anchor for a heading: lower case; letters, digits, `-` and `_` kept, spaces to
/// `-`, everything else dropped; `-1`, `-2`, ... on repeats.
fn anchors(text: &str) -> Vec<String> {
    let (prose, _) = split_fences(text);
    let mut seen: HashMap<String, usize> = HashMap::new();
    prose
        .lines()
        .filter_map(|line| {
            let title = line.trim_start_matches('#');
            (title.len() < line.len() && title.starts_with(' ')).then_some(title.trim())
        })
        .map(|title| {
            let slug: String = title
                .to_lowercase()
                .chars()
                .filter_map(|character| match character {
                    ' ' => Some('-'),
                    '-' | '_' => Some(character),
                    other if other.is_alphanumeric() => Some(other),
                    _ => None,
                })
                .collect();
            let count = seen.entry(slug.clone()).or_insert(0);
            let anchor = if *count == 0 { slug.clone() } else { format!("{slug}-{count}") };
            *count += 1;
            anchor
        })
        .collect()
}

/// The link targets of a page's prose (`[text](target)` and `![alt](target)`), with their
/// lines; code spans and fenced blocks are not prose.
fn link_targets(page: &Page) -> Vec<(usize, String)> {
    let (prose, _) = split_fences(&page.text);
    // Blank out code spans, keeping line breaks.
    let mut in_code = false;
    let prose: String = prose
        .chars()
        .map(|character| match character {
            '`' => {
                in_code = !in_code;
                ' '
            }
            '\n' => '\n',
            _ if in_code => ' ',
            other => other,
        })
        .collect();
    let mut targets = Vec::new();
    for (index, line) in prose.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("").to_string();
            targets.push((index + 1, target));
            rest = &after[end..];
        }
    }
    targets
}

#[test]
fn every_relative_link_leads_to_a_file_and_heading() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for (line, target) in link_targets(&page) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) =
                target.split_once('#').map_or((target.as_str(), None), |(f, a)| (f, Some(a)));
            let resolved = if file.is_empty() {
                page.path.clone()
            } else {
                page.path.parent().expect("a folder").join(file)
            };
            if (file.is_empty() && anchor.is_none()) || !resolved.exists() {
                failures.push(format!("{}:{line}: ({target}) leads to no file", page.name));
                continue;
            }
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&resolved).unwrap_or_default();
                if resolved.extension().is_none_or(|extension| extension != "md")
                    || !anchors(&text).iter().any(|known| known == anchor)
                {
                    failures.push(format!(
                        "{}:{line}: ({target}): {} has no heading with the anchor #{anchor}",
                        page.name,
                        resolved.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "broken links in the docs:\n{}", failures.join("\n"));
    assert!(checked > 0, "no relative link found in README.md or docs/");
}

#[test]
fn the_readme_stays_a_first_screen() {
    let readme = repo_root().join("README.md");
    let bytes = std::fs::metadata(&readme).expect("README.md").len();
    assert!(
        bytes <= 12 * 1024,
        "README.md is {bytes} bytes; keep it at most 12 KiB and move reference to docs/"
    );
}

#[test]
fn the_parsers_find_commands_comments_and_anchors() {
    let page = Page {
        name: "page.md".into(),
        path: PathBuf::from("page.md"),
        text: "# Title\n\n## A `code` title: twice\n\nRun `block-size --stats`, not `block-size tail [--waves N]` or `block-size diff OLD.json NEW.json --threshold 2%`.\n\n\
               ```sh\nscripts/sweep occupancy --gpu t4   # a comment\nblock-size --width 8 \\\n  --height 8\n```\n\n\
               ```text\nscripts/ignored --here\n## not a heading\n```\n\n## A code title twice\n"
            .into(),
    };
    let sh: Vec<String> =
        sh_commands(&page).into_iter().map(|shown| format!("{} {}", shown.place, shown.command)).collect();
    assert_eq!(
        sh,
        ["page.md:8 scripts/sweep occupancy --gpu t4", "page.md:9 block-size --width 8 --height 8"]
    );
    let inline: Vec<String> = inline_commands(&page).into_iter().map(|shown| shown.command).collect();
    assert_eq!(inline, ["block-size --stats"]);
    assert!(is_placeholder("FILE") && is_placeholder("OLD.json") && is_placeholder("N"));
    assert!(!is_placeholder("--html") && !is_placeholder("sweep.json") && !is_placeholder("2%"));
    assert_eq!(anchors(&page.text), ["title", "a-code-title-twice", "a-code-title-twice-1"]);
    assert_eq!(strip_comment("a#b # c"), "a#b ");
    assert!(starts_with_words(
        "cargo run --release -p reduce-example -- --n 8",
        "cargo run --release -p reduce-example"
    ));
    assert!(starts_with_words("scripts/test", "scripts/test"));
    assert!(!starts_with_words("scripts/testing", "scripts/test"));
}
