/*!
The verdict of `block-size diff` on one configuration: is NEW faster, slower or the same as
OLD, from the two runs' samples?

The rule ([`judge`]): the ratio of medians NEW / OLD, and a percentile bootstrap interval of
that ratio at 95 percent (each resample draws each side's samples with replacement, as many as
it has; [`RESAMPLES`] resamples from a seeded generator, so the same files give the same
interval every time). Against a threshold `t` (`--threshold`, 2 percent by default):

- SLOWER: the whole interval lies above 1 + t;
- FASTER: the whole interval lies below 1 - t;
- SAME: the whole interval lies within [1 - t, 1 + t];
- UNCLEAR: anything else (the interval straddles 1 + t or 1 - t: the samples cannot tell).

A resample's median is found without sorting it: up to [`COUNTED_UP_TO`] samples by counting
how often each sample is drawn ([`Ranked`]); above that from the law of the resample's order
statistics, the same law in a handful of draws rather than as many draws as samples (a row of
10 000 samples would otherwise cost 20 million draws a side): the rank of the `k`-th smallest
of `n` draws is `floor(n U)`, `U` the `k`-th smallest of `n` uniforms, which is Beta(k, n - k + 1);
the next one up is the smallest of the `n - k` uniforms above it. Samples that are not times
(NaN, infinite, negative) give what they give, never a panic: the file's reader refuses them.
*/

use crate::model::stats;

/// Bootstrap resamples per configuration.
pub const RESAMPLES: usize = 2000;
/// The most samples whose resamples are counted draw by draw; above it a resample's median
/// comes from the law of its order statistics.
const COUNTED_UP_TO: usize = 64;
/// The interval's coverage.
pub const CONFIDENCE: f64 = 0.95;
/// `--threshold` unless given: 2 percent.
pub const DEFAULT_THRESHOLD: f64 = 0.02;
/// The generator's seed; each configuration's stream is this mixed with its label, so its
/// interval does not depend on the order of the rows.
const SEED: u64 = 0x626c_6f63_6b2d_7369; // "block-si"

/// What `block-size diff` says of one configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The interval lies within the threshold around 1.
    Same,
    /// The interval lies below 1 - threshold.
    Faster,
    /// The interval lies above 1 + threshold.
    Slower,
    /// The interval straddles a bound.
    Unclear,
}

impl Verdict {
    /// Every verdict, in the order the summary counts them.
    pub const ALL: [Self; 4] = [Self::Same, Self::Faster, Self::Slower, Self::Unclear];

    /// `SAME`, `FASTER`, `SLOWER`, `UNCLEAR`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Same => "SAME",
            Self::Faster => "FASTER",
            Self::Slower => "SLOWER",
            Self::Unclear => "UNCLEAR",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One configuration judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    /// OLD's median, in the samples' unit.
    pub old_median: f64,
    /// NEW's median.
    pub new_median: f64,
    /// NEW's median over OLD's.
    pub ratio: f64,
    /// The bootstrap interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The label.
    pub verdict: Verdict,
}

/// The label of an interval `[low, high]` against `threshold`.
pub fn verdict(low: f64, high: f64, threshold: f64) -> Verdict {
    let (below, above) = (1.0 - threshold, 1.0 + threshold);
    if low > above {
        Verdict::Slower
    } else if high < below {
        Verdict::Faster
    } else if low >= below && high <= above {
        Verdict::Same
    } else {
        Verdict::Unclear
    }
}

/// Judges NEW's samples against OLD's; `key` names the configuration and seeds its resamples.
/// An empty side has no median: NaN throughout, UNCLEAR.
pub fn judge(old: &[f64], new: &[f64], threshold: f64, key: &str) -> Judged {
    let (old_median, new_median) = (stats::median(old), stats::median(new));
    let ratio = new_median / old_median;
    let mut random = SplitMix64(SEED ^ fnv1a(key));
    let (mut old_ranked, mut new_ranked) = (Ranked::new(old), Ranked::new(new));
    let ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let old_median = old_ranked.resampled_median(&mut random);
            let new_median = new_ranked.resampled_median(&mut random);
            new_median / old_median
        })
        .collect();
    let tail = (1.0 - CONFIDENCE) / 2.0;
    let [low, high] = stats::quantiles(&ratios, [tail, 1.0 - tail]);
    Judged { old_median, new_median, ratio, low, high, verdict: verdict(low, high, threshold) }
}

/// Samples in order, for the medians of their resamples: a resample is counted, not sorted.
/// Drawing index `i` of the samples counts one more of their `rank[i]`-th smallest, so the
/// resample's median is read off the counts in one pass, and is the very value the median of
/// the drawn values is (equal values under `total_cmp` have equal bits).
struct Ranked {
    sorted: Vec<f64>,
    /// Where each sample, by its index, is in `sorted`.
    rank: Vec<usize>,
    /// How often each of `sorted` is in the resample being drawn.
    counts: Vec<u32>,
}

impl Ranked {
    fn new(samples: &[f64]) -> Self {
        if samples.len() > COUNTED_UP_TO {
            // Drawn from the law of the order statistics: the ranks and counts are not needed.
            let mut sorted = samples.to_vec();
            sorted.sort_unstable_by(f64::total_cmp);
            return Self { sorted, rank: Vec::new(), counts: Vec::new() };
        }
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by(|&a, &b| samples[a].total_cmp(&samples[b]));
        let mut rank = vec![0; samples.len()];
        for (position, &index) in order.iter().enumerate() {
            rank[index] = position;
        }
        let sorted = order.iter().map(|&index| samples[index]).collect();
        Self { sorted, rank, counts: vec![0; samples.len()] }
    }

    /// The median of a resample drawn with replacement (as many draws as samples, in the
    /// order `random` gives them), as [`median_in_place`] of the drawn values says; above
    /// [`COUNTED_UP_TO`] samples, drawn from its law ([`Ranked::drawn_median`]).
    fn resampled_median(&mut self, random: &mut SplitMix64) -> f64 {
        let count = self.sorted.len();
        if count > COUNTED_UP_TO {
            return self.drawn_median(random);
        }
        self.counts.fill(0);
        for _ in 0..count {
            self.counts[self.rank[random.below(count)]] += 1;
        }
        // The drawn values in order hold `counts[j]` copies of `sorted[j]`: the median is at
        // position `count / 2` (with position `count / 2 - 1` for an even count).
        let middle = count / 2;
        let (mut seen, mut lower) = (0usize, None);
        for (value, &copies) in self.sorted.iter().zip(&self.counts) {
            let next = seen + copies as usize;
            if count.is_multiple_of(2) && lower.is_none() && next > middle - 1 {
                lower = Some(*value);
            }
            if next > middle {
                return match lower {
                    Some(lower) => (lower + value) / 2.0,
                    None => *value,
                };
            }
            seen = next;
        }
        f64::NAN
    }

    /// The median of a resample of `n` draws, from the law of its order statistics: a draw is
    /// a uniform rank, `floor(n U)`, so the `k`-th smallest draw is `sorted[floor(n U_k)]`
    /// with `U_k` the `k`-th smallest of `n` uniforms, Beta(k, n - k + 1); for an even `n`
    /// the `k + 1`-th is the smallest of the `n - k` uniforms above `U_k`.
    fn drawn_median(&self, random: &mut SplitMix64) -> f64 {
        let n = self.sorted.len();
        let at = |u: f64| self.sorted[((u * n as f64) as usize).min(n - 1)];
        if n % 2 == 1 {
            let k = n.div_ceil(2);
            return at(random.beta(k as f64, (n - k + 1) as f64));
        }
        let k = n / 2;
        let lower = random.beta(k as f64, (n - k + 1) as f64);
        let upper = lower + (1.0 - lower) * (1.0 - random.uniform().powf(1.0 / (n - k) as f64));
        (at(lower) + at(upper)) / 2.0
    }
}

/// The median of `values` (the mean of the middle two for an even count, as
/// [`stats::median`]), reordering them.
#[cfg(test)]
fn median_in_place(values: &mut [f64]) -> f64 {
    let (count, middle) = (values.len(), values.len() / 2);
    let (below, upper, _) = values.select_nth_unstable_by(middle, f64::total_cmp);
    let upper = *upper;
    if count % 2 == 1 {
        return upper;
    }
    let lower = below.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lower + upper) / 2.0
}

/// SplitMix64 (Steele, Lea and Flood 2014): small, fast, and the same on every machine.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An index below `count`, by Lemire's multiply-shift (its bias is below 2^-40 for the
    /// sample counts here).
    fn below(&mut self, count: usize) -> usize {
        ((u128::from(self.next()) * count as u128) >> 64) as usize
    }

    /// A uniform draw in (0, 1), never 0 or 1 (53 bits and a half).
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }

    /// Two independent standard normal draws (Box and Muller 1958).
    fn normals(&mut self) -> (f64, f64) {
        let (radius, angle) = (self.uniform(), self.uniform());
        let (radius, angle) = ((-2.0 * radius.ln()).sqrt(), std::f64::consts::TAU * angle);
        (radius * angle.cos(), radius * angle.sin())
    }

    /// A Gamma(shape, 1) draw for a shape of 1 or more (Marsaglia and Tsang 2000), its first
    /// try with the normal draw `first`.
    fn gamma(&mut self, shape: f64, first: f64) -> f64 {
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        let mut normal = Some(first);
        loop {
            let x = normal.take().unwrap_or_else(|| self.normals().0);
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = self.uniform();
            // The squeeze first: it accepts most draws without a logarithm.
            if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }

    /// A Beta(a, b) draw for a and b of 1 or more: two Gamma draws, one normal pair between
    /// them.
    fn beta(&mut self, a: f64, b: f64) -> f64 {
        let (first, second) = self.normals();
        let x = self.gamma(a, first);
        x / (x + self.gamma(b, second))
    }

    /// Fills `into` with draws from `from`, with replacement.
    #[cfg(test)]
    fn resample(&mut self, from: &[f64], into: &mut [f64]) {
        for slot in into.iter_mut() {
            *slot = from[self.below(from.len())];
        }
    }
}

/// FNV-1a of `text`.
fn fnv1a(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples around `median`, spread by `spread` (a fraction) in a fixed zigzag.
    fn samples(median: f64, spread: f64, count: usize) -> Vec<f64> {
        (0..count).map(|index| median * (1.0 + spread * (((index * 7) % 11) as f64 / 5.0 - 1.0))).collect()
    }

    #[test]
    fn the_rule_reads_the_interval_against_the_threshold() {
        let t = 0.02;
        assert_eq!(verdict(1.021, 1.05, t), Verdict::Slower);
        assert_eq!(verdict(0.95, 0.979, t), Verdict::Faster);
        assert_eq!(verdict(0.98, 1.02, t), Verdict::Same, "the bounds belong to SAME");
        assert_eq!(verdict(0.99, 1.03, t), Verdict::Unclear);
        assert_eq!(verdict(0.97, 1.01, t), Verdict::Unclear);
        assert_eq!(verdict(0.9, 1.1, t), Verdict::Unclear, "an interval wider than the band");
        assert_eq!(verdict(1.02, 1.03, t), Verdict::Unclear, "touching 1 + t is not above it");
    }

    #[test]
    fn twins_are_the_same_and_a_slowdown_is_slower() {
        let old = samples(0.0400, 0.005, 30);
        let twin = samples(0.0401, 0.005, 30);
        let same = judge(&old, &twin, 0.02, "256");
        assert_eq!(same.verdict, Verdict::Same, "{same:?}");
        assert!((same.ratio - 1.0025).abs() < 1e-9, "{same:?}");
        assert!(same.low <= same.ratio && same.ratio <= same.high, "{same:?}");

        let slowed = judge(&old, &samples(0.0440, 0.005, 30), 0.02, "256");
        assert_eq!(slowed.verdict, Verdict::Slower, "{slowed:?}");
        assert!((slowed.ratio - 1.1).abs() < 1e-9);
        let faster = judge(&old, &samples(0.0360, 0.005, 30), 0.02, "256");
        assert_eq!(faster.verdict, Verdict::Faster, "{faster:?}");
    }

    #[test]
    fn noise_wider_than_the_threshold_is_unclear() {
        // 3 percent slower in the medians, but samples spread by 20 percent, five of them.
        let old = samples(1.0, 0.2, 5);
        let new = samples(1.03, 0.2, 5);
        let judged = judge(&old, &new, 0.02, "64");
        assert_eq!(judged.verdict, Verdict::Unclear, "{judged:?}");
        assert!(judged.low < 0.98 && judged.high > 1.02, "{judged:?}");
        // A larger threshold calls it the same.
        assert_eq!(judge(&old, &new, 0.5, "64").verdict, Verdict::Same);
    }

    #[test]
    fn the_interval_is_the_same_every_time_and_per_configuration() {
        let old = samples(1.0, 0.05, 12);
        let new = samples(1.01, 0.05, 15);
        assert_eq!(judge(&old, &new, 0.02, "128"), judge(&old, &new, 0.02, "128"));
        let other = judge(&old, &new, 0.02, "160");
        assert_eq!(other.ratio, judge(&old, &new, 0.02, "128").ratio);
        // Pinned: a change of generator, seed or quantile shows here.
        let pinned = judge(&old, &new, 0.02, "128");
        assert_eq!(format!("{:.4} {:.4}", pinned.low, pinned.high), "0.9708 1.0571");
    }

    #[test]
    fn identical_samples_give_a_point_interval() {
        let judged = judge(&[2.0; 4], &[2.0; 7], 0.02, "32");
        assert_eq!((judged.ratio, judged.low, judged.high, judged.verdict), (1.0, 1.0, 1.0, Verdict::Same));
    }

    #[test]
    fn no_sample_list_panics() {
        let nan = judge(&[], &[1.0], 0.02, "64");
        assert!(nan.ratio.is_nan() && nan.low.is_nan() && nan.high.is_nan(), "{nan:?}");
        assert_eq!(nan.verdict, Verdict::Unclear);
        for odd in [&[f64::NAN, 1.0][..], &[f64::INFINITY], &[-5.0, 0.0], &[1e308, 0.0], &[0.0]] {
            let judged = judge(odd, &samples(1.0, 0.01, 10), 0.02, "64");
            let _ = judge(&samples(1.0, 0.01, 300), odd, 0.02, "64");
            assert!(!judged.low.is_nan() || judged.verdict == Verdict::Unclear, "{judged:?}");
        }
    }

    #[test]
    fn a_large_samples_drawn_median_has_the_law_of_a_drawn_resamples() {
        // Distinct values, so that a value is its rank: the medians of 20 000 resamples drawn
        // one sample at a time, and of 20 000 drawn from the order statistics' law, have the
        // same quantiles within what 20 000 draws can tell (a few ranks; a resample median's
        // rank spreads by about sqrt(n) / 2).
        for count in [COUNTED_UP_TO + 1, COUNTED_UP_TO + 2, 1001, 1000] {
            let values: Vec<f64> = (0..count).map(|index| ((index * 7919) % count) as f64).collect();
            let ranked = Ranked::new(&values);
            let (mut one_by_one, mut by_law) = (SplitMix64(1), SplitMix64(2));
            let mut draw = vec![0.0; count];
            let mut resampled: Vec<f64> = (0..20_000)
                .map(|_| {
                    one_by_one.resample(&values, &mut draw);
                    median_in_place(&mut draw)
                })
                .collect();
            let mut drawn: Vec<f64> = (0..20_000).map(|_| ranked.drawn_median(&mut by_law)).collect();
            let quantiles = |medians: &mut Vec<f64>| {
                medians.sort_by(f64::total_cmp);
                [0.025, 0.25, 0.5, 0.75, 0.975].map(|q| medians[(q * (medians.len() - 1) as f64) as usize])
            };
            let (expected, got) = (quantiles(&mut resampled), quantiles(&mut drawn));
            for (expected, got) in expected.iter().zip(&got) {
                assert!(
                    (expected - got).abs() <= 3.0,
                    "{count} samples: one by one {expected}, by law {got}"
                );
            }
            assert!((got[2] - (count as f64 - 1.0) / 2.0).abs() <= 1.0, "{count}: {got:?}");
        }
    }

    #[test]
    fn the_median_in_place_is_the_median() {
        let mut random = SplitMix64(7);
        for count in 1..40 {
            let values: Vec<f64> = (0..count).map(|_| (random.next() % 1000) as f64).collect();
            assert_eq!(median_in_place(&mut values.clone()), stats::median(&values), "{values:?}");
        }
        assert!((0..1000).all(|_| random.below(3) < 3));
    }

    #[test]
    fn a_counted_resamples_median_is_the_median_of_the_values_drawn() {
        let mut values_random = SplitMix64(11);
        for count in 1..60 {
            // Few distinct values, so that ties, and both middles of an even count, are tried.
            let values: Vec<f64> = (0..count).map(|_| (values_random.next() % 7) as f64 - 3.0).collect();
            let mut ranked = Ranked::new(&values);
            let (mut counted, mut drawn) = (SplitMix64(count), SplitMix64(count));
            let mut draw = vec![0.0; values.len()];
            for _ in 0..20 {
                drawn.resample(&values, &mut draw);
                assert_eq!(ranked.resampled_median(&mut counted), median_in_place(&mut draw), "{values:?}");
            }
        }
    }
}
