/*!
Order statistics of a handful of timings: median, quantiles, and the median absolute
deviation, which a single slow launch cannot drag the way it drags a mean or a standard
deviation.
*/

use serde::Serialize;

/// Median of a non-empty sample (mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `fraction` quantile (0..=1) of a non-empty sample, by linear interpolation.
pub fn quantile(values: &[f64], fraction: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let position = fraction * (sorted.len() - 1) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
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
    /// Statistics of a non-empty sample.
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
}
