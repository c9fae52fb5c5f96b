/*!
The searches ([`Search`]): what `--search` takes and what a sweep records it was measured by, and
which one a sweep takes where none is asked for ([`Search::automatic`]). What each one does, its
name and its loop, is its strategy's (`crate::search::strategy`, which registers each variant),
so that the sweep engine, which records the search, imports no strategy.
*/

/// Above this many configurations (block sizes x values of the tunable) a sweep races unless
/// told otherwise ([`Search::Exhaustive`]).
pub const RACE_ABOVE: usize = 24;

/// How a sweep spends its samples (`--search`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Search {
    /// Every configuration samples until the noise-driven stop.
    Exhaustive,
    /// A first round over all, then only the configurations that can still win (`survivors`).
    Race,
    /// A race in rungs: one sample, two, six, `--min-runs`, then twice as many, each rung for
    /// the configurations that can still win and are not done, a screen dropping the clearly
    /// slower before six samples and the race's rule after, a survivor done once its median is
    /// known (`race::rung_survivors`, `race::finished`).
    Rungs,
}

impl Search {
    /// Every search.
    pub(crate) const ALL: [Self; 3] = [Self::Exhaustive, Self::Race, Self::Rungs];

    /// The search for `configurations` where none was asked for: race above `RACE_ABOVE`.
    pub(crate) fn automatic(configurations: usize) -> Self {
        if configurations > RACE_ABOVE { Self::Race } else { Self::Exhaustive }
    }
}
