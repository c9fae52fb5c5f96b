/*!
`--search race`: a first round of every configuration at the minimum count (`--min-runs`), then
the survivors ([`crate::search::race::survivors`]) sampled on from their first round's samples
under the noise-driven stop; a survivor whose first round already meets the stop is done there.
Each round is checked and journaled apart, so a resume takes each.
*/

use crate::error::{Error, failed};
use crate::measure::sampling::timing::{NoiseStop, Stopped, Timing};
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::BlockShape;
use crate::search::configurations;
use crate::search::race;
use crate::search::strategy::{About, Search, Searching, Strategy};
use crate::search::sweep::{self, Sweep};

/// A race in two rounds.
pub(crate) struct Race;

impl Strategy for Race {
    fn about(&self) -> About {
        About { name: "race", drops_after: "after the first round", races: true }
    }

    fn measure(&self, searching: Searching<'_, '_>, stop: NoiseStop) -> Result<Sweep, Error> {
        in_two_rounds(searching, stop)
    }
}

/// The first round, then the survivors that its samples leave unsettled; merged.
fn in_two_rounds(searching: Searching<'_, '_>, stop: NoiseStop) -> Result<Sweep, Error> {
    let Searching { run, gpu, plan, mut journal, .. } = searching;
    let fixed = Timing { stop: None, ..plan.timing };
    let first_round = sweep::Plan { timing: fixed, round: sweep::Round::First, ..plan.clone() };
    let swept = Sweep {
        search: Search::Race,
        ..configurations::measure(run, gpu, &first_round, journal.as_deref_mut()).map_err(failed)?
    };
    if swept.ended_early.is_some() {
        return Ok(swept);
    }
    let alive = race::survivors(&swept.rows);
    // A survivor whose first round already meets the noise-driven stop (its rule, on its
    // samples and their own time) is done as exhaustive would have stopped it there: no second
    // round, so that a race never spends more than measuring every configuration to the stop.
    let settled: Vec<Option<Stopped>> = swept
        .rows
        .iter()
        .zip(&alive)
        .map(|(row, &alive)| {
            let spent = plan.timing.samples_own_time(&row.run_ms);
            alive
                .then(|| {
                    crate::measure::sampling::timing::decide(&row.run_ms, plan.timing.runs, &stop, spent)
                })
                .flatten()
        })
        .collect();
    let again: Vec<bool> =
        alive.iter().zip(&settled).map(|(&alive, settled)| alive && settled.is_none()).collect();
    let second = match again.contains(&true) {
        true => {
            // Each survivor sampled on from its first round's samples, warmed up once (its
            // module loaded and clocks up; the one launch restores what the rows between left in
            // the caches), as a later rung is.
            let survivors: Vec<(AxisValues, BlockShape, Vec<f32>)> = swept
                .rows
                .iter()
                .zip(&again)
                .filter(|&(_, &again)| again)
                .map(|(row, _)| (row.axes.clone(), row.block, row.run_ms.clone()))
                .collect();
            let second_round = sweep::Plan {
                timing: Timing { warmups: plan.timing.warmups.min(1), ..plan.timing },
                round: sweep::Round::Survivors(survivors),
                ..plan.clone()
            };
            configurations::measure(run, gpu, &second_round, journal).map_err(failed)?
        }
        false => Sweep {
            rows: Vec::new(),
            failures: Vec::new(),
            ended_early: None,
            timing: plan.timing,
            ..swept.clone()
        },
    };
    let mut merged = race::merge(swept, second, &alive);
    for (row, settled) in merged.rows.iter_mut().zip(settled) {
        if settled.is_some() {
            row.stopped = settled;
        }
    }
    Ok(merged)
}
