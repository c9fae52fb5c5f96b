/*!
How a run ends: [`Error`], a run that stopped before its verdict, with the exit status it maps
to ([`exit`]: `block-size`'s, the same through the library), and the [`Console`] a run prints
on.
*/

use std::io::Write;

/// Exit statuses, `block-size`'s and a program of your own's alike. With `--device all`, the
/// run's status is the highest of its devices' (3 before 2 before 1).
pub mod exit {
    /// Every check held.
    pub const SUCCESS: i32 = 0;
    /// A check failed, or the driver failed mid-run: the table is not a measurement.
    pub const FAILED: i32 = 1;
    /// Bad input: a setting out of range, a block size the device cannot launch, buffers
    /// larger than the device's free memory or the host's available memory.
    pub const USAGE: i32 = 2;
    /// No NVIDIA driver, no GPU, no device at the requested index, or a driver that cannot
    /// load the kernel's PTX (too old for its PTX ISA, or refusing it).
    pub const NO_DEVICE: i32 = 3;
    /// A worker's request to its supervisor: the GPU context is lost (a kernel faulted in a way
    /// that poisons it, or hung), the configuration is journaled as failed, and a fresh worker
    /// must measure the rest (`EX_TEMPFAIL`). Never the status of `block-size` itself.
    pub(crate) const RESTART: i32 = 75;
}

/// Why a run stopped before its verdict: one line, and the exit status it maps to.
///
/// ```
/// use block_size_runner::{Error, SweepArgs, exit};
///
/// let error: Error = SweepArgs::from_args(["--block-sizes", "64,128,64"])?.validate().unwrap_err();
/// assert_eq!(error.exit_status(), exit::USAGE);
/// assert_eq!(format!("Error: {error}"), "Error: block size 64 is listed twice in --block-sizes");
/// let _: &dyn std::error::Error = &error;
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: i32,
    message: String,
}

impl Error {
    /// An error with exit status `code` ([`exit`]) and its one-line `message`.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    /// The exit status this error maps to ([`exit`]): 1 the driver failed mid-run, 2 bad
    /// input, 3 no driver, no GPU, or a driver that cannot load the PTX.
    pub fn exit_status(&self) -> i32 {
        self.code
    }

    /// What went wrong, in one line; empty where there is nothing to say (`--help`).
    pub(crate) fn message(&self) -> &str {
        &self.message
    }
}

// One line whoever prints it (`eprintln!("Error: {error}")`, as a program of your own does),
// whatever a name, a path or a file put into the message.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&one_line(&self.message))
    }
}

impl std::error::Error for Error {}

/// A driver failure mid-run: exit 1 with the error's chain.
pub(crate) fn failed(error: anyhow::Error) -> Error {
    Error::new(exit::FAILED, format!("{error:#}"))
}

/// Where a command prints: standard output and standard error ([`with_stdio`]), or buffers
/// in tests. The commands ignore write errors (a closed pipe), as the table's streaming always
/// did.
///
/// ```
/// use block_size_runner::Console;
/// use std::io::Write as _;
///
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let console = Console { out: &mut out, err: &mut err };
/// writeln!(console.out, "a line")?;
/// assert_eq!(out, b"a line\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Console<'a> {
    /// Standard output, or a buffer.
    pub out: &'a mut dyn Write,
    /// Standard error, or a buffer.
    pub err: &'a mut dyn Write,
}

impl Console<'_> {
    /// Writes `text` to standard output and flushes it.
    pub(crate) fn out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Writes `text` to standard error and flushes it.
    pub(crate) fn err(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes());
        let _ = self.err.flush();
    }

    /// Prints `error` as `block-size` does, one `Error: ` line on standard error (nothing
    /// where its message is empty), and returns its exit status.
    pub(crate) fn print_error(&mut self, error: &Error) -> i32 {
        if !error.message.is_empty() {
            self.err(&format!("Error: {}\n", one_line(&error.message)));
        }
        error.code
    }
}

/// `text` as it may stand in a one-line message: as it is where every character is printable,
/// else quoted and escaped as Rust writes a string literal (`"a\nb"`), so that no newline,
/// carriage return or bidirectional control in a name or a path can split or reorder the line.
pub(crate) fn shown(text: impl AsRef<std::ffi::OsStr>) -> String {
    let text = text.as_ref().to_string_lossy();
    if text.chars().any(|c| c.is_control() || is_bidi_control(c)) || text.is_empty() {
        format!("{text:?}")
    } else {
        text.into_owned()
    }
}

/// The most characters of a value read from outside (a file, a cache, a journal) a message
/// quotes.
pub(crate) const QUOTED_CHARS: usize = 80;

/// The first [`QUOTED_CHARS`] characters of `text`, with `...` where cut: the part of a value
/// read from outside that a one-line message quotes (each caller then shows it its own way).
pub(crate) fn cut_for_quoting(text: &str) -> String {
    let mut cut: String = text.chars().take(QUOTED_CHARS).collect();
    if cut.len() < text.len() {
        cut.push_str("...");
    }
    cut
}

/// `message` with every control character and bidirectional control escaped (`\n`,
/// `\u{202e}`): the last guard of the promise that an error is one line and reads as written,
/// whatever a GPU name, a path or a file's contents put into it.
pub(crate) fn one_line(message: &str) -> String {
    message
        .chars()
        .map(
            |c| {
                if c.is_control() || is_bidi_control(c) {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            },
        )
        .collect()
}

/// The Unicode characters that reorder text around them (the bidirectional embeddings,
/// overrides, isolates and marks).
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Runs `program` with standard output and standard error as its [`Console`].
pub fn with_stdio<T>(program: impl FnOnce(&mut Console) -> T) -> T {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    program(&mut Console { out: &mut out, err: &mut err })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_name_is_shown_as_it_is_and_an_odd_one_quoted_on_one_line() {
        assert_eq!(shown("out/sweep.json"), "out/sweep.json");
        assert_eq!(shown("a b.json"), "a b.json");
        assert_eq!(shown("a\nb.json"), "\"a\\nb.json\"");
        assert_eq!(shown("x\u{202e}nosj.json"), "\"x\\u{202e}nosj.json\"");
        assert_eq!(shown(""), "\"\"");
    }

    #[test]
    fn a_quoted_value_is_its_first_80_characters_marked_where_cut() {
        assert_eq!(cut_for_quoting("short"), "short");
        assert_eq!(cut_for_quoting(&"é".repeat(80)), "é".repeat(80), "80 characters, more bytes: whole");
        assert_eq!(cut_for_quoting(&"x".repeat(81)), format!("{}...", "x".repeat(80)));
    }

    #[test]
    fn an_error_is_printed_on_one_line_whatever_its_message_holds() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut console = Console { out: &mut out, err: &mut err };
        let code = console.print_error(&Error::new(exit::USAGE, "GPU \"H200\nfake\r\u{202e}\" refused"));
        assert_eq!(code, exit::USAGE);
        assert_eq!(String::from_utf8(err).unwrap(), "Error: GPU \"H200\\nfake\\r\\u{202e}\" refused\n");
    }

    #[test]
    fn an_error_displayed_is_one_line_too() {
        let error = Error::new(exit::USAGE, "invalid value 'a\nb\u{202e}' for '--kernel <NAME>'");
        assert_eq!(error.to_string(), "invalid value 'a\\nb\\u{202e}' for '--kernel <NAME>'");
        assert_eq!(
            Error::new(exit::USAGE, "--runs must be at least 1").to_string(),
            "--runs must be at least 1"
        );
    }
}
