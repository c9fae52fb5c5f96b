/*!
The searches by name ([`Search`]): what `--search` takes and what a sweep records it was measured
by. Each one's loop and what it says of itself are its strategy's
([`crate::search::strategy::Strategy`], registered by [`Search::strategy`]); this file holds the
names alone, so that the sweep engine, which records them, imports no strategy.
*/

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
