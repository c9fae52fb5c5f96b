/*!
Order statistics of a handful of timings: median, quantiles, and the median absolute
deviation, which a single slow launch cannot drag the way it drags a mean or a standard
deviation.
*/

use serde::Serialize;

/// Median of a sample (mean of the middle two for an even count); NaN for an empty one.
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `fraction` quantile (0..=1) of a sample, by linear interpolation; NaN for an empty
/// sample or a fraction that is not a number. Any value is taken (NaN sorts last, as
/// `total_cmp` orders it), and a fraction outside 0..=1 is the nearer end: no input panics.
pub fn quantile(values: &[f64], fraction: f64) -> f64 {
    quantiles(values, [fraction])[0]
}

/// The quantiles of `values` at each of `fractions`, as [`quantile`] says each, sorting once.
pub fn quantiles<const N: usize>(values: &[f64], fractions: [f64; N]) -> [f64; N] {
    let mut sorted = values.to_vec();
    // Unstable is the same order: values equal under `total_cmp` have equal bits.
    sorted.sort_unstable_by(f64::total_cmp);
    fractions.map(|fraction| sorted_quantile(&sorted, fraction))
}

/// The `fraction` quantile of `sorted`, which is in `total_cmp` order.
fn sorted_quantile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() || fraction.is_nan() {
        return f64::NAN;
    }
    let last = sorted.len() - 1;
    let position = fraction.clamp(0.0, 1.0) * last as f64;
    // `as` saturates, and `min` keeps a rounding at the top end inside the slice.
    let (low, high) = ((position.floor() as usize).min(last), (position.ceil() as usize).min(last));
    if low == high {
        // Also keeps an infinite sample infinite: inf - inf would be NaN.
        return sorted[low];
    }
    sorted[low] + (sorted[high] - sorted[low]) * (position - low as f64)
}

/// Summary of one row's per-launch times, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunStats {
    /// The median.
    pub median: f64,
    /// The fastest.
    pub min: f64,
    /// The slowest.
    pub max: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
}

impl RunStats {
    /// Statistics of a sample: NaN throughout for an empty one (a configuration with no
    /// measurement). Any value is taken; which values a file may hold is the reader's check
    /// (`results::schema`).
    pub fn of(milliseconds: &[f32]) -> Self {
        if milliseconds.is_empty() {
            // A configuration that failed: no sample, no statistic.
            return Self { median: f64::NAN, min: f64::NAN, max: f64::NAN, mad: f64::NAN };
        }
        let values: Vec<f64> = milliseconds.iter().map(|&ms| f64::from(ms)).collect();
        let median = median(&values);
        let deviations: Vec<f64> = values.iter().map(|value| (value - median).abs()).collect();
        Self {
            median,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mad: self::median(&deviations),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_quantiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.5), 1.5);
        assert_eq!(quantile(&[7.0], 0.9), 7.0);
    }

    #[test]
    fn run_stats_resist_one_outlier() {
        let stats = RunStats::of(&[1.0, 1.0, 1.5, 1.0, 9.0]);
        assert_eq!(stats, RunStats { median: 1.0, min: 1.0, max: 9.0, mad: 0.0 });
        let spread = RunStats::of(&[1.0, 2.0, 3.0, 4.0]);
        // Median 2.5; deviations 1.5, 0.5, 0.5, 1.5; their median 1.0.
        assert_eq!((spread.median, spread.mad), (2.5, 1.0));
    }

    #[test]
    fn no_sample_list_panics_and_an_empty_one_has_no_statistic() {
        assert!(median(&[]).is_nan() && quantile(&[], 0.1).is_nan());
        assert!(quantile(&[1.0], f64::NAN).is_nan());
        assert_eq!((quantile(&[1.0, 2.0], -3.0), quantile(&[1.0, 2.0], 7.0)), (1.0, 2.0));
        let empty = RunStats::of(&[]);
        assert!([empty.median, empty.min, empty.max, empty.mad].iter().all(|value| value.is_nan()));
        for samples in [
            &[f32::NAN][..],
            &[f32::NAN, 1.0, f32::NAN],
            &[f32::INFINITY, f32::NEG_INFINITY],
            &[-5.0, 0.0, -0.0],
            &[1e30, f32::MAX, f32::MIN_POSITIVE],
        ] {
            // Whatever they give (a file's reader refuses such samples), none panics.
            let _ = RunStats::of(samples);
        }
        assert!(RunStats::of(&[f32::NAN]).median.is_nan());
        // An infinite sample's median is infinite, not NaN.
        assert_eq!(median(&[f64::INFINITY]), f64::INFINITY);
        assert_eq!(RunStats::of(&[-5.0, -5.0, 1.0]).median, -5.0);
    }
}
