/*!
The commands' options as `block-size` takes them on its command line, for a program of your own
alike: [`SweepArgs`], [`CompareArgs`], [`TailArgs`] and [`VariantsArgs`], each a clap `Args` to
flatten into your program's parser, or read from a list of words (`from_args`). clap reads the
syntax (numbers, lists, names) and refuses what it cannot read in `block-size`'s one line
(`From<clap::Error>` for [`Error`]); each becomes the commands' settings, whose validation
decides the rest, so a value is refused with the same line whichever program read it. The
option groups they flatten in and the settings they become are this crate's own.
*/

mod compare;
mod groups;
mod occupancy;
mod sweep;
mod tail;
mod variants;

pub use self::compare::CompareArgs;
pub use self::occupancy::OccupancyArgs;
pub use self::sweep::SweepArgs;
pub use self::tail::TailArgs;
pub use self::variants::VariantsArgs;

use crate::error::{Error, exit};
use clap::{Args, Command, FromArgMatches};
use std::ffi::OsString;

/// `T`'s options in `args`, with no program name before them: what `from_args` reads.
fn parse<T: Args + FromArgMatches>(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<T, Error> {
    // `--help` is the parser of a program's to answer, not a value: here it is an unknown option.
    let command = T::augment_args(Command::new("block-size").no_binary_name(true).disable_help_flag(true));
    let matches = command.try_get_matches_from(args.into_iter().map(Into::into))?;
    Ok(T::from_arg_matches(&matches)?)
}

/// `T` with no option given: `block-size`'s defaults, which every option has.
fn defaults<T: Args + FromArgMatches>() -> T {
    parse(std::iter::empty::<OsString>()).expect("every option has a default")
}

/// A command line clap could not read, as `block-size` says it: one line, exit status 2. A
/// request for help or the version (`clap::Error::use_stderr` is false) is the caller's to print
/// first (`clap::Error::exit`), as `block-size` does.
impl From<clap::Error> for Error {
    fn from(error: clap::Error) -> Self {
        Error::new(exit::USAGE, usage_line(&error))
    }
}

/// clap's message as one line, without its "error: " prefix, usage block and hint: its first
/// line, and where that line ends in a colon (the arguments missing, those an argument cannot
/// be used with) the names listed under it. A value given with a line break in it stays whole
/// (printing the error escapes the break).
fn usage_line(error: &clap::Error) -> String {
    use clap::error::ContextValue;
    // Set aside while the lines are read: a value with a line break would end the first line
    // early; a long one (a 100 KB --kernel) is put back cut to its first characters.
    let broken: Vec<&str> = error
        .context()
        .filter_map(|(_, value)| match value {
            ContextValue::String(text)
                if text.contains(['\n', '\r']) || text.chars().count() > QUOTED_CHARS =>
            {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    let placeholder = |index: usize| format!("\u{0}{index}\u{0}");
    let mut rendered = error.render().to_string();
    for (index, value) in broken.iter().enumerate() {
        rendered = rendered.replace(value, &placeholder(index));
    }
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or("invalid command line");
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    if line.ends_with(':') {
        let listed: Vec<&str> = lines.take_while(|listed| listed.starts_with(' ')).map(str::trim).collect();
        line = format!("{line} {}", listed.join(", "));
    }
    for (index, value) in broken.iter().enumerate() {
        line = line.replace(&placeholder(index), &quoted(value));
    }
    line
}

/// The most characters of a value an error line quotes.
const QUOTED_CHARS: usize = 80;

/// `value` as an error line quotes it: whole, or its first [`QUOTED_CHARS`] characters and
/// how long it was.
fn quoted(value: &str) -> String {
    let length = value.chars().count();
    match length > QUOTED_CHARS {
        true => format!("{}... ({length} characters)", value.chars().take(QUOTED_CHARS).collect::<String>()),
        false => value.to_string(),
    }
}
