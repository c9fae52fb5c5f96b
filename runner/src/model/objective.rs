/*!
What makes a row the winner (`--objective`): its time, its energy, or their product, as a
score to rank rows by, lower being better.
*/

use serde::{Deserialize, Serialize};

/// What makes a row the winner (`--objective`): the table's best, the summary's, the one
/// `--emit-rust` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// The lowest median time.
    #[default]
    Time,
    /// The fewest joules per pass (needs `--energy`).
    Energy,
    /// The lowest energy-delay product: joules per pass x median seconds.
    Edp,
}

impl Objective {
    /// Its name, as `--objective` takes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Energy => "energy",
            Self::Edp => "edp",
        }
    }

    /// A row's score under this objective, lower being better: `None` where the row has no
    /// energy and the objective needs it.
    pub(crate) fn score(self, median_ms: f64, joules_per_pass: Option<f64>) -> Option<f64> {
        match self {
            Self::Time => Some(median_ms),
            Self::Energy => joules_per_pass,
            Self::Edp => joules_per_pass.map(|joules| joules * median_ms / 1e3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Objective;

    #[test]
    fn objectives_score_time_energy_and_their_product() {
        assert_eq!(Objective::Time.score(0.125, Some(0.05)), Some(0.125));
        assert_eq!(Objective::Energy.score(0.125, Some(0.05)), Some(0.05));
        assert_eq!(Objective::Edp.score(0.125, Some(0.05)), Some(0.05 * 0.125e-3));
        assert_eq!(Objective::Energy.score(0.125, None), None);
        assert_eq!(Objective::Time.score(0.125, None), Some(0.125));
    }
}
