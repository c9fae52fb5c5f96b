/*!
`--search exhaustive`: every configuration samples to the noise-driven stop (or its fixed
`--runs`), in one round; what every other strategy must never cost more than.
*/

use crate::error::{Error, failed};
use crate::measure::sampling::timing::NoiseStop;
use crate::search::configurations;
use crate::search::strategy::{About, Searching, Strategy};
use crate::search::sweep::Sweep;

/// Every configuration to the end.
pub(crate) struct Exhaustive;

impl Strategy for Exhaustive {
    fn about(&self) -> About {
        About { name: "exhaustive", drops_after: "after the first round", races: false }
    }

    fn measure(&self, searching: Searching<'_, '_>, _stop: NoiseStop) -> Result<Sweep, Error> {
        measure(searching)
    }
}

/// Every configuration of `searching.run` in one round, to the plan's stop.
pub(crate) fn measure(searching: Searching<'_, '_>) -> Result<Sweep, Error> {
    let Searching { run, gpu, plan, journal, .. } = searching;
    configurations::measure(run, gpu, plan, journal).map_err(failed)
}
