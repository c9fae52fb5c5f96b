/*!
Racing (`--search race`, `--search rungs`): spend samples only where the winner can be.

A race measures in two rounds. The first measures every configuration, checked as always, with
the minimum count of samples (`--min-runs`, 10 by default) and no noise-driven stop. Then each
configuration's first-round samples give a distribution-free confidence interval of its median
([`median_interval`]: two order statistics), and a configuration stops ([`Stopped::Raced`])
when the lower end of its interval is above the lowest upper end of any configuration's times
`1 + MARGIN` ([`survivors`]). A survivor whose first-round samples already meet the
noise-driven stop is done there, as exhaustive would stop it; the second round measures the
other survivors again under the noise-driven stop, and their rows hold both rounds' samples.
So a race never takes more samples of a configuration than exhaustive would, and drops the
clearly slower ones after their first.

The rule's assumptions: each configuration's samples are independent draws from one
distribution (no drift between the rounds or along the sweep beyond [`MARGIN`]), and its time is
that distribution's median. Then an interval holds its configuration's median with probability
at least `1 - ALPHA`, and where both the true best's interval and the reference's hold their
medians, the best is never dropped: its lower end is at most its median, which is at most the
reference's median, which is at most the reference's upper end. Configurations tied within
noise have overlapping intervals, and survive together. docs/search.md says the same in words.

A race in rungs (`--search rungs`) spends less on the configurations that lose, and stops a
survivor once its median is known. Every configuration gets one sample, the survivors a
second, then the survivors up to six ([`first_rung`]), then up to `--min-runs`, then twice
what they hold, rung after rung ([`next_rung`]); each rung is checked as always. After each
rung, a row that holds fewer than six samples stays only where its fastest sample is within
[`screen_margin`] (25 % after one sample, 10 % after two) of the lowest median of any row's
samples so far ([`rung_survivors`]); a row that holds six or more stays by [`survivors`]' rule
above, against the rows that hold six or more. A survivor that holds `--min-runs` is done
([`finished`]) when its samples meet the noise-driven stop, or when its median is known: half
its median interval within `--max-noise` of its median ([`Stopped::MedianKnown`]), or when its
samples' own time reaches `--max-time-per-row`, or at `--max-runs`. Once no row races, the
leader and the rows tied with it within their noise run off ([`run_off`]): one sample each a
round, in turn, so that a drift of the GPU between the rungs that finished them does not
order them.

The screen's assumptions, beyond a race's: no sample is faster than its configuration's median
by more than 5 % (noise on a GPU mostly slows a launch down; the 5 % also holds drift between
configurations), a configuration's first sample is at most 18.75 % slower than its median, and
the faster of its first two at most 4.5 % slower. The median of a row's samples lies between
its fastest and slowest, so the lowest such median is at least 0.95 of the true best's median,
and a row dropped after one sample has `sample > 1.25 x 0.95 x median = 1.1875 x median`, after
two `min > 1.10 x 0.95 x median = 1.045 x median`: never the true best. On the H200 (53131
samples of 2688 rows of the example's 192 configurations, `tails.txt` of
evidence/2026-12-03-h200-kernel-tuner/) no sample was below 0.9708 of its row's median, no
first sample above 1.1157, and the faster of no row's first two above 1.0196. docs/search.md
says the same in words. Once no row races, the rows measured to `--min-runs` are read against
the three ([`screen_break`]); where one breaks one, the rows the screen dropped race on without
it (the screen's audit, `commands::sweep`).
*/

use crate::measure::sampling::timing::{NoiseStop, Stopped, relative_spread};
use crate::search::sweep::{Row, Sweep};
use std::time::Duration;

/// How much slower than the reference's upper bound a configuration's lower bound must be
/// before it stops: two percent, for drift between configurations measured at different times.
pub const MARGIN: f64 = 0.02;

/// At most this probability that a configuration's median is outside its interval (two-sided).
pub const ALPHA: f64 = 0.05;

/// The order statistic `k` (1-based, from each end) whose pair `(x_(k), x_(n+1-k))` holds the
/// median of `n` independent draws with probability at least `1 - ALPHA`: the largest `k` with
/// `2 P(Binomial(n, 1/2) <= k - 1) <= ALPHA`, and 1 (the extremes) where none is (n < 6).
pub fn interval_rank(n: usize) -> usize {
    let mut k = 1;
    // P(B <= j) for B ~ Binomial(n, 1/2), accumulated term by term.
    let mut term = 0.5f64.powi(n as i32);
    let mut below = term;
    while k < n.div_ceil(2) && 2.0 * below <= ALPHA {
        k += 1;
        term *= (n - (k - 1) + 1) as f64 / (k - 1) as f64;
        below += term;
    }
    // The loop stops at the first k whose tail is too wide: step back to the last that held.
    if 2.0 * below > ALPHA && k > 1 { k - 1 } else { k }
}

/// The samples from which a race in rungs ([`crate::search::strategy::Search::Rungs`]) drops
/// rows by [`survivors`]' interval rule instead of its screen: the fewest `n` whose extremes
/// hold the median of `n` independent draws with probability at least `1 - ALPHA`,
/// `1 - 2 / 2^n >= 1 - ALPHA`: six.
pub fn first_rung() -> u32 {
    (1..).find(|&n| 2.0 * 0.5f64.powi(n as i32) <= ALPHA).expect("ALPHA is above 0")
}

/// How much slower than the lowest median of any row's samples a row's fastest sample must be,
/// after `samples` samples (fewer than [`first_rung`]), before a race in rungs drops it: 25 %
/// after one, 10 % after two or more.
pub fn screen_margin(samples: usize) -> f64 {
    if samples <= 1 { 0.25 } else { 0.10 }
}

/// No sample is faster than its configuration's median times this: the first of the screen's
/// assumptions (the module's docs), with which [`screen_margin`] gives the other two.
pub const SCREEN_FLOOR: f64 = 0.95;

/// How a row's samples broke one of the screen's assumptions ([`screen_break`]), each with its
/// sample (or the faster of its first two) over its median.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScreenBreak {
    /// A sample below [`SCREEN_FLOOR`] of the median.
    FastSample(f64),
    /// The first sample above `(1 + screen_margin(1)) x SCREEN_FLOOR` of the median (1.1875).
    FirstSample(f64),
    /// The faster of the first two above `(1 + screen_margin(2)) x SCREEN_FLOOR` (1.045).
    FirstTwo(f64),
}

/// The screen's three bounds on a row's samples over its median: the fastest at least
/// [`SCREEN_FLOOR`], the first at most `(1 + screen_margin(1)) x SCREEN_FLOOR` (1.1875), the
/// faster of the first two at most `(1 + screen_margin(2)) x SCREEN_FLOOR` (1.045).
fn screen_bounds() -> (f64, f64, f64) {
    (SCREEN_FLOOR, (1.0 + screen_margin(1)) * SCREEN_FLOOR, (1.0 + screen_margin(2)) * SCREEN_FLOOR)
}

/// "no sample below 0.95 x its row's median, no first sample above 1.1875 x it, and the faster of
/// the first two not above 1.045 x it": the screen's assumptions in words.
pub fn screen_assumptions() -> String {
    let (floor, first, first_two) = screen_bounds();
    format!(
        "no sample below {} x its row's median, no first sample above {} x it, and the faster of the first two not above {} x it",
        bound_text(floor),
        bound_text(first),
        bound_text(first_two)
    )
}

impl ScreenBreak {
    /// "its first sample was 1.31 x its median, above the 1.1875 assumed".
    pub fn in_words(self) -> String {
        let (floor, first, first_two) = screen_bounds();
        let (what, ratio, bound, side) = match self {
            ScreenBreak::FastSample(ratio) => ("a sample", ratio, floor, "below"),
            ScreenBreak::FirstSample(ratio) => ("its first sample", ratio, first, "above"),
            ScreenBreak::FirstTwo(ratio) => ("the faster of its first two", ratio, first_two, "above"),
        };
        format!("{what} was {ratio:.4} x its median, {side} the {} assumed", bound_text(bound))
    }
}

/// A bound as the docs write it: 0.95, 1.1875, 1.045.
fn bound_text(bound: f64) -> String {
    let text = format!("{bound:.4}");
    text.trim_end_matches('0').to_string()
}

/// The first of `rows` holding at least `enough` samples whose samples break one of the
/// screen's assumptions, and how; `None` where every such row keeps them. The rows a race in
/// rungs measures that far are those near the best, so they stand for the rows the screen
/// dropped after one or two samples, whose own samples are too few to tell.
pub fn screen_break(rows: &[Row], enough: usize) -> Option<(usize, ScreenBreak)> {
    let enough = enough.max(2);
    rows.iter().enumerate().filter(|(_, row)| row.sampled() && row.run_ms.len() >= enough).find_map(
        |(index, row)| {
            let median = row.stats.median;
            if median.is_nan() || median <= 0.0 {
                return None;
            }
            let ratio = |ms: f32| f64::from(ms) / median;
            let fastest = row.run_ms.iter().copied().map(ratio).fold(f64::INFINITY, f64::min);
            let first = ratio(row.run_ms[0]);
            let first_two = first.min(ratio(row.run_ms[1]));
            let (floor, first_bound, first_two_bound) = screen_bounds();
            let broken = if fastest < floor {
                ScreenBreak::FastSample(fastest)
            } else if first > first_bound {
                ScreenBreak::FirstSample(first)
            } else if first_two > first_two_bound {
                ScreenBreak::FirstTwo(first_two)
            } else {
                return None;
            };
            Some((index, broken))
        },
    )
}

/// The samples a row of a race in rungs holds after the rung that follows `held`: 1, 2, six
/// ([`first_rung`]), then twice `held`, never past `min_runs` while below it (so that one rung
/// ends at it) nor past `max_runs`.
pub fn next_rung(held: u32, min_runs: u32, max_runs: u32) -> u32 {
    let next = match held {
        0 => 1,
        1 => 2,
        2 => first_rung(),
        _ => held.saturating_mul(2),
    };
    let next = if held < min_runs { next.min(min_runs) } else { next };
    next.min(max_runs.max(held + 1))
}

/// Which of `rows` race on after a rung of a race in rungs: of those `racing` says are still in
/// the race, `true` for each whose fastest sample is within [`screen_margin`] of the lowest
/// median of any row's samples where it holds fewer than [`first_rung`] samples, and that [`survivors`]'
/// rule keeps where it holds more, against the intervals of the rows that hold [`first_rung`]
/// or more. `false` for the rest, and for rows not racing. Without the `screen` (after the
/// screen's audit found its assumptions broken), every racing row below [`first_rung`] stays.
pub fn rung_survivors(rows: &[Row], racing: &[bool], screen: bool) -> Vec<bool> {
    let fastest = |row: &Row| row.run_ms.iter().copied().map(f64::from).fold(f64::INFINITY, f64::min);
    let lowest =
        rows.iter().filter(|row| row.sampled()).map(|row| row.stats.median).fold(f64::INFINITY, f64::min);
    let enough = first_rung() as usize;
    let reference = rows
        .iter()
        .filter(|row| row.sampled() && row.run_ms.len() >= enough)
        .filter_map(|row| median_interval(&row.run_ms))
        .map(|(_, upper)| upper)
        .fold(f64::INFINITY, f64::min);
    rows.iter()
        .zip(racing)
        .map(|(row, &racing)| {
            if !racing || !row.sampled() {
                return false;
            }
            if row.run_ms.len() < enough {
                return !screen || fastest(row) <= lowest * (1.0 + screen_margin(row.run_ms.len()));
            }
            median_interval(&row.run_ms).is_some_and(|(lower, _)| lower <= reference * (1.0 + MARGIN))
        })
        .collect()
}

/// Whether a survivor of a race in rungs with `samples` is done, `spent` being its samples' own
/// time: never below `min_runs`; then [`Stopped::Converged`] where their relative spread is at
/// most `stop.max_noise`, [`Stopped::MedianKnown`] where half their median interval is,
/// relative to their median, [`Stopped::TimeBudget`] at `stop.max_time_per_row`,
/// [`Stopped::MaxRuns`] at `stop.max_runs`. `None`: another rung.
pub fn finished(samples: &[f32], min_runs: u32, stop: &NoiseStop, spent: Duration) -> Option<Stopped> {
    if samples.len() < min_runs.max(1) as usize {
        return None;
    }
    if relative_spread(samples) <= stop.max_noise {
        return Some(Stopped::Converged);
    }
    let median = crate::model::stats::RunStats::of(samples).median;
    if let Some((lower, upper)) = median_interval(samples)
        && median > 0.0
        && (upper - lower) / 2.0 <= stop.max_noise * median
    {
        return Some(Stopped::MedianKnown);
    }
    if spent >= stop.max_time_per_row {
        Some(Stopped::TimeBudget)
    } else if samples.len() >= stop.max_runs as usize {
        Some(Stopped::MaxRuns)
    } else {
        None
    }
}

/// The most rows besides the leader that the run-off of a race in rungs ([`run_off`]) takes.
pub const RUN_OFF_ROWS: usize = 4;

/// Which of `rows` the run-off of a race in rungs measures again once no row races, `done`
/// marking the survivors that are done and `settled` those whose budget is not spent (done
/// by [`Stopped::Converged`] or [`Stopped::MedianKnown`]): the settled leader (the lowest
/// median of the done rows) and the settled rows tied with it, whose median is above its by at
/// most the two rows' median absolute deviations (the rule of
/// [`Sweep::within_noise_of_best`]), the [`RUN_OFF_ROWS`] nearest. All `false` where the
/// leader's budget is spent or no row is tied with it.
///
/// Why: survivors are done rung by rung, a tied pair perhaps many rungs apart, so a drift of
/// the GPU between those moments can order them; the run-off measures them in turn, one
/// sample each a round, so that whatever drifts does so for all of them.
pub fn run_off(rows: &[Row], done: &[bool], settled: &[bool]) -> Vec<bool> {
    let mut picked = vec![false; rows.len()];
    let leader = rows
        .iter()
        .enumerate()
        .filter(|&(index, row)| done[index] && row.sampled())
        .min_by(|(_, a), (_, b)| a.stats.median.total_cmp(&b.stats.median));
    let Some((leader, best)) = leader else { return picked };
    if !settled[leader] {
        return picked;
    }
    let mut tied: Vec<(f64, usize)> = rows
        .iter()
        .enumerate()
        .filter(|&(index, row)| index != leader && done[index] && settled[index] && row.sampled())
        .filter(|(_, row)| row.within_noise_of(best))
        .map(|(index, row)| (row.stats.median, index))
        .collect();
    if tied.is_empty() {
        return picked;
    }
    tied.sort_by(|a, b| a.0.total_cmp(&b.0));
    picked[leader] = true;
    for &(_, index) in tied.iter().take(RUN_OFF_ROWS) {
        picked[index] = true;
    }
    picked
}

/// The distribution-free confidence interval of the median of `samples`: `(x_(k), x_(n+1-k))`
/// with `k` = [`interval_rank`]. `None` for no samples.
pub fn median_interval(samples: &[f32]) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted: Vec<f64> = samples.iter().map(|&ms| f64::from(ms)).collect();
    sorted.sort_by(f64::total_cmp);
    let k = interval_rank(sorted.len());
    Some((sorted[k - 1], sorted[sorted.len() - k]))
}

/// Which of `rows` race on after the first round: `true` for each measured row whose interval's
/// lower end is at most the lowest upper end over all rows times `1 + MARGIN`; `false` for the
/// rest and for rows with no samples (failed ones).
pub fn survivors(rows: &[Row]) -> Vec<bool> {
    let intervals: Vec<Option<(f64, f64)>> =
        rows.iter().map(|row| if row.measured() { median_interval(&row.run_ms) } else { None }).collect();
    let reference = intervals.iter().flatten().map(|&(_, upper)| upper).fold(f64::INFINITY, f64::min);
    intervals
        .iter()
        .map(|interval| interval.is_some_and(|(lower, _)| lower <= reference * (1.0 + MARGIN)))
        .collect()
}

/// The race's sweep: the first round's rows, each survivor's replaced by its second-round row with
/// both rounds' samples, the others marked [`Stopped::Raced`]. The checks of both rounds count
/// (each once), the first round's model check (it saw every row) and search, the second
/// round's end. A race in rungs merges each rung into the rows so far in turn.
pub fn merge(first: Sweep, second: Sweep, alive: &[bool]) -> Sweep {
    let mut failures = first.failures.clone();
    for failure in second.failures {
        if !failures.contains(&failure) {
            failures.push(failure);
        }
    }
    let mut later = second.rows.into_iter().peekable();
    let rows = first
        .rows
        .into_iter()
        .zip(alive)
        .map(|(row, &alive)| {
            // One configuration: its block (its shape, not only its count) and its axes.
            let same = |other: &Row| (other.block, &other.axes) == (row.block, &row.axes);
            if alive && later.peek().is_some_and(same) {
                let again = later.next().expect("peeked");
                if again.failed.is_some() {
                    // A fault or a hang in the second round: the row is failed, with no samples.
                    return again;
                }
                let mut run_ms = row.run_ms;
                run_ms.extend(&again.run_ms);
                Row { stats: crate::model::stats::RunStats::of(&run_ms), run_ms, ..again }
            } else if !alive && row.measured() {
                Row { stopped: Some(Stopped::Raced), ..row }
            } else {
                row
            }
        })
        .collect();
    Sweep { rows, failures, ended_early: second.ended_early, timing: second.timing, ..first }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_rank_is_the_binomial_one() {
        // n = 10: 2 P(B <= 1) = 22/1024 <= 0.05 < 2 P(B <= 2) = 112/1024.
        assert_eq!(interval_rank(10), 2);
        // Below six samples no pair reaches 95 percent: the extremes.
        for n in 1..6 {
            assert_eq!(interval_rank(n), 1, "n = {n}");
        }
        assert_eq!(interval_rank(6), 1);
        assert_eq!(interval_rank(8), 1);
        assert_eq!(interval_rank(9), 2);
        // n = 20: 2 P(B <= 5) = 0.041; 2 P(B <= 6) = 0.115.
        assert_eq!(interval_rank(20), 6);
        assert_eq!(median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 8.0, 7.0, 6.0, 10.0]), Some((2.0, 9.0)));
    }

    #[test]
    fn the_first_rung_is_six_samples_whose_extremes_hold_the_median_at_97_percent() {
        assert_eq!(first_rung(), 6);
        // Five are not enough: both extremes on one side of the median with probability 1/16.
        assert!(2.0 * 0.5f64.powi(5) > ALPHA && 2.0 * 0.5f64.powi(6) <= ALPHA);
        assert_eq!(interval_rank(first_rung() as usize), 1, "its interval is the extremes");
    }

    #[test]
    fn rungs_hold_one_two_six_then_the_minimum_then_twice_as_many() {
        let rungs = |min_runs, max_runs| {
            let mut held = vec![next_rung(0, min_runs, max_runs)];
            while held.len() < 7 {
                held.push(next_rung(*held.last().unwrap(), min_runs, max_runs));
            }
            held
        };
        assert_eq!(rungs(10, 10_000), [1, 2, 6, 10, 20, 40, 80]);
        assert_eq!(rungs(4, 10_000), [1, 2, 4, 8, 16, 32, 64]);
        assert_eq!(rungs(1, 10_000), [1, 2, 6, 12, 24, 48, 96]);
        assert_eq!(rungs(30, 10_000), [1, 2, 6, 12, 24, 30, 60]);
        // Never past the most a row takes.
        assert_eq!(rungs(10, 50)[4..], [20, 40, 50]);
    }

    /// A measured row of `samples` milliseconds.
    fn row(samples: &[f32]) -> Row {
        let mut gpu = crate::tests::fixture::gpu();
        let mut workload = crate::tests::fixture::workload(&mut gpu, crate::tests::fixture::kernel(256));
        workload.upload(&mut gpu).unwrap();
        let timing = crate::measure::sampling::timing::Timing::launch(0, 1);
        let mut sweep = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64], timing, None).unwrap();
        let mut row = sweep.rows.remove(0);
        row.run_ms = samples.to_vec();
        row.stats = crate::model::stats::RunStats::of(samples);
        row
    }

    #[test]
    fn the_screen_drops_a_row_25_percent_past_the_lowest_median_after_one_sample_10_after_two() {
        let all = [true; 4];
        // One sample each: the lowest median is 1.0.
        let rows = [row(&[1.0]), row(&[1.24]), row(&[1.26]), row(&[1.1])];
        assert_eq!(rung_survivors(&rows, &all, true), [true, true, false, true]);
        // Two each: the lowest median is (1.0 + 1.02) / 2 = 1.01; 1.10 x 1.01 = 1.111.
        let rows = [row(&[1.0, 1.02]), row(&[1.11, 1.3]), row(&[1.12, 1.115]), row(&[1.05, 1.5])];
        assert_eq!(rung_survivors(&rows, &all, true), [true, true, false, true]);
        // A row out of the race stays out, and counts as a reference still.
        assert_eq!(rung_survivors(&rows, &[true, false, true, true], true), [true, false, false, true]);
        let failed = Row { failed: Some("hung".into()), run_ms: Vec::new(), ..row(&[1.0]) };
        assert_eq!(rung_survivors(&[failed.clone(), row(&[1.0])], &[true, true], true), [false, true]);
        // Without the screen every racing row of two samples stays; a failed one stays out.
        assert_eq!(rung_survivors(&rows, &all, false), [true; 4]);
        assert_eq!(rung_survivors(&[failed, row(&[1.0])], &[true, true], false), [false, true]);
    }

    #[test]
    fn a_row_measured_on_shows_where_the_screen_s_assumptions_break() {
        let steady = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0];
        let with_first = |first: f32| {
            let mut samples = steady.to_vec();
            samples[0] = first;
            row(&samples)
        };
        let with_first_two = |first: f32| {
            let mut samples = steady.to_vec();
            samples[0] = first;
            samples[1] = first;
            row(&samples)
        };
        // Within the bounds (a first sample 1.18 x the median, the first two 1.04, the fastest
        // 0.96): nothing; the rows of too few samples are not read.
        let held = [with_first(1.18), with_first_two(1.04), with_first(0.96), row(&[1.5, 1.0, 1.0])];
        assert_eq!(screen_break(&held, 10), None);
        let broke = |row: Row| screen_break(&[with_first(1.0), row], 10);
        assert!(
            matches!(broke(with_first(1.2)), Some((1, ScreenBreak::FirstSample(ratio))) if (ratio - 1.2).abs() < 1e-6)
        );
        assert!(
            matches!(broke(with_first_two(1.05)), Some((1, ScreenBreak::FirstTwo(ratio))) if (ratio - 1.05).abs() < 1e-6)
        );
        assert!(
            matches!(broke(with_first(0.94)), Some((1, ScreenBreak::FastSample(ratio))) if (ratio - 0.94).abs() < 1e-6)
        );
        assert_eq!(
            ScreenBreak::FirstSample(1.25).in_words(),
            "its first sample was 1.2500 x its median, above the 1.1875 assumed"
        );
        assert_eq!(
            ScreenBreak::FirstTwo(1.05).in_words(),
            "the faster of its first two was 1.0500 x its median, above the 1.045 assumed"
        );
        assert_eq!(
            ScreenBreak::FastSample(0.9).in_words(),
            "a sample was 0.9000 x its median, below the 0.95 assumed"
        );
        assert_eq!(
            screen_assumptions(),
            "no sample below 0.95 x its row's median, no first sample above 1.1875 x it, and the faster of the first two not above 1.045 x it"
        );
    }

    #[test]
    fn from_six_samples_the_screen_gives_way_to_the_interval_rule() {
        let six = |ms: f32| row(&[ms, ms * 1.01, ms * 0.99, ms, ms * 1.02, ms * 0.98]);
        // The best's interval reaches 1.02; 1.02 x 1.02 = 1.0404: a row whose six start at
        // 1.045 x 0.98 = 1.0241 stays, one whose six start at 1.07 x 0.98 = 1.0486 goes.
        let rows = [six(1.0), six(1.045), six(1.07)];
        assert_eq!(rung_survivors(&rows, &[true; 3], true), [true, true, false]);
        // A row of two samples is no reference for the interval rule, and screened itself.
        let rows = [six(1.0), six(1.07), row(&[0.5, 0.5])];
        assert_eq!(rung_survivors(&rows, &[true; 3], true), [true, false, true]);
    }

    #[test]
    fn a_survivor_is_done_when_converged_when_its_median_is_known_or_its_budget_spent() {
        let stop =
            NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_millis(100), max_runs: 400 };
        let even =
            |n: usize| -> Vec<f32> { (0..n).map(|i| 0.985 + 0.03 * i as f32 / (n - 1) as f32).collect() };
        let none = Duration::ZERO;
        // Below the minimum, never.
        assert_eq!(finished(&[1.0; 9], 10, &stop, Duration::from_secs(9)), None);
        assert_eq!(finished(&[1.0; 10], 10, &stop, none), Some(Stopped::Converged));
        // Spread over +-1.5 percent: MAD over median 0.75 percent, never converged; ten
        // samples leave the median's interval +-1.2 percent wide, two hundred +-0.2 percent.
        assert_eq!(finished(&even(10), 10, &stop, none), None);
        assert_eq!(finished(&even(200), 10, &stop, none), Some(Stopped::MedianKnown));
        assert_eq!(finished(&even(10), 10, &stop, Duration::from_millis(100)), Some(Stopped::TimeBudget));
        let capped = NoiseStop { max_runs: 10, ..stop };
        assert_eq!(finished(&even(10), 10, &capped, none), Some(Stopped::MaxRuns));
    }

    #[test]
    fn the_run_off_takes_the_leader_and_the_nearest_rows_tied_with_it_whose_budget_is_left() {
        // Medians 1.0, 1.008, 1.016, ..., MAD 0.01 each: a row up to 0.02 above the leader is tied.
        let spread = |ms: f32| row(&[ms - 0.01, ms, ms + 0.01]);
        let rows: Vec<Row> = (0..8).map(|k| spread(1.0 + 0.008 * k as f32)).collect();
        let all = [true; 8];
        assert_eq!(run_off(&rows, &all, &all), [true, true, true, false, false, false, false, false]);
        // A leader whose budget is spent takes no run-off; nor does a row tied with it.
        let mut settled = all;
        settled[0] = false;
        assert_eq!(run_off(&rows, &all, &settled), [false; 8]);
        settled = all;
        settled[1] = false;
        assert_eq!(run_off(&rows, &all, &settled), [true, false, true, false, false, false, false, false]);
        // Rows not done (dropped) are no leader and take none.
        let mut done = all;
        done[0] = false;
        assert_eq!(run_off(&rows, &done, &all), [false, true, true, true, false, false, false, false]);
        // Many tied: the leader and the four nearest.
        let wide: Vec<Row> = (0..8).map(|k| row(&[0.9, 1.0 + 0.001 * k as f32, 1.1])).collect();
        assert_eq!(run_off(&wide, &all, &all), [true, true, true, true, true, false, false, false]);
        // None tied: no run-off.
        let apart: Vec<Row> = (0..3).map(|k| row(&[1.0 + 0.1 * k as f32; 3])).collect();
        assert_eq!(run_off(&apart, &[true; 3], &[true; 3]), [false; 3]);
    }

    #[test]
    fn a_survivor_that_fails_in_the_second_round_is_failed_with_no_samples() {
        let mut gpu = crate::tests::fixture::gpu();
        let mut workload = crate::tests::fixture::workload(&mut gpu, crate::tests::fixture::kernel(256));
        workload.upload(&mut gpu).unwrap();
        let timing = crate::measure::sampling::timing::Timing::launch(0, 10);
        let first = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, None).unwrap();
        let mut second = first.clone();
        second.rows[1].run_ms.clear();
        second.rows[1].failed = Some("hung".into());
        let merged = merge(first, second, &[true, true]);
        assert_eq!(merged.rows[0].run_ms.len(), 20);
        assert_eq!((merged.rows[1].run_ms.len(), merged.rows[1].failed.as_deref()), (0, Some("hung")));
    }
}
