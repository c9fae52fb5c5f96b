//! `block-size diff OLD.json NEW.json`: two sweeps compared configuration by configuration, no
//! GPU needed.

use block_size_runner::commands::{self, DEFAULT_THRESHOLD};
use block_size_runner::{Console, Error};
use clap::Args;
use std::path::PathBuf;

// The options of `block-size diff`.
#[derive(Args, Debug, Clone, PartialEq)]
#[command(
    about = "Compares two sweeps' JSON exports configuration by configuration: SAME, FASTER, SLOWER or UNCLEAR by a bootstrap interval of the ratio of medians; no GPU needed",
    after_help = "Rule: for each configuration (block size, and the tunable's value where there is one) \
        in both files, the ratio of medians NEW/OLD and its 95% percentile bootstrap interval (2000 \
        resamples of each file's samples, seeded, so the same files give the same answer). SLOWER if \
        the interval lies above 1+threshold, FASTER if below 1-threshold, SAME if within \
        [1-threshold, 1+threshold], UNCLEAR otherwise.\n\nExit status: 0; 1 with --fail-if-slower \
        when a configuration is SLOWER; 2 bad input: a file that is not a sweep's JSON export, a run \
        whose checks failed, no configuration in common, or files of different GPUs, kernels, PTX or \
        work without --allow-different."
)]
#[cfg_attr(doc, doc = "The options of `block-size diff`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct DiffCommand {
    /// The baseline: a sweep's JSON export (--json FILE, or --format json)
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,

    /// The sweep judged against it
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,

    #[arg(
        long,
        // `-2%` too is a value, out of range, not an unknown argument.
        allow_hyphen_values = true,
        value_name = "FRACTION|PERCENT%",
        value_parser = parse_threshold,
        default_value_t = DEFAULT_THRESHOLD,
        help = "How far from 1 the ratio may be and still be SAME: a fraction (0.02) or a percentage (2%)"
    )]
    #[cfg_attr(doc, doc = "`--threshold`.")]
    pub threshold: f64,

    /// Exit 1 when any configuration is SLOWER (for CI)
    #[arg(long)]
    pub fail_if_slower: bool,

    /// Compare files of different GPUs, kernels, PTX or work anyway (each difference is noted)
    #[arg(long)]
    pub allow_different: bool,
}

/// `--threshold`: `0.02`, or `2%`.
fn parse_threshold(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let (number, scale) = match text.strip_suffix('%') {
        Some(percent) => (percent.trim(), 0.01),
        None => (text, 1.0),
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
        .map(|value| value * scale)
        .ok_or_else(|| "a fraction (0.02) or a percentage (2%)".to_string())
}

impl DiffCommand {
    /// The comparison, printed on `console`; `Ok` carries the exit status.
    pub fn exec(&self, console: &mut Console) -> Result<i32, Error> {
        commands::diff(
            &self.old,
            &self.new,
            self.threshold,
            self.fail_if_slower,
            self.allow_different,
            console,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_is_a_fraction_or_a_percentage() {
        assert_eq!(parse_threshold("0.05"), Ok(0.05));
        assert_eq!(parse_threshold("2%"), Ok(0.02));
        assert_eq!(parse_threshold(" 0.5 % "), Ok(0.005));
        assert!(parse_threshold("two").is_err());
        assert!(parse_threshold("inf").is_err());
    }
}
