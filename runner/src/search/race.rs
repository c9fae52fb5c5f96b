/*!
Racing (`--search race`, `--search rungs`): spend samples only where the winner can be.

A race measures in two rounds. The first measures every configuration, checked as always, with
the minimum count of samples (`--min-runs`, 10 by default) and no noise-driven stop. Then each
configuration's first-round samples give a distribution-free confidence interval of its median
([`median_interval`]: two order statistics), and a configuration stops ([`Stopped::Raced`])
when the lower end of its interval is above the lowest upper end of any configuration's times
`1 + MARGIN` ([`survivors`]). The second round measures the survivors again, checked again,
under the noise-driven stop; their rows hold both rounds' samples.

The rule's assumptions: each configuration's samples are independent draws from one
distribution (no drift between the rounds or along the sweep beyond [`MARGIN`]), and its time is
that distribution's median. Then an interval holds its configuration's median with probability
at least `1 - ALPHA`, and where both the true best's interval and the reference's hold their
medians, the best is never dropped: its lower end is at most its median, which is at most the
reference's median, which is at most the reference's upper end. Configurations tied within
noise have overlapping intervals, and survive together. docs/search.md says the same in words.

A race in rungs (`--search rungs`) spends less on the configurations that lose. Its first rung
gives every configuration [`first_rung`] samples, the fewest whose extremes hold the median
with probability at least `1 - ALPHA` (six), not `--min-runs`; each later rung gives those
[`survivors`] keeps as many samples again as they hold, until they hold `--min-runs`; the last
measures the survivors of the rungs under the noise-driven stop, as a race's second round. The
rule after every rung is [`survivors`] over every sample a row holds so far, so the guarantee
above holds at each rung under the same assumptions, now over the whole race: the best is
never dropped where, at every rung, its interval and the reference's hold their medians.
Where most configurations converge at `--min-runs` (the default budget on a fast kernel), the
first rung is the saving: six samples where a race's first round takes ten.
*/

use crate::measure::timing::Stopped;
use crate::search::sweep::{Row, Sweep};

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

/// The samples of a race's first rung in rungs ([`crate::search::strategy::Search::Rungs`]):
/// the fewest `n` whose extremes hold the median of `n` independent draws with probability at
/// least `1 - ALPHA`, `1 - 2 / 2^n >= 1 - ALPHA`: six.
pub fn first_rung() -> u32 {
    (1..).find(|&n| 2.0 * 0.5f64.powi(n as i32) <= ALPHA).expect("ALPHA is above 0")
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
        rows.iter()
            .map(|row| {
                if row.failed.is_some() || row.pruned.is_some() { None } else { median_interval(&row.run_ms) }
            })
            .collect();
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
            let same =
                |other: &Row| (other.threads_per_block, &other.axes) == (row.threads_per_block, &row.axes);
            if alive && later.peek().is_some_and(same) {
                let again = later.next().expect("peeked");
                if again.failed.is_some() {
                    // A fault or a hang in the second round: the row is failed, with no samples.
                    return again;
                }
                let mut run_ms = row.run_ms;
                run_ms.extend(&again.run_ms);
                Row { stats: crate::model::stats::RunStats::of(&run_ms), run_ms, ..again }
            } else if !alive && row.failed.is_none() && row.pruned.is_none() {
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
    fn a_survivor_that_fails_in_the_second_round_is_failed_with_no_samples() {
        let mut gpu = crate::tests::fixture::gpu();
        let mut workload = crate::tests::fixture::workload(&mut gpu, crate::tests::fixture::kernel(256));
        workload.upload(&mut gpu).unwrap();
        let timing = crate::measure::timing::Timing::launch(0, 10);
        let first = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, None).unwrap();
        let mut second = first.clone();
        second.rows[1].run_ms.clear();
        second.rows[1].failed = Some("hung".into());
        let merged = merge(first, second, &[true, true]);
        assert_eq!(merged.rows[0].run_ms.len(), 20);
        assert_eq!((merged.rows[1].run_ms.len(), merged.rows[1].failed.as_deref()), (0, Some("hung")));
    }
}
