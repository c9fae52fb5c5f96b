/*!
How a sweep spends its samples (`--search`): each strategy a module of this folder behind one
interface ([`Strategy`]), registered in [`Search`] (whose [`Search::automatic`] says which one a
sweep takes where none is asked for); and the dispatch ([`measure`]).

- [`exhaustive`]: every configuration to the noise-driven stop;
- [`race`]: a first round of every configuration at the minimum count, then the survivors sampled
  on from their samples;
- [`rungs`]: a race in rungs of doubling samples, a screen, its audit and a run-off.

The rules they race by (who survives a round, when a row is done, how rounds merge) are
[`crate::search::race`]'s. A new strategy is a file here with its `impl Strategy` (what it says
of itself, its loop), registered by a variant of [`Search`] (`model/search.rs`, which the sweep
engine records without importing any strategy) and its arm in [`Search::strategy`] (and, for
the command line, a value of `block-size`'s `--search`). The sweep's command runs the plan
([`measure`]) and delivers its rows.
*/

pub(crate) mod exhaustive;
pub(crate) mod race;
pub(crate) mod rungs;

pub use crate::model::search::Search;

use crate::error::Error;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::Gpu;
use crate::measure::record::journal::Journal;
use crate::measure::sampling::timing::NoiseStop;
use crate::search::sweep::{Plan, Sweep};

/// What one search does with a sweep's configurations, under the noise-driven stop: the module of
/// this folder that holds its sampling loop.
pub(crate) trait Strategy {
    /// What it says of itself: its name, when it drops, whether it races.
    fn about(&self) -> About;

    /// Measures the configurations of `searching.run` under `stop`, each round or rung checked
    /// and journaled apart; a round that ends early (a signal, a lost context) ends the sweep
    /// with the rows so far. The rows end marked by how each stopped.
    fn measure(&self, searching: Searching<'_, '_>, stop: NoiseStop) -> Result<Sweep, Error>;
}

/// What a strategy says of itself.
pub(crate) struct About {
    /// What `--search` takes, the exports write and the table's head names.
    pub name: &'static str,
    /// When it stops the configurations it drops, as a summary says: "after the first round".
    pub drops_after: &'static str,
    /// Whether it stops configurations by their time before the noise-driven stop: it needs
    /// that stop, a time objective and every configuration in one process (no shard).
    pub races: bool,
}

/// What a strategy measures with: the kernel's run, the GPU, the plan, the journal each round
/// appends to, and the warnings the summary prints.
pub(crate) struct Searching<'a, 'k> {
    pub run: &'a mut Run<'k>,
    pub gpu: &'a mut dyn Gpu,
    pub plan: &'a Plan,
    pub journal: Option<&'a mut Journal>,
    pub warnings: &'a mut Vec<String>,
}

impl Search {
    /// The module that runs it: the registry of the strategies.
    pub(crate) fn strategy(self) -> &'static dyn Strategy {
        match self {
            Self::Exhaustive => &exhaustive::Exhaustive,
            Self::Race => &race::Race,
            Self::Rungs => &rungs::Rungs,
        }
    }

    /// What `--search` takes.
    pub(crate) fn name(self) -> &'static str {
        self.strategy().about().name
    }

    /// When it stops the configurations it drops, as a summary says: "after the first round".
    pub(crate) fn drops_after(self) -> &'static str {
        self.strategy().about().drops_after
    }

    /// Whether it stops configurations by their time before the noise-driven stop: it needs
    /// that stop, a time objective and every configuration in one process (no shard).
    pub(crate) fn races(self) -> bool {
        self.strategy().about().races
    }

    /// The search `--search` names.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|search| search.name() == name)
    }
}

impl std::fmt::Display for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Measures `run` as `search` says, or every configuration to the end where the timing has no
/// noise-driven stop to race under (a fixed `--runs`) or the search does not race.
pub(crate) fn measure(
    run: &mut Run,
    gpu: &mut dyn Gpu,
    plan: &Plan,
    search: Search,
    journal: Option<&mut Journal>,
    warnings: &mut Vec<String>,
) -> Result<Sweep, Error> {
    let searching = Searching { run, gpu, plan, journal, warnings };
    match plan.timing.stop.filter(|_| search.races()) {
        Some(stop) => search.strategy().measure(searching, stop),
        None => exhaustive::measure(searching),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_names_round_trip_and_the_default_races_above_24() {
        for search in Search::ALL {
            assert_eq!(Search::from_name(search.name()), Some(search));
            // The exports write the name serde gives the variant.
            assert_eq!(serde_json::to_value(search).unwrap(), search.name());
        }
        assert_eq!(Search::automatic(24), Search::Exhaustive);
        assert_eq!(Search::automatic(25), Search::Race);
        assert_eq!([Search::Exhaustive, Search::Race, Search::Rungs].map(Search::races), [false, true, true]);
    }
}
