/*!
[`Search`]: how a sweep spends its samples (`--search`), every configuration to the end, a race
or a race in rungs ([`crate::search::race`]), and which one a sweep takes where none is asked for.
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

    /// What `--search` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Exhaustive => "exhaustive",
            Self::Race => "race",
            Self::Rungs => "rungs",
        }
    }

    /// When it stops the configurations it drops, as a summary says: "after the first round".
    pub(crate) fn drops_after(self) -> &'static str {
        match self {
            Self::Exhaustive | Self::Race => "after the first round",
            Self::Rungs => "after a rung",
        }
    }

    /// Whether it stops configurations by their time before the noise-driven stop: it needs
    /// that stop, a time objective and every configuration in one process (no shard).
    pub(crate) fn races(self) -> bool {
        self != Self::Exhaustive
    }

    /// The search `--search` names.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|search| search.name() == name)
    }

    /// The search for `configurations` where none was asked for: race above `RACE_ABOVE`.
    pub(crate) fn automatic(configurations: usize) -> Self {
        if configurations > RACE_ABOVE { Self::Race } else { Self::Exhaustive }
    }
}

impl std::fmt::Display for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_names_round_trip_and_the_default_races_above_24() {
        for search in Search::ALL {
            assert_eq!(Search::from_name(search.name()), Some(search));
        }
        assert_eq!(Search::automatic(24), Search::Exhaustive);
        assert_eq!(Search::automatic(25), Search::Race);
        assert_eq!(Search::ALL.map(Search::races), [false, true, true]);
    }
}
