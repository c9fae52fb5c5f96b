/*!
The command line: one parser (clap derive) over the subcommands of [`crate::cmd`], each of
which holds its own arguments. With no subcommand, `block-size` sweeps, and the sweep's options
are the top level's own. clap reads the syntax; the library's validation of the request
decides the rest, so the CLI and a program of your own refuse a value with the same line.

Checks that need the device (a block size above its limit, a frame larger than its free
memory) come later, in the library, when it opens the device.
*/

use crate::cmd::new::NewRequest;
use crate::cmd::{compare, diff, merge, new, occupancy, report, sweep, tail, variants};
use block_size_builtin::{CompareRequest, SweepRequest, TailRequest, VariantsRequest};
use block_size_runner::{Error, exit};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;

// The whole command line. (Its texts are attributes, not doc comments: clap would take those
// as its help.)
#[derive(Parser, Debug)]
#[command(
    name = "block-size",
    version,
    about = "How many threads per block? Sweeps block sizes for a Rust (rust-cuda) kernel: grayscale, or a shared-memory histogram.",
    long_about = "How many threads per block? For each block size, asks the driver how many blocks of \
        the Rust kernel (--kernel: grayscale, or histogram with --bins of dynamic shared memory) \
        fit on one SM, launches exactly one full wave of them over a synthetic frame, times the \
        launches with CUDA events, checks the output against a CPU reference, and prints the \
        table of block_size.cu, with the limit that binds blocks/SM in its last column.",
    after_help = "Exit status: 0 every check held; 1 a check failed or the driver failed mid-run (the \
        table is then not a measurement); 2 bad input; 3 no NVIDIA driver, no GPU, no such device, \
        or a driver that cannot load the kernel's PTX (too old for its PTX ISA). With --device all, \
        the highest status of any device.",
    args_conflicts_with_subcommands = true
)]
#[cfg_attr(doc, doc = "The whole command line: a subcommand, or the sweep's options.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct Cli {
    #[command(subcommand)]
    #[cfg_attr(doc, doc = "The subcommand, where one is given.")]
    pub command: Option<Command>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The sweep's options, `block-size`'s own.")]
    pub sweep: sweep::SweepCommand,
}

// The subcommands; each one's help is its module's.
#[derive(Subcommand, Debug)]
#[cfg_attr(doc, doc = "The subcommands; each one's help is its module's.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum Command {
    #[cfg_attr(doc, doc = "`block-size occupancy`.")]
    Occupancy(occupancy::OccupancyCommand),
    #[cfg_attr(doc, doc = "`block-size compare`.")]
    Compare(compare::CompareCommand),
    #[cfg_attr(doc, doc = "`block-size tail`.")]
    Tail(tail::TailCommand),
    #[cfg_attr(doc, doc = "`block-size variants`.")]
    Variants(variants::VariantsCommand),
    #[cfg_attr(doc, doc = "`block-size new`.")]
    New(new::NewCommand),
    #[cfg_attr(doc, doc = "`block-size diff`.")]
    Diff(diff::DiffCommand),
    #[cfg_attr(doc, doc = "`block-size report`.")]
    Report(report::ReportCommand),
    #[cfg_attr(doc, doc = "`block-size merge`.")]
    Merge(merge::MergeCommand),
}

/// A validated command line: the sweep, a subcommand of the GPU, or one that needs no GPU (the
/// occupancy calculator, `new`).
#[derive(Debug, Clone, PartialEq)]
// One value per process, made once and matched once: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Request {
    /// The sweep, `block-size`'s default command.
    Sweep(SweepRequest),
    /// `block-size compare`.
    Compare(CompareRequest),
    /// `block-size tail`.
    Tail(TailRequest),
    /// `block-size variants`.
    Variants(VariantsRequest),
    /// `block-size occupancy`, which needs no GPU.
    Occupancy(occupancy::OccupancyCommand),
    /// `block-size new`, which writes a project and needs no GPU.
    New(NewRequest),
    /// `block-size diff`, which compares two JSON exports and needs no GPU.
    Diff(diff::DiffCommand),
    /// `block-size report`, which writes the HTML report of a JSON export and needs no GPU.
    Report(report::ReportCommand),
    /// `block-size merge`, which merges result files of one sweep and needs no GPU.
    Merge(merge::MergeCommand),
}

/// Why the command line was not run.
#[derive(Debug)]
pub enum CliError {
    /// `--help` or `--version`: print it and exit 0.
    Info(clap::Error),
    /// Bad input, as one line: exit 2.
    Usage(Error),
}

impl From<clap::Error> for CliError {
    fn from(error: clap::Error) -> Self {
        match error.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => Self::Info(error),
            // clap's message as the library says it, whoever parsed: one line.
            _ => Self::Usage(Error::from(error)),
        }
    }
}

/// A refusal of a command line that clap read: one line, exit 2.
fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(Error::new(exit::USAGE, message))
}

/// `--corrupt-output` in `block-size`'s help: what it writes into this repository's kernels, and
/// its old name. (`SweepArgs` says what it writes into a kernel of your own.)
const CORRUPT_OUTPUT_HELP: &str = "Self-test: overwrite output element INDEX on the device after every row's launches \
    (grayscale: a pixel, with -1; histogram: a bin, with 4294967295; a kernel of your own: its first output, \
    with NaN or the largest integer), so every row must fail its check at INDEX and the run must exit 1";

/// `--search` in `block-size`'s help, which can point at this repository's docs.
const SEARCH_HELP: &str = "exhaustive: every configuration samples to the noise-driven stop; race: every \
    configuration gets --min-runs samples, the clearly slower ones stop there, the rest sample on \
    (docs/search.md) [default: race above 24 configurations, exhaustive with --runs]";

/// The clap command, for help and for its own consistency test: the sweep's options as
/// `block_size_runner::SweepArgs` has them, with `block-size`'s own words on this repository's
/// kernels and docs where a program of your own has generic ones, and `variants`' options in
/// the order its help always showed them.
pub fn build() -> clap::Command {
    Cli::command()
        .mut_arg("corrupt_output", |arg| arg.help(CORRUPT_OUTPUT_HELP).visible_alias("corrupt-pixel"))
        .mut_arg("search", |arg| arg.help(SEARCH_HELP))
        .mut_subcommand("variants", |command| {
            variants::HELP_ORDER
                .iter()
                .enumerate()
                .fold(command, |command, (order, id)| command.mut_arg(id, |arg| arg.display_order(order)))
        })
}

/// Parses and validates a command line (program name first): clap reads it, the library's
/// validation of the request it makes decides whether it holds.
pub fn parse<I, T>(args: I) -> Result<Request, CliError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let matches = build().try_get_matches_from(&args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    let (request, validated) = match cli.command {
        None => {
            let request = cli.sweep.request();
            let validated = request.validate();
            (Request::Sweep(request), validated)
        }
        // What needs no GPU is checked as it runs, in `block-size` itself.
        Some(Command::Occupancy(args)) => return Ok(Request::Occupancy(args)),
        Some(Command::Diff(args)) => return Ok(Request::Diff(args)),
        Some(Command::Report(args)) => return Ok(Request::Report(args)),
        Some(Command::Merge(args)) => return Ok(Request::Merge(args)),
        Some(Command::Compare(args)) => {
            let request = args.request();
            let validated = request.validate();
            (Request::Compare(request), validated)
        }
        Some(Command::Tail(args)) => {
            let request = args.request();
            let validated = request.validate();
            (Request::Tail(request), validated)
        }
        Some(Command::Variants(args)) => {
            let request = args.request();
            let validated = request.validate();
            (Request::Variants(request), validated)
        }
        // Its name is checked here; the folder when it is written.
        Some(Command::New(args)) => return args.request().map(Request::New).map_err(usage),
    };
    validated.map(|()| request).map_err(|error| usage(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_error(args: &[&str]) -> String {
        match parse(std::iter::once("block-size").chain(args.iter().copied())) {
            Err(CliError::Usage(error)) => error.to_string(),
            other => panic!("{args:?} should be a usage error, got {other:?}"),
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        build().debug_assert();
    }

    #[test]
    fn no_subcommand_is_the_sweep_and_each_subcommand_its_own() {
        assert!(matches!(parse(["block-size"]), Ok(Request::Sweep(_))));
        assert!(matches!(parse(["block-size", "--width", "64"]), Ok(Request::Sweep(_))));
        assert!(matches!(parse(["block-size", "compare"]), Ok(Request::Compare(_))));
        assert!(matches!(parse(["block-size", "tail"]), Ok(Request::Tail(_))));
        assert!(matches!(parse(["block-size", "variants"]), Ok(Request::Variants(_))));
        assert!(matches!(parse(["block-size", "occupancy", "--gpu", "t4"]), Ok(Request::Occupancy(_))));
        assert!(matches!(parse(["block-size", "new", "/tmp/mine"]), Ok(Request::New(_))));
        assert!(matches!(parse(["block-size", "diff", "a.json", "b.json"]), Ok(Request::Diff(_))));
        assert!(matches!(parse(["block-size", "merge", "a.json", "b.json"]), Ok(Request::Merge(_))));
        assert!(matches!(
            parse(["block-size", "report", "a.json", "--html", "a.html"]),
            Ok(Request::Report(_))
        ));
        assert_eq!(
            usage_error(&["--width", "64", "compare"]),
            "the subcommand 'compare' cannot be used with '--width <PIXELS>'"
        );
    }

    #[test]
    fn help_is_information_not_an_error() {
        assert!(matches!(parse(["block-size", "--help"]), Err(CliError::Info(_))));
        assert!(matches!(parse(["block-size", "occupancy", "--help"]), Err(CliError::Info(_))));
        assert!(matches!(parse(["block-size", "--version"]), Err(CliError::Info(_))));
    }

    #[test]
    fn kernel_and_bins_are_read_by_the_sweep_compare_and_tail() {
        let kernel_and_bins =
            |args: &[&str]| match parse(std::iter::once("block-size").chain(args.iter().copied())) {
                Ok(Request::Sweep(request)) => (request.kernel.kernel, request.kernel.bins),
                Ok(Request::Compare(request)) => (request.kernel.kernel, request.kernel.bins),
                Ok(Request::Tail(request)) => (request.kernel.kernel, request.kernel.bins),
                other => panic!("{other:?}"),
            };
        let histogram = |bins: &[u32]| ("histogram".to_string(), bins.to_vec());
        assert_eq!(kernel_and_bins(&["--kernel", "histogram", "--bins", "4096"]), histogram(&[4096]));
        assert_eq!(
            kernel_and_bins(&["--kernel", "histogram", "--bins", "256,4096"]),
            histogram(&[256, 4096])
        );
        assert_eq!(kernel_and_bins(&["--kernel", "histogram"]), histogram(&[]));
        assert_eq!(kernel_and_bins(&["compare", "--kernel", "histogram", "--bins", "1"]), histogram(&[1]));
        assert_eq!(kernel_and_bins(&["tail", "--kernel", "histogram", "--bins", "300"]), histogram(&[300]));
        // A list is an axis of the sweep alone.
        for command in ["compare", "tail"] {
            assert_eq!(
                usage_error(&[command, "--kernel", "histogram", "--bins", "256,4096"]),
                "--bins takes one value here; several are an axis of the sweep alone (block-size --bins 256,4096)"
            );
        }
    }

    #[test]
    fn bins_out_of_range_or_for_another_kernel_are_rejected() {
        for bins in ["0", "4097", "-1", "many"] {
            let message = usage_error(&["--kernel", "histogram", &format!("--bins={bins}")]);
            assert!(message.contains("--bins"), "{bins}: {message}");
        }
        for command in [&[][..], &["compare"], &["tail"]] {
            assert_eq!(
                usage_error(&[command, &["--bins", "512"]].concat()),
                "--bins does not apply to --kernel grayscale; it is an option of --kernel histogram, histogram_x4, \
                 histogram_x8, histogram_x8k2, histogram_x8k4, histogram_x8k2c, histogram_x8k4c"
            );
        }
        assert!(usage_error(&["--kernel", "sobel"]).contains("invalid value 'sobel' for '--kernel <NAME>'"));
        assert!(matches!(
            parse(["block-size", "variants", "--kernel", "histogram", "--bins", "4096"]),
            Ok(Request::Variants(request)) if request.kernel == "histogram" && request.bins == Some(4096)
        ));
        assert_eq!(
            usage_error(&["variants", "--bins", "16"]),
            "--bins does not apply to variants of --kernel grayscale"
        );
        assert!(
            usage_error(&["variants", "--kernel", "histogram_x8"])
                .contains("invalid value 'histogram_x8' for '--kernel <KERNEL>'")
        );
        assert_eq!(
            usage_error(&["variants", "--kernel", "histogram", "--bins", "0"]),
            "--bins must be 1 to 4096, not 0"
        );
        assert_eq!(
            usage_error(&["variants", "--kernel", "histogram", "--offset", "1025"]),
            "--offset must be 0 to 1024, not 1025"
        );
    }

    #[test]
    fn an_option_given_twice_is_refused_as_before() {
        for args in [&["--block-sizes", "64", "--block-sizes", "128"][..], &["--width", "5", "--width", "6"]]
        {
            assert!(usage_error(args).contains("cannot be used multiple times"), "{args:?}");
        }
    }

    #[test]
    fn a_missing_argument_is_named_on_the_one_line() {
        assert_eq!(
            usage_error(&["diff", "a.json"]),
            "the following required arguments were not provided: <NEW.json>"
        );
        assert_eq!(
            usage_error(&["diff"]),
            "the following required arguments were not provided: <OLD.json>, <NEW.json>"
        );
        assert!(usage_error(&["occupancy"]).contains("not provided: <--gpu <PRESET>|--compare-gpus <LIST>>"));
    }

    #[test]
    fn a_value_with_a_line_break_stays_whole() {
        // The value whole, the line after its break too; printed, the break is escaped: one line.
        let printed = usage_error(&["--kernel", "grey\nscale"]);
        assert!(printed.starts_with("invalid value 'grey\\nscale' for '--kernel <NAME>'"), "{printed}");
        assert!(!printed.contains('\n'), "{printed}");
        let printed = usage_error(&["--wid\nth", "64"]);
        assert!(printed.contains("--wid\\nth") && !printed.contains('\n'), "{printed}");
    }

    #[test]
    fn a_negative_number_is_a_value_out_of_range_not_an_unknown_argument() {
        for (args, option) in [
            (&["--device", "-1"][..], "--device"),
            (&["compare", "--device", "-1"], "--device"),
            (&["occupancy", "--gpu", "t4", "--regs", "-1"], "--regs"),
            (&["occupancy", "--gpu", "t4", "--smem", "-5"], "--smem"),
            (&["--runs", "-1"], "--runs"),
            (&["--width", "-64"], "--width"),
            (&["variants", "--offset", "-1"], "--offset"),
            (&["--max-time-per-row", "-1"], "--max-time-per-row"),
        ] {
            let message = usage_error(args);
            assert!(message.starts_with("invalid value '-"), "{args:?}: {message}");
            assert!(message.contains(option), "{args:?}: {message}");
        }
        // A float's range is the library's to say.
        assert_eq!(
            usage_error(&["tail", "--waves", "-2"]),
            "--waves -2 is not a grid size: give waves above 0 and at most 1000"
        );
        assert!(
            usage_error(&["--max-noise", "-0.5"]).starts_with("--max-noise must be a fraction from 0 to 1")
        );
        assert_eq!(
            usage_error(&["occupancy", "--gpu", "t4", "--regs", "-1"]),
            "invalid value '-1' for '--regs <N>': -1 is not in 0..=4294967295"
        );
    }

    #[test]
    fn a_time_too_long_for_a_duration_is_refused_not_a_panic() {
        for option in ["--launch-timeout", "--max-time-per-row"] {
            for value in ["1e99", "1e20", "86401", "1000y", "1.8e19"] {
                let message = usage_error(&[option, value]);
                assert!(
                    message.ends_with("a time of at most a day (86400 s)"),
                    "{option} {value}: {message}"
                );
            }
        }
        assert!(matches!(parse(["block-size", "--launch-timeout", "86400"]), Ok(Request::Sweep(_))));
        assert!(matches!(parse(["block-size", "--max-time-per-row", "24h"]), Ok(Request::Sweep(_))));
    }
}
