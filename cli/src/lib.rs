/*!
The `block-size` command line: one clap parser ([`cli`]) over the subcommands of [`cmd`], each
of which holds its arguments and turns them into the library's typed request; the library
(`block-size-runner`) validates and runs it. [`app`] wires them together for the binaries.

The options of each command for any kernel are the library's (`block_size_runner::SweepArgs`,
`CompareArgs`, `TailArgs`, `VariantsArgs`, and `commands::OccupancyArgs`), which the subcommands
flatten in beside the choice of this repository's kernel ([`args`]): a program of your own takes
them from the library alike.
*/

#![warn(missing_docs)]

pub mod app;
pub mod args;
pub mod cli;
pub mod cmd;

/// The fuzz target of the command line's list options (`fuzz/`, `scripts/fuzz`): behind the
/// `fuzzing` feature, and not an API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt as _;

    /// The options whose values are lists or numbers the parsers of [`crate::args`] read, each
    /// with the words before it: the first byte picks one.
    const OPTIONS: [&[&str]; 7] = [
        &["--block-sizes"],
        &["--kernel", "histogram", "--bins"],
        &["tail", "--waves"],
        &["diff", "old.json", "new.json", "--threshold"],
        &["--device"],
        &["--launch-timeout"],
        &["compare", "--block-sizes"],
    ];

    /// `block-size` with the option `data[0]` picks, the rest up to a NUL byte as its value
    /// (any bytes: an argument need not be UTF-8), and each further NUL-separated part as one
    /// more argument, through the very parser and validation the program runs.
    pub fn list_options(data: &[u8]) {
        let Some((&pick, rest)) = data.split_first() else { return };
        let mut args: Vec<OsString> = vec!["block-size".into()];
        args.extend(OPTIONS[usize::from(pick) % OPTIONS.len()].iter().map(OsString::from));
        args.extend(rest.split(|&byte| byte == 0).map(|part| OsString::from_vec(part.to_vec())));
        if let Err(crate::cli::CliError::Usage(error)) = crate::cli::parse(args) {
            // The line as `block-size` prints it: a value may hold a line break, which the
            // message keeps whole and the printed `Error` escapes.
            let printed = error.to_string();
            assert!(!printed.contains(['\n', '\r']), "a refusal is one line: {printed:?}");
        }
    }
}
