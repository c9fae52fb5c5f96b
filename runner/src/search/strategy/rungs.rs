/*!
`--search rungs`: a race in rungs ([`in_rungs`]): every configuration one sample, then rung after
rung of doubling samples for the configurations still racing, a screen dropping the clearly
slower before six samples and its audit, a survivor done once its median is known, then a
run-off of the leader and the rows tied with it; never spending more than exhaustive would (its
budget), by the rules of [`crate::search::race`].
*/

use crate::error::{Error, failed};
use crate::kernel::run::Run;
use crate::measure::gpu::backend::Gpu;
use crate::measure::record::journal::Journal;
use crate::measure::sampling::timing::{NoiseStop, Stopped, Timing};
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::BlockShape;
use crate::search::configurations;
use crate::search::race;
use crate::search::strategy::{About, Search, Searching, Strategy};
use crate::search::sweep::{self, Sweep};

/// A race in rungs.
pub(crate) struct Rungs;

impl Strategy for Rungs {
    fn about(&self) -> About {
        About { name: "rungs", drops_after: "after a rung", races: true }
    }

    fn measure(&self, searching: Searching<'_, '_>, stop: NoiseStop) -> Result<Sweep, Error> {
        in_rungs(searching, stop)
    }
}

/// The configurations of `sweep` that `alive` marks, each as (its values on the axes, its block).
fn alive_in(sweep: &Sweep, alive: &[bool]) -> Vec<(AxisValues, BlockShape)> {
    sweep
        .rows
        .iter()
        .zip(alive)
        .filter(|&(_, &alive)| alive)
        .map(|(row, _)| (row.axes.clone(), row.block))
        .collect()
}

/// Where a row of a race in rungs stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum InRungs {
    /// Takes the next rung.
    Racing,
    /// Dropped after a rung: clearly slower than the best.
    Dropped,
    /// Done: its median is known, or its budget spent.
    Done(Stopped),
    /// Failed or pruned: no samples to race with.
    Out,
}

/// A race in rungs (`search::race`, `--search rungs`): every configuration one sample, then
/// rung after rung ([`race::next_rung`]) the configurations still racing, at fixed counts, each
/// rung checked and journaled apart; after each, [`race::rung_survivors`] drops the clearly
/// slower and [`race::finished`] ends the survivors whose median is known or whose budget is
/// spent (a row's budget counts its samples' own time, so that a resume from the journal
/// decides as the first run did). Then the run-off ([`race::run_off`]): the leader and the
/// rows tied with it take one sample each a round, in turn, `2 x --min-runs` rounds, each a
/// rung of its own. The rows end marked by how each stopped; the sweep's timing is the plan's,
/// with its noise-driven stop.
fn in_rungs(searching: Searching<'_, '_>, stop: NoiseStop) -> Result<Sweep, Error> {
    let Searching { run, gpu, plan, mut journal, warnings } = searching;
    let first_rung = sweep::Plan {
        timing: fixed(plan, race::next_rung(0, plan.timing.runs, stop.max_runs)),
        round: sweep::Round::First,
        ..plan.clone()
    };
    let started = gpu.clock();
    let swept = Sweep {
        search: Search::Rungs,
        ..configurations::measure(run, gpu, &first_rung, journal.as_deref_mut()).map_err(failed)?
    };
    let first_rung_s = gpu.clock().saturating_sub(started).as_secs_f64();
    let mut state: Vec<InRungs> =
        swept.rows.iter().map(|row| if out(row) { InRungs::Out } else { InRungs::Racing }).collect();
    let mut rungs = RungState::new(run, gpu, journal, plan, stop, &swept, first_rung_s);
    let swept = rungs.race_on(swept, &mut state, true)?;
    let swept = rungs.audit(swept, &mut state, warnings)?;
    let mut swept = rungs.run_off(swept, &state)?;
    if rungs.capped {
        warnings.push(rungs.capped_note(&state));
    }
    for (row, state) in swept.rows.iter_mut().zip(&state) {
        row.stopped = match state {
            InRungs::Dropped => Some(Stopped::Raced),
            InRungs::Done(stopped) => Some(*stopped),
            // Still racing where the budget ended the race: its budget is what stopped it.
            InRungs::Racing if rungs.capped => Some(Stopped::TimeBudget),
            InRungs::Racing | InRungs::Out => None,
        };
    }
    swept.timing = plan.timing;
    Ok(swept)
}

/// `plan`'s timing at a fixed count of `runs` samples: a rung's.
fn fixed(plan: &sweep::Plan, runs: u32) -> Timing {
    Timing { stop: None, runs, ..plan.timing }
}

/// A row out of the race from its first rung: not sampled (failed, or pruned).
fn out(row: &sweep::Row) -> bool {
    !row.sampled()
}

/// The rungs after the first: what they measure with, what they may spend and have spent.
struct RungState<'a, 'k> {
    run: &'a mut Run<'k>,
    gpu: &'a mut dyn Gpu,
    journal: Option<&'a mut Journal>,
    plan: &'a sweep::Plan,
    stop: NoiseStop,
    /// A later rung warms a row up once: its module is loaded and its clocks are up; the one
    /// launch restores what the rows between left in the caches.
    later_warmups: u32,
    /// Each row's first sample's time a launch, in seconds (0: not sampled).
    per_launch_s: Vec<f64>,
    /// A round's host time a row: the first rung's time past its launches, a row.
    host_per_row_s: f64,
    /// What the rungs may spend, in seconds, and what they have spent.
    budget_s: f64,
    spent_s: f64,
    /// Whether a rung was not taken for the budget, which ends the race.
    capped: bool,
    /// The rungs taken after the first.
    rung: u32,
}

impl<'a, 'k> RungState<'a, 'k> {
    /// What the rungs may spend, in seconds: what exhaustive spends at the least, each
    /// configuration's warm-ups and --min-runs samples at its first sample's time a launch, and
    /// a round's host time (the first rung's time past its launches, a row), so that a race
    /// that cannot drop rows (they tie) never costs more than measuring them all. Each later
    /// round of a row is charged its launches at that time and the same host time.
    fn new(
        run: &'a mut Run<'k>,
        gpu: &'a mut dyn Gpu,
        journal: Option<&'a mut Journal>,
        plan: &'a sweep::Plan,
        stop: NoiseStop,
        swept: &Sweep,
        first_rung_s: f64,
    ) -> Self {
        let launches = plan.timing.launches();
        let per_launch_s: Vec<f64> = swept
            .rows
            .iter()
            .map(|row| if row.sampled() { f64::from(row.run_ms[0]).max(0.0) / 1e3 } else { 0.0 })
            .collect();
        let sampled = per_launch_s.iter().filter(|&&seconds| seconds > 0.0).count() as f64;
        let (warmups, samples_least) =
            (f64::from(plan.timing.warmups), f64::from(plan.timing.runs) * f64::from(launches));
        let first_launches_s: f64 = per_launch_s.iter().map(|t| (warmups + f64::from(launches)) * t).sum();
        let host_per_row_s =
            if sampled > 0.0 { ((first_rung_s - first_launches_s) / sampled).max(0.0) } else { 0.0 };
        let budget_s = match plan.rungs_budget {
            sweep::RungsBudget::Exhaustive => per_launch_s
                .iter()
                .filter(|&&seconds| seconds > 0.0)
                .map(|t| (warmups + samples_least) * t + host_per_row_s)
                .sum(),
            #[cfg(test)]
            sweep::RungsBudget::Unlimited => f64::INFINITY,
        };
        Self {
            run,
            gpu,
            journal,
            plan,
            stop,
            later_warmups: plan.timing.warmups.min(1),
            per_launch_s,
            host_per_row_s,
            budget_s,
            spent_s: first_launches_s + sampled * host_per_row_s,
            capped: false,
            rung: 0,
        }
    }

    /// One rung more: `samples` more for each row that `alive` marks, checked and journaled as
    /// a rung of its own, merged into the rows so far; not taken (the rows as they were) where
    /// it would spend past the budget, which ends the race.
    fn take_rung(&mut self, swept: Sweep, alive: &[bool], samples: u32) -> Result<Sweep, Error> {
        let launched =
            f64::from(self.later_warmups) + f64::from(samples) * f64::from(self.plan.timing.launches());
        let cost: f64 = self
            .per_launch_s
            .iter()
            .zip(alive)
            .filter(|&(_, &alive)| alive)
            .map(|(t, _)| launched * t + self.host_per_row_s)
            .sum();
        if self.spent_s + cost > self.budget_s {
            self.capped = true;
            return Ok(swept);
        }
        self.spent_s += cost;
        self.rung += 1;
        let rung_plan = sweep::Plan {
            timing: Timing { warmups: self.later_warmups, ..fixed(self.plan, samples) },
            round: sweep::Round::Rung(self.rung, alive_in(&swept, alive)),
            ..self.plan.clone()
        };
        let measured = configurations::measure(self.run, self.gpu, &rung_plan, self.journal.as_deref_mut())
            .map_err(failed)?;
        Ok(race::merge(swept, measured, alive))
    }

    /// Rung after rung while a row races: one rung for the racing rows of each count of
    /// samples (a single count, but for the rows the screen's audit takes back). From six
    /// samples (race::first_rung) the interval rule drops a row, below them the screen, where
    /// `screen`.
    fn race_on(&mut self, mut swept: Sweep, state: &mut [InRungs], screen: bool) -> Result<Sweep, Error> {
        let (min_runs, stop) = (self.plan.timing.runs, self.stop);
        while swept.ended_early.is_none() {
            let racing: Vec<bool> = state.iter().map(|&row| row == InRungs::Racing).collect();
            let stays = race::rung_survivors(&swept.rows, &racing, screen);
            for ((row, state), stays) in swept.rows.iter().zip(state.iter_mut()).zip(stays) {
                if *state != InRungs::Racing {
                    continue;
                }
                let spent = self.plan.timing.samples_own_time(&row.run_ms);
                *state = if out(row) {
                    InRungs::Out
                } else if !stays {
                    InRungs::Dropped
                } else if let Some(stopped) = race::finished(&row.run_ms, min_runs, &stop, spent) {
                    InRungs::Done(stopped)
                } else {
                    InRungs::Racing
                };
            }
            let racing: Vec<bool> = state.iter().map(|&row| row == InRungs::Racing).collect();
            let mut counts: Vec<usize> = swept
                .rows
                .iter()
                .zip(&racing)
                .filter(|&(_, &racing)| racing)
                .map(|(row, _)| row.run_ms.len())
                .collect();
            counts.sort_unstable();
            counts.dedup();
            for held in counts {
                if swept.ended_early.is_some() {
                    break;
                }
                let rung: Vec<bool> = swept
                    .rows
                    .iter()
                    .zip(&racing)
                    .map(|(row, &racing)| racing && row.run_ms.len() == held)
                    .collect();
                let held = held as u32;
                swept =
                    self.take_rung(swept, &rung, race::next_rung(held, min_runs, stop.max_runs) - held)?;
            }
            if !racing.contains(&true) || self.capped {
                break;
            }
        }
        Ok(swept)
    }

    /// The screen's audit: where a row measured to --min-runs breaks the screen's assumptions,
    /// they may not hold for the rows it dropped either; those race on without the screen, to
    /// six samples at least and then by the interval rule, which assumes none of it.
    fn audit(
        &mut self,
        swept: Sweep,
        state: &mut [InRungs],
        warnings: &mut Vec<String>,
    ) -> Result<Sweep, Error> {
        let six = race::first_rung() as usize;
        let enough = (self.plan.timing.runs as usize).max(six);
        let Some((index, broken)) =
            race::screen_break(&swept.rows, enough).filter(|_| swept.ended_early.is_none() && !self.capped)
        else {
            return Ok(swept);
        };
        let mut taken = 0;
        for (row, state) in swept.rows.iter().zip(state.iter_mut()) {
            if *state == InRungs::Dropped && row.run_ms.len() < six {
                *state = InRungs::Racing;
                taken += 1;
            }
        }
        if taken == 0 {
            return Ok(swept);
        }
        let row = &swept.rows[index];
        warnings.push(format!(
            "Warning: the rungs' screen assumes {}; {} broke that ({}), so the {taken} row(s) it \
             dropped after one or two samples raced on without it, by the interval rule from six \
             samples (docs/search.md)\n",
            race::screen_assumptions(),
            crate::model::axis_values::configuration_label(row.block, &row.axes),
            broken.in_words()
        ));
        self.race_on(swept, state, false)
    }

    /// The run-off (race::run_off): the leader and the rows tied with it, one sample each a
    /// round, 2 x --min-runs rounds, none past --max-runs.
    fn run_off(&mut self, mut swept: Sweep, state: &[InRungs]) -> Result<Sweep, Error> {
        let done: Vec<bool> = state.iter().map(|state| matches!(state, InRungs::Done(_))).collect();
        let settled: Vec<bool> = state
            .iter()
            .map(|state| matches!(state, InRungs::Done(Stopped::Converged | Stopped::MedianKnown)))
            .collect();
        let picked = race::run_off(&swept.rows, &done, &settled);
        for _ in 0..2 * self.plan.timing.runs {
            let taking: Vec<bool> = swept
                .rows
                .iter()
                .zip(&picked)
                .map(|(row, &picked)| {
                    picked && row.measured() && row.run_ms.len() < self.stop.max_runs as usize
                })
                .collect();
            if swept.ended_early.is_some()
                || self.capped
                || taking.iter().filter(|&&taking| taking).count() < 2
            {
                break;
            }
            swept = self.take_rung(swept, &taking, 1)?;
        }
        Ok(swept)
    }

    /// The note where the budget ended the race.
    fn capped_note(&self, state: &[InRungs]) -> String {
        let racing = state.iter().filter(|&&state| state == InRungs::Racing).count();
        format!(
            "Note: the rungs stopped at what measuring every configuration costs at the least ({:.3} s: \
             each one's warm-ups and --min-runs samples){}; the rows tie too closely for a race to \
             save time, and --search exhaustive measures each to the noise-driven stop\n",
            self.budget_s,
            if racing > 0 {
                format!(", {racing} row(s) still racing on the samples they had")
            } else {
                String::new()
            }
        )
    }
}
