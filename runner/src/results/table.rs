/*!
What every printed report shares, in the words of `block_size.cu`'s output: the device and
image lines, the `Timing:` line (and its shorter forms for the Markdown export and the plot),
the sentences after a sweep's table ([`Summary`]: the table, the Markdown export, the JSON
export and the plot say them alike), the `check failed:` lines and verdict for standard error,
and right-aligned columns. Each subcommand's own report is in its module under
[`crate::commands`]; everything here is a function of results, none of the command line.
*/

use crate::measure::gpu::backend::Timing;
use crate::measure::sampling::timing::{NoiseStop, Stopped};
use crate::measure::sensors::{RowClock, RowEnergy};
use crate::model::block_shape::BlockShape;
use crate::model::counters::{Bound, Counters, CountersRun, Loss, Reading};
use crate::model::frame_size::mib;
use crate::model::limits::{DeviceLimits, Suggestion};
use crate::model::objective::Objective;
use crate::model::pass::Pass;
use crate::model::shard::ShardOf;
use crate::model::sm;
use crate::search::sweep::{ModelCheck, NEAR_BEST_FRACTION, Row, Sweep};
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Padding, Style};

/// How many samples a row takes: "10", or under the noise-driven stop "at least 10".
fn count(timing: Timing) -> String {
    match timing.stop {
        None => timing.runs.to_string(),
        Some(_) => format!("at least {}", timing.runs),
    }
}

/// `value` with at most `decimals` decimals and no trailing zeros: 0.5, 2, 0.25.
fn trimmed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// The noise-driven stop in a few words: "until MAD/median <= 0.5% or 0.5 s a row".
fn stop_words(stop: &NoiseStop) -> String {
    format!(
        "until MAD/median <= {}% or {} s a row",
        trimmed(stop.max_noise * 100.0, 3),
        trimmed(stop.max_time_per_row.as_secs_f64(), 3)
    )
}

/// How a row's samples are summarised: "batch mode, median of 10 samples after 3 warm-ups".
fn median_of(timing: Timing) -> String {
    format!(
        "{} mode, median of {} {} after {} warm-ups",
        timing.mode,
        count(timing),
        timing.mode.sample_noun(),
        timing.warmups
    )
}

/// The `Timing:` line of the sweep and `tail`: "Timing: batch mode, median of 10 samples after
/// 3 warm-ups, each sample 10 launches back to back between one pair of CUDA events, divided
/// by 10", the L2 flush where there was one; under the noise-driven stop, a second line with
/// its limits.
pub fn timing_line(timing: Timing) -> String {
    let mut text = format!("Timing: {}, {}{}\n", median_of(timing), timing.method(), timing.flush_words());
    if let (true, Some(min)) = (timing.may_grow(), timing.min_sample) {
        text += &format!(
            "  Short kernels: a row whose {} launches last under {} ms a sample is sampled again at as many as last {} ms\n",
            timing.launches(),
            trimmed(min.as_secs_f64() * 1e3, 3),
            trimmed(min.as_secs_f64() * 1e3, 3),
        );
    }
    if let Some(stop) = &timing.stop {
        text += &format!(
            "  Noise-driven stop: each row takes more {} until their median absolute deviation is at most {}% of their median, or for {} s\n",
            timing.mode.sample_noun(),
            trimmed(stop.max_noise * 100.0, 3),
            trimmed(stop.max_time_per_row.as_secs_f64(), 3),
        );
    }
    if let Some(window) = timing.energy_window {
        text += &format!(
            "  Energy: after its samples, each row runs back to back for at least {} s between two steps of the GPU's energy counter; mJ/pass = mean W x median ms\n",
            trimmed(window.as_secs_f64(), 3)
        );
    }
    text
}

/// The same as a clause, for the Markdown export's first line.
pub fn timing_clause(timing: Timing) -> String {
    let stop = timing.stop.map_or_else(String::new, |stop| format!(", {}", stop_words(&stop)));
    median_of(timing) + timing.flush_words() + &stop
}

/// The same in a few words, for the plot's title: "batch, median of 10 samples, L2 flushed".
pub fn timing_title(timing: Timing) -> String {
    let flushed = if timing.flushes() { ", L2 flushed" } else { "" };
    format!("{}, median of {} {}{flushed}", timing.mode, count(timing), timing.mode.sample_noun())
}

/// The device line pair, the image line (what a pass moves, as GB/s counts it) and the
/// kernel's own line where it has one; shared by the sweep, `compare`, `tail` and `variants`.
pub fn device_and_image(limits: &DeviceLimits, pass: &Pass) -> String {
    let frame = pass.frame;
    // A frame's pixels, or a user kernel's items ("Work: 16777216 values").
    let covered = match &pass.items {
        Some(items) => format!("Work: {} {}", items.count, items.noun),
        None => format!("Image: {frame}, {} pixels", frame.pixels()),
    };
    let mut text = format!(
        "GPU: {} (compute capability {}.{})\n  SMs {}, resident warps/SM {}, resident blocks/SM {}\n\
         {covered}, {:.1} MiB {}\n",
        limits.name,
        limits.compute_capability.0,
        limits.compute_capability.1,
        limits.multiprocessors,
        limits.max_warps_per_sm(),
        limits.max_blocks_per_sm,
        mib(pass.bytes_per_pass),
        pass.bytes_counted,
    );
    if let Some(detail) = &pass.detail {
        text += detail;
        text.push('\n');
    }
    text
}

/// The reasons of the pruned rows, each with its configurations in words ("1024 threads", or
/// "1024 threads, items/thr 4"), in the order of the rows.
fn pruned_reasons(sweep: &Sweep) -> Vec<(String, Vec<String>)> {
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    for row in sweep.pruned_rows() {
        let reason = row.pruned.clone().unwrap_or_default();
        let configuration = crate::model::axis_values::configuration_label(row.block, &row.axes);
        match reasons.iter_mut().find(|(known, _)| *known == reason) {
            Some((_, configurations)) => configurations.push(configuration),
            None => reasons.push((reason, vec![configuration])),
        }
    }
    reasons
}

/// A row's limiters as the table and the exports print them: `-` where the model did not run.
pub fn limiter_cell(limiters: &[sm::Limiter]) -> String {
    if limiters.is_empty() { "-".to_string() } else { sm::limiter_names(limiters) }
}

/// The summary's line where no row was measured (every launch failed or hung): there is no
/// fastest row, and the exports and the page say so in these words.
pub(crate) const NOTHING_MEASURED: &str =
    "No configuration was measured: every row failed (the failed checks say why).";
/// The sentences after a sweep's table: the driver's suggestion, the fastest row, how many rows
/// come near it, and the occupancy model's check. The table, the Markdown export, the JSON
/// export's `model_check` and the plot's legend all say them in these words.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    suggestion: Suggestion,
    /// The fastest row's block size and median milliseconds.
    fastest: Option<(BlockShape, f64)>,
    /// The fastest row's values on the axes, where the sweep has axes.
    fastest_axes: crate::model::axis_values::AxisValues,
    rows_near_best: usize,
    rows: usize,
    /// Rows the occupancy model left out as unable to launch: each reason, with the
    /// configurations it holds for.
    pruned: Vec<(String, Vec<String>)>,
    /// Whether some row is marked as within the measured noise of the fastest.
    noise_marks: bool,
    model_check: ModelCheck,
    /// The dynamic shared memory of every row, where it is the same in all.
    dynamic_shared_memory: Option<u32>,
    /// How the noise-driven stop ended the rows, where it ran.
    stops: Option<StopCounts>,
    /// The sentence on a sweep that ended before its last configuration, where it did.
    ended_early: Option<String>,
    /// The sentences on the sensors' readings: the winner under another objective than
    /// time, the energy, the SM clock and the samples taken again for throttling.
    sensors: Vec<String>,
    /// The sentences on the hardware counters (`--counters`): what read them, what bound the
    /// winner, and each row bound otherwise.
    counters: Vec<String>,
}

/// "256 threads per block", "block 32x8" or "256 threads per block, items/thr 4": a row's
/// configuration.
fn configuration_phrase(row: &Row) -> String {
    let block = row.block.in_words();
    if row.axes.is_empty() { block } else { format!("{block}, {}", row.axes) }
}

/// The sentences on a sweep's hardware counters ([`Summary::counters`]): what read them (or
/// why none were read) and the copy's rate, what bound the best row by the rules of
/// [`Bound`], and a line for each measured row bound by something else.
fn counter_sentences(sweep: &Sweep) -> Vec<String> {
    let Some(run) = &sweep.counters else { return Vec::new() };
    let line = match counters_line(run, "each configuration", "its timed samples") {
        Ok(line) => line,
        Err(none) => return vec![format!("{}; their columns say n/a.", none.trim_end_matches('.'))],
    };
    let mut lines = vec![line];
    let reading = |row| reading_of(sweep, run, row);
    let Some(best) = sweep.best() else { return lines };
    let Some(winner) = reading(best) else {
        lines.push(format!("Bound: the best row, {}, has no counters.", configuration_phrase(best)));
        return lines;
    };
    let bound = Bound::of(winner);
    lines.push(format!("Bound: the best row, {}, by {}.", configuration_phrase(best), bound.phrase()));
    let rows = sweep
        .measured_rows()
        .map(|row| (configuration_phrase(row), sweep.fraction_of_best(row), reading(row)));
    lines.extend(loss_lines(rows, winner, "the best", "the best row's"));
    lines
}

/// The lines under a `Bound:` line: each row short of the near-best fraction (95 percent) of the
/// fastest, given as its label, its fraction of the fastest's time and its reading, with what its
/// counters read lower than the fastest row's (`best`), where they do: "  32 threads (0.91 of
/// the best): occupancy, ...". `of_best` names the fastest ("the best", "nvcc's fastest"),
/// `whose` its readings ("the best row's"). The sweep's summary, `compare`'s and `variants`'.
pub(crate) fn loss_lines<'a>(
    rows: impl IntoIterator<Item = (String, f64, Option<Reading<'a>>)>,
    best: Reading,
    of_best: &str,
    whose: &str,
) -> Vec<String> {
    rows.into_iter()
        .filter(|(_, fraction, _)| *fraction < NEAR_BEST_FRACTION)
        .filter_map(|(label, fraction, reading)| {
            let loss = Loss::against(reading?, best)?;
            Some(format!("  {label} ({fraction:.2} of {of_best}): {}.", loss.phrase(whose)))
        })
        .collect()
}

/// Why `slower` (a row of one build or compiler) is slower than `faster` (the same configuration
/// of `faster_name`), as the gap lines of `compare` and `variants` say it: the loss its counters
/// read, or that they read as `faster_name`'s and the difference is in the instructions each
/// executes (`where_said`: where the reader finds them, e.g. " (the builds' facts above)").
pub(crate) fn gap_why(slower: Reading, faster: Reading, faster_name: &str, where_said: &str) -> String {
    match Loss::against(slower, faster) {
        Some(loss) => loss.phrase(&format!("{faster_name}'s")),
        None => format!(
            "its counters read as {faster_name}'s: the difference is in the instructions each executes{where_said}"
        ),
    }
}

/// A row's counters with what the rules of [`Bound`] and [`Loss`] read beside them.
fn reading_of<'a>(sweep: &Sweep, run: &CountersRun, row: &'a Row) -> Option<Reading<'a>> {
    row.counters.as_ref().map(|counters| run.reading(counters, sweep.occupancy_percent(row), &row.limiters))
}

/// The sentences on a sweep's sensors ([`Summary::sensors`]).
fn sensor_sentences(sweep: &Sweep) -> Vec<String> {
    let mut lines = Vec::new();
    let objective = sweep.scored_objective();
    if let Some(best) = sweep.best()
        && objective != Objective::Time
    {
        let energy = best.energy.as_ref().map_or(f64::NAN, |energy| energy.joules_per_pass);
        lines.push(format!(
            "Winner by --objective {}: {} at {:.3} mJ a pass and {:.3} ms.",
            objective.name(),
            configuration_phrase(best),
            energy * 1e3,
            best.stats.median
        ));
    } else if sweep.objective != Objective::Time {
        lines.push(format!(
            "--objective {} found no row with an energy reading: the winner is the fastest.",
            sweep.objective.name()
        ));
    }
    // The least-energy row is one with an energy reading (`best_by_energy` ranks no other).
    if let (Some(least), Some(fastest)) = (sweep.best_by_energy(), sweep.fastest())
        && let Some(reading) = &least.energy
    {
        let (least_j, watts) = (reading.joules_per_pass, reading.watts);
        let joules = |row: &Row| row.energy.as_ref().map(|energy| energy.joules_per_pass);
        let window = sweep.timing.energy_window.map_or(0.0, |window| window.as_secs_f64());
        if std::ptr::eq(least, fastest) {
            lines.push(format!(
                "Energy ({} s windows of the GPU's energy counter): the fastest row also takes the least, {:.3} mJ a pass at {:.0} W.",
                trimmed(window, 3),
                least_j * 1e3,
                watts
            ));
        } else {
            let fastest_j = joules(fastest).map_or("n/a".to_string(), |j| format!("{:.3} mJ", j * 1e3));
            lines.push(format!(
                "Least energy ({} s windows of the GPU's energy counter): {} at {:.3} mJ a pass ({:.0} W, {:.3} ms); the fastest row takes {fastest_j}.",
                trimmed(window, 3),
                configuration_phrase(least),
                least_j * 1e3,
                watts,
                least.stats.median
            ));
        }
    }
    // Rows whose energy was asked and not read: a counter that did not step, went back or gave
    // 0 W over the window (or a device without one).
    if sweep.timing.energy_window.is_some() {
        let measured = sweep.measured_rows().count();
        let unread = sweep.measured_rows().filter(|row| row.energy.is_none()).count();
        if unread > 0 {
            lines.push(format!(
                "Energy: {unread} of {measured} measured row(s) have no reading (n/a): the GPU's energy counter did not step, went back or gave 0 W over the window; none of them is ranked by energy."
            ));
        }
    }
    lines.extend(clock_sentence(sweep));
    lines
}

/// The SM clock's sentence: its range over the rows' median readings, its lowest reading and the
/// samples throttled; `None` where no row read it.
fn clock_sentence(sweep: &Sweep) -> Option<String> {
    let clocks: Vec<&RowClock> = sweep.measured_rows().filter_map(|row| row.clock.as_ref()).collect();
    if clocks.is_empty() {
        return None;
    }
    let low = clocks.iter().map(|clock| clock.median_mhz).min().unwrap_or(0);
    let high = clocks.iter().map(|clock| clock.median_mhz).max().unwrap_or(0);
    let lowest = clocks.iter().map(|clock| clock.min_mhz).min().unwrap_or(0);
    let range = if low == high { format!("{low} MHz") } else { format!("{low} to {high} MHz") };
    let throttled: u32 = clocks.iter().map(|clock| clock.throttled_samples).sum();
    let mut reasons: Vec<&str> = Vec::new();
    for reason in clocks.iter().flat_map(|clock| &clock.reasons) {
        if !reasons.contains(&reason.as_str()) {
            reasons.push(reason);
        }
    }
    let throttle = if throttled == 0 {
        "no sample throttled".to_string()
    } else {
        format!(
            "{throttled} sample(s) throttled ({}), taken again while a row's budget lasted",
            reasons.join(", ")
        )
    };
    Some(format!("SM clock: {range} (each row's median reading), lowest reading {lowest} MHz; {throttle}."))
}

/// How the noise-driven stop ended a sweep's rows, and the samples they took: counted from a
/// sweep here and from its record by the exports (`results::export::sentences`), one sentence
/// for both.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StopCounts {
    stop: NoiseStop,
    converged: usize,
    median_known: usize,
    time_budget: usize,
    max_runs: usize,
    raced: usize,
    search: crate::search::strategy::Search,
    fewest: usize,
    most: usize,
}

impl StopCounts {
    fn of(sweep: &Sweep) -> Option<Self> {
        Some(Self::new(
            sweep.timing.stop?,
            sweep.search,
            sweep.rows.iter().map(|row| row.stopped),
            sweep.measured_rows().map(|row| row.run_ms.len()),
        ))
    }

    /// The counts of rows that stopped as `stopped` says, each measured row's `samples`.
    pub(crate) fn new(
        stop: NoiseStop,
        search: crate::search::strategy::Search,
        stopped: impl Iterator<Item = Option<Stopped>>,
        samples: impl Iterator<Item = usize>,
    ) -> Self {
        let stopped: Vec<Option<Stopped>> = stopped.collect();
        let count = |why: Stopped| stopped.iter().filter(|&&row| row == Some(why)).count();
        let samples: Vec<usize> = samples.collect();
        Self {
            stop,
            converged: count(Stopped::Converged),
            median_known: count(Stopped::MedianKnown),
            time_budget: count(Stopped::TimeBudget),
            max_runs: count(Stopped::MaxRuns),
            raced: count(Stopped::Raced),
            search,
            fewest: samples.iter().copied().min().unwrap_or(0),
            most: samples.iter().copied().max().unwrap_or(0),
        }
    }

    /// "Noise-driven stop: 9 of 13 rows reached MAD/median <= 0.5%, 4 stopped at 0.5 s; 10
    /// to 52 samples a row (runs column).", of `rows` launched rows.
    pub(crate) fn sentence(&self, rows: usize) -> String {
        let noise = trimmed(self.stop.max_noise * 100.0, 3);
        let mut text =
            format!("Noise-driven stop: {} of {rows} rows reached MAD/median <= {noise}%", self.converged);
        if self.median_known > 0 {
            text +=
                &format!(", {} had their median known within {noise}% (docs/search.md)", self.median_known);
        }
        if self.time_budget > 0 {
            text += &format!(
                ", {} stopped at {} s",
                self.time_budget,
                trimmed(self.stop.max_time_per_row.as_secs_f64(), 3)
            );
        }
        if self.max_runs > 0 {
            text += &format!(", {} at {} samples", self.max_runs, self.stop.max_runs);
        }
        if self.raced > 0 {
            text += &format!(
                ", {} raced out {}, clearly slower than the best (runs marked r; docs/search.md)",
                self.raced,
                self.search.drops_after()
            );
        }
        text += &if self.fewest == self.most {
            format!("; {} samples a row.", self.most)
        } else {
            format!("; {} to {} samples a row (runs column).", self.fewest, self.most)
        };
        text
    }
}

impl Summary {
    /// The summary of `sweep`.
    pub fn of(sweep: &Sweep) -> Self {
        Self {
            suggestion: sweep.suggestion,
            fastest: sweep.fastest().map(|best| (best.block, best.stats.median)),
            fastest_axes: sweep.fastest().map(|best| best.axes.clone()).unwrap_or_default(),
            sensors: sensor_sentences(sweep),
            counters: counter_sentences(sweep),
            rows_near_best: sweep.rows_near_best(),
            rows: sweep.rows.len() - sweep.pruned_rows().count(),
            pruned: pruned_reasons(sweep),
            noise_marks: sweep.rows.iter().any(|row| sweep.within_noise_of_best(row)),
            model_check: sweep.model_check.clone(),
            dynamic_shared_memory: sweep.constant_dynamic_shared_memory(),
            stops: StopCounts::of(sweep),
            ended_early: sweep.ended_early.map(|ended| match ended {
                crate::search::sweep::EndedEarly::Interrupted(signal) => format!(
                    "Interrupted by {}: the {} row(s) above finished before it; the configurations after them were not measured.",
                    signal.name(),
                    sweep.rows.len()
                ),
                crate::search::sweep::EndedEarly::ContextLost { configurations_left } => format!(
                    "A launch fault lost the GPU context: the {configurations_left} configuration(s) after it were not measured."
                ),
            }),
        }
    }

    /// How the noise-driven stop ended the rows, where it ran: "Noise-driven stop: 9 of 13
    /// rows reached MAD/median <= 0.5%, 4 stopped at 0.5 s; 10 to 52 samples a row (runs
    /// column)."
    pub fn stop_sentence(&self) -> Option<String> {
        self.stops.as_ref().map(|counts| counts.sentence(self.rows))
    }

    /// "cuOccupancyMaxPotentialBlockSize suggests 1024 threads per block and a grid of 264 blocks."
    pub fn suggestion(&self) -> String {
        format!(
            "cuOccupancyMaxPotentialBlockSize suggests {} threads per block and a grid of {} blocks.",
            self.suggestion.threads_per_block, self.suggestion.grid_blocks
        )
    }

    /// "Fastest measured: 64 threads per block at 0.038 ms.", or with axes "Fastest
    /// measured: 64 threads per block, items/thr 4, at 0.038 ms."; [`NOTHING_MEASURED`] where
    /// every row failed.
    pub fn fastest(&self) -> Option<String> {
        let tunable = self.axes_phrase();
        Some(self.fastest.map_or_else(
            || NOTHING_MEASURED.to_string(),
            |(block, ms)| format!("Fastest measured: {}{tunable} at {ms:.3} ms.", block.in_words()),
        ))
    }

    /// ", items/thr 4," for the fastest row of a sweep with axes; empty without.
    fn axes_phrase(&self) -> String {
        if self.fastest_axes.is_empty() { String::new() } else { format!(", {},", self.fastest_axes) }
    }

    /// "Not launched (pruned: the occupancy model says the device cannot launch them): 1024
    /// threads (items/thr 4): 72 registers a thread x 1024 threads, above the 65536 registers a
    /// block may hold.", a clause per reason; `None` where every configuration was launched.
    pub fn pruned_sentence(&self) -> Option<String> {
        if self.pruned.is_empty() {
            return None;
        }
        let count: usize = self.pruned.iter().map(|(_, configurations)| configurations.len()).sum();
        let reasons: Vec<String> = self
            .pruned
            .iter()
            .map(|(reason, configurations)| format!("{}: {reason}", configurations.join("; ")))
            .collect();
        Some(format!(
            "Not launched, {count} configuration(s) the device cannot launch (docs/search.md): {}.",
            reasons.join(". ")
        ))
    }

    /// "8 of 13 configurations reach at least 95 percent of that row."; `None` where no row
    /// was measured (there is no fastest row to reach).
    pub fn near_best(&self) -> Option<String> {
        self.fastest?;
        Some(format!(
            "{} of {} configurations reach at least 95 percent of that row.",
            self.rows_near_best, self.rows
        ))
    }

    /// The table's footnote to its `*` marks, where it has any.
    pub fn noise_note(&self) -> Option<&'static str> {
        self.noise_marks.then_some(
            "* slower than the fastest row by no more than the two rows' median absolute deviations added: within the measured noise.",
        )
    }

    /// " + 16384 B dynamic" after the static shared memory, where rows had dynamic shared memory.
    fn dynamic_phrase(&self) -> String {
        match self.dynamic_shared_memory {
            Some(0) => String::new(),
            Some(bytes) => format!(" + {bytes} B dynamic"),
            None => " + each row's dynamic".to_string(),
        }
    }

    /// The table's last line: what the occupancy model was given and at how many rows it
    /// agrees with the driver, or why it was not checked.
    pub fn model_sentence(&self) -> String {
        match &self.model_check {
            ModelCheck::Ran { resources, agreeing_rows } => format!(
                "Occupancy model ({} registers/thread, {} B static{} shared memory) agrees with the driver's blk/SM at {agreeing_rows} of {} block sizes.",
                resources.registers_per_thread,
                resources.static_shared_memory,
                self.dynamic_phrase(),
                self.rows
            ),
            ModelCheck::Unavailable { compute_capability: (major, minor) } => {
                format!("Occupancy model: not checked: it does not know compute capability {major}.{minor}.")
            }
            check @ ModelCheck::PerConfiguration { .. } => format!(
                "Occupancy model ({}{} shared memory) agrees with the driver's blk/SM at {} of {} rows.",
                check.per_configuration_resources(),
                self.dynamic_phrase(),
                check.agreeing_rows(),
                self.rows
            ),
        }
    }

    /// The same as a clause, for the exports: "model with 16 registers/thread and 0 B static
    /// shared memory agrees at 13 of 13 rows".
    pub fn model_clause(&self) -> String {
        match &self.model_check {
            ModelCheck::Ran { resources, agreeing_rows } => format!(
                "model with {} registers/thread and {} B static{} shared memory agrees at {agreeing_rows} of {} rows",
                resources.registers_per_thread,
                resources.static_shared_memory,
                self.dynamic_phrase(),
                self.rows
            ),
            ModelCheck::Unavailable { compute_capability: (major, minor) } => {
                format!("not checked: the model does not know compute capability {major}.{minor}")
            }
            check @ ModelCheck::PerConfiguration { .. } => format!(
                "model with {}{} shared memory agrees at {} of {} rows",
                check.per_configuration_resources(),
                self.dynamic_phrase(),
                check.agreeing_rows(),
                self.rows
            ),
        }
    }

    /// The lines after the table, each ending in a newline.
    pub fn lines(&self) -> String {
        let mut text = self.suggestion() + "\n";
        for line in self.fastest().into_iter().chain(self.near_best()) {
            text += &line;
            text.push('\n');
        }
        if let Some(note) = self.noise_note() {
            text += note;
            text.push('\n');
        }
        if let Some(stop) = self.stop_sentence() {
            text += &stop;
            text.push('\n');
        }
        for line in self.sensors.iter().chain(&self.counters) {
            text += line;
            text.push('\n');
        }
        if let Some(pruned) = self.pruned_sentence() {
            text += &pruned;
            text.push('\n');
        }
        text += &(self.model_sentence() + "\n");
        if let Some(ended) = &self.ended_early {
            text += ended;
            text.push('\n');
        }
        text
    }
}

/// One `check failed:` line per failure, then how many failed and what that means.
pub fn failure_lines<T: std::fmt::Display>(failures: &[T], verdict: &str) -> String {
    if failures.is_empty() {
        return String::new();
    }
    let mut text: String = failures.iter().map(|failure| format!("check failed: {failure}\n")).collect();
    text += &format!("\n{} check(s) failed: {verdict}.\n", failures.len());
    text
}

/// Renders right-aligned columns, two spaces apart, headings first.
pub fn render_columns(records: Vec<Vec<String>>) -> String {
    let mut table = Builder::from_iter(records).build();
    table.with(Style::blank()).with(Padding::new(1, 0, 0, 0)).with(Alignment::right());
    let mut text = table.to_string();
    text.push('\n');
    text
}

// The sweep's table: `block_size.cu`'s columns, its summary and its verdict.

/// Column headings and the width `block_size.cu` prints each one in, so that the two
/// programs' tables line up character for character.
const COLUMNS: [(&str, usize); 10] = [
    ("thr/blk", 8),
    ("warps", 6),
    ("idle", 5),
    ("blk/SM", 7),
    ("warps/SM", 9),
    ("occ", 6),
    ("grid", 7),
    ("ms", 9),
    ("GB/s", 8),
    ("of best", 8),
];

/// Bytes of dynamic shared memory a block asked for, after `grid`, where rows differ.
const SMEM_COLUMN: (&str, usize) = ("smem", 7);

/// The last column, after the seed's ten (and `--stats`' three): which resources bind
/// blocks/SM at this size, by the occupancy model.
const LIMITER_COLUMN: (&str, usize) = ("limiter", 14);

/// Samples each row took, before the limiter, where the noise-driven stop made them differ.
const RUNS_COLUMN: (&str, usize) = ("runs", 6);

/// The lines printed before the sweep starts.
pub fn header(limits: &DeviceLimits, pass: &Pass, timing: Timing) -> String {
    device_and_image(limits, pass) + &timing_line(timing)
}

/// The line under the header of one shard's sweep (`--shard I/N`): its share, and what puts
/// the shards together; empty for a whole sweep.
pub fn shard_line(shard: Option<ShardOf>) -> String {
    match shard {
        Some(ShardOf { shard, configurations }) => format!(
            "Shard {shard}: {} of the sweep's {configurations} configurations (block-size merge puts the shards' JSON together)\n",
            shard.share(configurations)
        ),
        None => String::new(),
    }
}

/// Extra columns `--stats` adds after the seed's ten, with their widths.
const STATS_COLUMNS: [(&str, usize); 3] = [("min ms", 9), ("max ms", 9), ("MAD ms", 9)];

/// The SM clock column `--stats` adds after its three: each row's median reading, `n/a`
/// where the device has no sensors.
const CLOCK_COLUMN: (&str, usize) = ("SM MHz", 7);

/// One column `--counters` adds: its heading and width in the table, its CSV heading, and its
/// value from a row's counters (and the run's copy), with the table's rendering of it.
pub(crate) struct CounterColumn {
    /// The table's and the HTML page's heading.
    pub heading: &'static str,
    /// Its width in the table.
    pub width: usize,
    /// The CSV export's heading (the value unrounded), and the T4 export's measurement name.
    pub csv: &'static str,
    /// The value's unit, as the T4 export's measurement says it.
    pub unit: &'static str,
    /// Its value, where read.
    pub value: fn(&CountersRun, &Counters) -> Option<f64>,
    /// Its value as the table and the HTML page print it.
    pub cell: fn(f64) -> String,
}

/// The columns `--counters` adds, in order, after the energy's: declared once, for the
/// table, the HTML page and the CSV export.
pub(crate) const COUNTER_COLUMNS: [CounterColumn; 9] = [
    CounterColumn {
        heading: "DRAM GB/s",
        width: 10,
        csv: "dram_bytes_per_second",
        unit: "B/s",
        value: |_, counters| counters.dram_bytes_per_second,
        cell: |value| format!("{:.0}", value / 1e9),
    },
    CounterColumn {
        heading: "%copy",
        width: 6,
        csv: "percent_of_copy",
        unit: "%",
        value: |run, counters| run.percent_of_copy(counters),
        cell: |value| format!("{value:.0}%"),
    },
    CounterColumn {
        heading: "occ achv",
        width: 9,
        csv: "achieved_occupancy_percent",
        unit: "%",
        value: |_, counters| counters.achieved_occupancy_percent,
        cell: |value| format!("{value:.0}%"),
    },
    CounterColumn {
        heading: "warp eff",
        width: 9,
        csv: "warp_efficiency_percent",
        unit: "%",
        value: |_, counters| counters.warp_efficiency_percent,
        cell: |value| format!("{value:.0}%"),
    },
    CounterColumn {
        heading: "branch",
        width: 7,
        csv: "branch_efficiency_percent",
        unit: "%",
        value: |_, counters| counters.branch_efficiency_percent,
        cell: |value| format!("{value:.0}%"),
    },
    CounterColumn {
        heading: "L2 hit",
        width: 7,
        csv: "l2_hit_percent",
        unit: "%",
        value: |_, counters| counters.l2_hit_percent,
        cell: |value| format!("{value:.0}%"),
    },
    CounterColumn {
        heading: "bank cfl",
        width: 9,
        csv: "shared_bank_conflicts",
        unit: "conflicts",
        value: |_, counters| counters.shared_bank_conflicts,
        cell: |value| format!("{value:.0}"),
    },
    CounterColumn {
        heading: "bar stall",
        width: 10,
        csv: "barrier_stalls_per_issue",
        unit: "warps",
        value: |_, counters| counters.barrier_stalls_per_issue,
        cell: |value| format!("{value:.2}"),
    },
    CounterColumn {
        heading: "mem stall",
        width: 10,
        csv: "memory_stalls_per_issue",
        unit: "warps",
        value: |_, counters| counters.memory_stalls_per_issue,
        cell: |value| format!("{value:.2}"),
    },
];

/// A measured row's `--counters` cells: each value as its column prints it, `n/a` where it
/// was not read. The table's and the HTML page's.
pub(crate) fn counter_cells(run: &CountersRun, counters: Option<&Counters>) -> Vec<String> {
    COUNTER_COLUMNS
        .iter()
        .map(|column| {
            counters.and_then(|counters| (column.value)(run, counters)).map_or("n/a".to_string(), column.cell)
        })
        .collect()
}

/// The line that opens a command's counters: what read them, on a replay of `each`, with the
/// copy's rate where timed ("Counters: Nsight Compute 2025.3.1.0, read on a replay of each grid
/// from flushed caches after the timed samples; ..."); `Err`: the line that says none were read.
pub(crate) fn counters_line(run: &CountersRun, each: &str, after: &str) -> Result<String, String> {
    let Some(profiler) = &run.profiler else {
        let why = run.unavailable.as_deref().unwrap_or("not read");
        return Err(format!("Counters: none read ({why})."));
    };
    let copy = match run.copy_bytes_per_second {
        Some(copy) => format!("; the device-to-device copy reached {:.0} GB/s in this run", copy / 1e9),
        None => String::new(),
    };
    Ok(format!("Counters: {profiler}, read on a replay of {each} from flushed caches after {after}{copy}."))
}

/// A table of counters: `heading`'s columns, then the counters' ([`COUNTER_COLUMNS`]); each
/// record its leading cells and its counters.
pub(crate) fn counters_table<'a>(
    run: &CountersRun,
    heading: &[&str],
    records: impl Iterator<Item = (Vec<String>, Option<&'a Counters>)>,
) -> String {
    let head = heading.iter().copied().chain(COUNTER_COLUMNS.iter().map(|column| column.heading));
    let mut table = vec![head.map(String::from).collect::<Vec<_>>()];
    for (mut record, counters) in records {
        record.extend(counter_cells(run, counters));
        table.push(record);
    }
    render_columns(table)
}

/// The columns `--energy` adds: millijoules a pass and mean watts, `n/a` where unread.
const ENERGY_COLUMNS: [(&str, usize); 2] = [("mJ/pass", 9), ("W", 6)];

/// The `SM MHz` cell of a row: its median reading, `t` after it where some of its samples were
/// throttled; `n/a` where the clock was not read. The table's and the HTML page's.
pub(crate) fn clock_cell(clock: Option<&RowClock>) -> String {
    clock.map_or("n/a".to_string(), |clock| {
        format!("{}{}", clock.median_mhz, if clock.throttled_samples > 0 { "t" } else { "" })
    })
}

/// The `mJ/pass` and `W` cells of a row, `n/a` where its energy was not read. The table's and
/// the HTML page's.
pub(crate) fn energy_cells(energy: Option<&RowEnergy>) -> [String; 2] {
    match energy {
        Some(energy) => [format!("{:.3}", energy.joules_per_pass * 1e3), format!("{:.0}", energy.watts)],
        None => ["n/a", "n/a"].map(String::from),
    }
}

/// The seed's ten columns, one row per block size; with `stats`, three more columns and the
/// SM clock; with `--energy`, millijoules a pass and watts; where rows took different numbers
/// of samples, how many each took; last, the binding limit.
pub fn table(sweep: &Sweep, stats: bool) -> String {
    let runs = sweep.samples_vary();
    let energy = sweep.timing.energy_window.is_some();
    let counters = sweep.counters.as_ref();
    let counter_columns: Vec<(&str, usize)> = match counters {
        Some(_) => COUNTER_COLUMNS.iter().map(|column| (column.heading, column.width)).collect(),
        None => Vec::new(),
    };
    let mut columns: Vec<(&str, usize)> = COLUMNS
        .iter()
        .chain(if stats { &STATS_COLUMNS[..] } else { &[] })
        .chain(if stats { &[CLOCK_COLUMN][..] } else { &[] })
        .chain(if energy { &ENERGY_COLUMNS[..] } else { &[] })
        .chain(&counter_columns)
        .chain(if runs { &[RUNS_COLUMN][..] } else { &[] })
        .chain([&LIMITER_COLUMN])
        .copied()
        .collect();
    let mut records = vec![columns.iter().map(|(name, _)| name.to_string()).collect::<Vec<_>>()];
    let cells = RowCells { stats, energy, runs, counters: counter_columns.len() };
    records.extend(sweep.rows.iter().map(|row| cells.of(sweep, row)));
    insert_shape_and_axis_columns(sweep, &mut columns, &mut records);
    render_at_widths(&columns, &records)
}

/// What [`table`] shows of each row beyond the seed's columns.
struct RowCells {
    stats: bool,
    energy: bool,
    runs: bool,
    /// How many `--counters` columns (none without).
    counters: usize,
}

impl RowCells {
    /// One row's cells, in [`table`]'s column order (before the shape and axis columns).
    fn of(&self, sweep: &Sweep, row: &Row) -> Vec<String> {
        let RowCells { stats, energy, runs, counters: counter_count } = *self;
        let counters = sweep.counters.as_ref();
        let mut record = vec![
            row.threads_per_block.to_string(),
            row.warps_per_block.to_string(),
            row.idle_lanes.to_string(),
            row.blocks_per_sm.to_string(),
            row.resident_warps.to_string(),
            format!("{:.0}%", sweep.occupancy_percent(row)),
            row.grid.to_string(),
        ];
        let unmeasured = match (&row.failed, &row.pruned) {
            (Some(reason), _) if reason.starts_with("hung") => Some("hung"),
            (Some(_), _) => Some("failed"),
            (None, Some(_)) => Some("pruned"),
            (None, None) => None,
        };
        match unmeasured {
            // No measurement: what happened instead, and nothing to compare.
            Some(what) => {
                record.extend([what.to_string(), "-".into(), "-".into()]);
                let dashes = 4 * usize::from(stats) + 2 * usize::from(energy) + counter_count;
                record.extend((0..dashes).map(|_| "-".to_string()));
            }
            None => {
                record.extend([
                    format!("{:.3}", row.stats.median),
                    format!("{:.1}", sweep.gigabytes_per_second(row)),
                    format!(
                        "{:.2}{}",
                        sweep.fraction_of_best(row),
                        if sweep.within_noise_of_best(row) { "*" } else { "" }
                    ),
                ]);
                if stats {
                    record.extend([row.stats.min, row.stats.max, row.stats.mad].map(|ms| format!("{ms:.4}")));
                    record.push(clock_cell(row.clock.as_ref()));
                }
                if energy {
                    record.extend(energy_cells(row.energy.as_ref()));
                }
                if let Some(run) = counters {
                    record.extend(counter_cells(run, row.counters.as_ref()));
                }
            }
        }
        if runs {
            let raced = if row.stopped == Some(Stopped::Raced) { "r" } else { "" };
            record.push(if row.pruned.is_some() {
                "-".to_string()
            } else {
                format!("{}{raced}", row.run_ms.len())
            });
        }
        // A pruned row's reason is under the table (Summary::pruned_sentence).
        record.push(if row.pruned.is_some() {
            "cannot launch".to_string()
        } else {
            limiter_cell(&row.limiters)
        });
        record
    }
}

/// The columns a sweep adds in front of its cells: the dynamic shared memory where rows differ
/// in it, the block's shape where a row's is not in x alone, and the axes' values first.
fn insert_shape_and_axis_columns<'a>(
    sweep: &'a Sweep,
    columns: &mut Vec<(&'a str, usize)>,
    records: &mut [Vec<String>],
) {
    // The dynamic shared memory a block of each row asked for, after `grid`, where the rows'
    // differ (a kernel's bytes that follow its block's count or shape): what bounds blk/SM
    // there. Where every row asks the same, the summary's occupancy line says it once.
    if sweep.constant_dynamic_shared_memory().is_none() {
        let at = COLUMNS.iter().position(|(name, _)| *name == "grid").expect("a grid column") + 1;
        columns.insert(at, SMEM_COLUMN);
        records[0].insert(at, SMEM_COLUMN.0.to_string());
        for (record, row) in records[1..].iter_mut().zip(&sweep.rows) {
            record.insert(at, row.dynamic_shared_memory.to_string());
        }
    }
    // A block column beside the thread count where a row's block is a shape (`32x8`): a sweep
    // of blocks in x alone reads as `block_size.cu`'s table does.
    if sweep.rows.iter().any(|row| !row.block.is_linear()) {
        columns.insert(1, ("block", 7));
        records[0].insert(1, "block".to_string());
        for (record, row) in records[1..].iter_mut().zip(&sweep.rows) {
            record.insert(1, row.block.to_string());
        }
    }
    // Axes beyond the block size (a sweep of your own kernel): their values come first.
    for (index, name) in sweep.axes.iter().enumerate() {
        columns.insert(index, (name.as_str(), name.len() + 2));
        records[0].insert(index, name.clone());
        for (record, row) in records[1..].iter_mut().zip(&sweep.rows) {
            record.insert(index, row.axes.get(name).unwrap_or_default().to_string());
        }
    }
}

/// The table of `records` (the heading first), each column at least its width in `columns`.
fn render_at_widths(columns: &[(&str, usize)], records: &[Vec<String>]) -> String {
    let mut table = Builder::from_iter(records.iter().cloned()).build();
    table.with(Style::blank()).with(Padding::zero()).with(Alignment::right());
    // Widen each column to block_size.cu's printf width with left padding, so the cells
    // stay right-aligned; a wider value simply widens its column, as printf would.
    for (index, (_, width)) in columns.iter().enumerate() {
        let natural = records.iter().map(|record| record[index].chars().count()).max().unwrap_or(0);
        table.modify(Columns::one(index), Padding::new(width.saturating_sub(natural), 0, 0, 0));
    }
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// What follows the header once the sweep is done: a blank line, the table, a blank line,
/// the summary (with `stats`, and the sweep timed, its `Time:` line last).
pub fn body(sweep: &Sweep, stats: bool) -> String {
    // With the statistics, where the measurement's wall time went: what a search saved beside
    // what every process pays.
    let wall_time = match sweep.wall_time {
        Some(wall_time) if stats => wall_time.line(),
        _ => String::new(),
    };
    format!("\n{}\n{}{wall_time}", table(sweep, stats), Summary::of(sweep).lines())
}

/// Everything for standard error: one line per failed check, then the verdict. Empty when
/// every check held.
pub fn stderr(sweep: &Sweep) -> String {
    failure_lines(&sweep.failures, "the table above is not a measurement of this kernel")
}

/// "every check held", or how many failed: the closing summaries' verdict.
fn checks_verdict(sweep: &Sweep) -> String {
    match sweep.failures.len() {
        0 => "every check held".to_string(),
        failed => format!("{failed} check(s) failed"),
    }
}

/// One line for `--device all`'s closing summary.
pub fn device_summary(sweep: &Sweep) -> String {
    let verdict = checks_verdict(sweep);
    match sweep.best() {
        Some(best) => format!(
            "GPU {} ({}): fastest {} at {:.3} ms ({:.1} GB/s); {} of {} rows within 95 percent; {verdict}.\n",
            sweep.limits.ordinal,
            sweep.limits.name,
            best.block.in_words(),
            best.stats.median,
            sweep.gigabytes_per_second(best),
            sweep.rows_near_best(),
            sweep.rows.len()
        ),
        None => format!("GPU {} ({}): no rows; {verdict}.\n", sweep.limits.ordinal, sweep.limits.name),
    }
}

/// One line a GPU model for `block-size merge`'s closing summary: its best configuration.
pub fn model_summary(sweep: &Sweep) -> String {
    let (major, minor) = sweep.limits.compute_capability;
    let verdict = checks_verdict(sweep);
    match sweep.best() {
        Some(best) => format!(
            "{} ({major}.{minor}): {} at {:.3} ms ({:.1} GB/s), the {} of {} rows; {verdict}.\n",
            sweep.limits.name,
            crate::model::axis_values::configuration_label(best.block, &best.axes),
            best.stats.median,
            sweep.gigabytes_per_second(best),
            match sweep.scored_objective() {
                Objective::Time => "fastest",
                Objective::Energy => "least-energy",
                Objective::Edp => "lowest energy-delay",
            },
            sweep.rows.len()
        ),
        None => format!("{} ({major}.{minor}): no rows; {verdict}.\n", sweep.limits.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::mock::MockGpu;
    use crate::measure::sampling::timing::TimingMode;
    use crate::tests::fixture;

    fn sweep(gpu: &mut MockGpu, sizes: &[u32]) -> Sweep {
        gpu.loaded.clear();
        let mut workload = fixture::workload(gpu, fixture::kernel(256));
        let timing = Timing::launch(0, 3);
        crate::search::sweep::run(gpu, workload.as_mut(), sizes, timing, None).unwrap()
    }

    #[test]
    fn every_format_says_the_timing_in_the_same_words() {
        let timing = Timing { flush_l2: true, ..Timing::launch(3, 10) };
        assert_eq!(
            timing_line(timing),
            "Timing: launch mode, median of 10 runs after 3 warm-ups, each run between its own CUDA events, L2 flushed before each run\n"
        );
        assert_eq!(
            timing_clause(timing),
            "launch mode, median of 10 runs after 3 warm-ups, L2 flushed before each run"
        );
        assert_eq!(timing_title(timing), "launch, median of 10 runs, L2 flushed");
        assert_eq!(timing_title(Timing { flush_l2: false, ..timing }), "launch, median of 10 runs");
    }

    #[test]
    fn the_timing_line_names_the_mode_and_the_stop() {
        let batch = Timing::fixed(TimingMode::Batch, 3, 10);
        assert_eq!(
            timing_line(batch),
            "Timing: batch mode, median of 10 samples after 3 warm-ups, each sample 10 launches back to back \
             between one pair of CUDA events, divided by 10\n"
        );
        assert_eq!(timing_title(Timing { launches_per_sample: 4, ..batch }), "batch, median of 10 samples");
        let cold = Timing::fixed(TimingMode::Cold, 0, 5);
        assert_eq!(
            timing_line(cold),
            "Timing: cold mode, median of 5 runs after 0 warm-ups, each run one launch between its own CUDA \
             events after an L2 flush, every run queued behind a blocking kernel until all are enqueued\n"
        );
        assert_eq!(timing_title(cold), "cold, median of 5 runs, L2 flushed", "cold always flushes");
        let graph = Timing { launches_per_sample: 4, ..Timing::fixed(TimingMode::Graph, 3, 10) };
        assert_eq!(
            timing_line(graph),
            "Timing: graph mode, median of 10 samples after 3 warm-ups, each sample one replay of a CUDA graph \
             of 4 launches between one pair of CUDA events, divided by 4\n"
        );
        let flushed = Timing { flush_l2: true, ..graph };
        assert!(timing_line(flushed).ends_with(", divided by 4, L2 flushed before each sample\n"));
        assert_eq!(timing_title(flushed), "graph, median of 10 samples, L2 flushed");
        let stop = NoiseStop {
            max_noise: 0.0025,
            max_time_per_row: std::time::Duration::from_millis(1500),
            max_runs: 99,
        };
        let adaptive = batch.until(stop);
        assert_eq!(
            timing_line(adaptive),
            "Timing: batch mode, median of at least 10 samples after 3 warm-ups, each sample 10 launches back to \
             back between one pair of CUDA events, divided by 10\n  Noise-driven stop: each row takes more \
             samples until their median absolute deviation is at most 0.25% of their median, or for 1.5 s\n"
        );
        assert_eq!(
            timing_clause(adaptive),
            "batch mode, median of at least 10 samples after 3 warm-ups, until MAD/median <= 0.25% or 1.5 s a row"
        );
    }

    #[test]
    fn the_summary_says_how_the_noise_driven_stop_ended_the_rows() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        // Steady at 64 threads, ten percent apart at 128, for ever.
        gpu.sample_script =
            vec![1.0; 5].into_iter().chain([0.9, 1.0, 1.1].into_iter().cycle().take(3000)).collect();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(256));
        let stop = NoiseStop {
            max_noise: 0.01,
            max_time_per_row: std::time::Duration::from_millis(10),
            max_runs: 1000,
        };
        let timing = Timing::launch(0, 5).until(stop);
        let sweep = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, None).unwrap();
        assert_eq!(sweep.rows[0].stopped, Some(Stopped::Converged));
        assert_eq!(sweep.rows[1].stopped, Some(Stopped::TimeBudget));
        assert!(sweep.samples_vary());
        let summary = Summary::of(&sweep);
        // 5 samples of 0.5 ms steady; 0.25 ms samples for 10 ms: 41 of them.
        assert_eq!(
            summary.stop_sentence().as_deref(),
            Some(
                "Noise-driven stop: 1 of 2 rows reached MAD/median <= 1%, 1 stopped at 0.01 s; 5 to 41 samples a row (runs column)."
            )
        );
        assert!(summary.lines().contains("Noise-driven stop: 1 of 2 rows"), "{}", summary.lines());
        // A fixed count says nothing of it.
        let fixed = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64], Timing::launch(0, 2), None)
            .unwrap();
        assert_eq!(Summary::of(&fixed).stop_sentence(), None);
    }

    #[test]
    fn the_summary_says_each_sentence_once_for_every_format() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        let summary = Summary::of(&sweep(&mut gpu, &[64, 128]));
        assert_eq!(
            summary.lines(),
            "cuOccupancyMaxPotentialBlockSize suggests 1024 threads per block and a grid of 264 blocks.\n\
             Fastest measured: 128 threads per block at 0.250 ms.\n\
             1 of 2 configurations reach at least 95 percent of that row.\n\
             Occupancy model (16 registers/thread, 0 B static shared memory) agrees with the driver's blk/SM at 2 of 2 block sizes.\n"
        );
        assert_eq!(
            summary.model_clause(),
            "model with 16 registers/thread and 0 B static shared memory agrees at 2 of 2 rows"
        );
    }

    #[test]
    fn an_architecture_the_model_does_not_know_is_said_to_be_unchecked() {
        // A B200 (10.0): whatever its residency, the model does not judge it.
        let mut gpu = fixture::gpu();
        gpu.limits.compute_capability = (10, 0);
        let summary = Summary::of(&sweep(&mut gpu, &[64, 96]));
        assert!(
            summary
                .lines()
                .ends_with("Occupancy model: not checked: it does not know compute capability 10.0.\n")
        );
        assert_eq!(summary.model_clause(), "not checked: the model does not know compute capability 10.0");
    }
}
