/*!
The sweep: for each block size, ask the driver for residency, launch one full wave, time it,
check it. Every check that fails is recorded and the sweep goes on, so one bad row still lets
every other row report; the caller turns any failure into exit status 1.
*/

use crate::measure::gpu::backend::{Gpu, Timing};
use crate::measure::record::journal::{self, Configuration, Journal};
use crate::measure::sampling::checked::{self, Checked};
use crate::measure::sampling::timing::Stopped;
use crate::measure::sampling::workload::Workload;
use crate::measure::sensors::{RowClock, RowEnergy};
use crate::measure::supervision::interrupt::Interrupted;
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::{BlockShape, GridShape};
use crate::model::counters::{Counters, CountersRun};
use crate::model::grid::GridPolicy;
use crate::model::launch_bounds::LaunchBounds;
use crate::model::limits::{DeviceLimits, KernelResources, Suggestion};
use crate::model::mismatch::Mismatch;
use crate::model::objective::Objective;
use crate::model::occupancy::{WARP_SIZE, idle_lanes, occupancy_percent, warps_per_block};
use crate::model::pass::Pass;
use crate::model::sm::{Limiter, SmModel};
use crate::model::stats::RunStats;
use anyhow::{Context as _, Result};

/// Rows within this fraction of the fastest row count as "reaching" it in the summary.
pub const NEAR_BEST_FRACTION: f64 = 0.95;

/// One measured block size.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Threads per block: `block.x * block.y * block.z`.
    pub threads_per_block: u32,
    /// The block's threads in x, y and z: `threads_per_block` in x alone unless the sweep has
    /// block shapes.
    pub block: BlockShape,
    /// Warps per block, rounded up.
    pub warps_per_block: u32,
    /// Threads of the last warp with no work.
    pub idle_lanes: u32,
    /// The driver's resident blocks per SM, with the row's dynamic shared memory.
    pub blocks_per_sm: u32,
    /// Resident warps per SM: blocks/SM x warps per block.
    pub resident_warps: u32,
    /// Blocks launched, as the grid policy says: `grid.x * grid.y * grid.z`.
    pub grid_blocks: u32,
    /// The grid's blocks in x, y and z: `grid_blocks` in x alone unless the kernel has a
    /// domain ([`crate::Kernel::domain`]); 0 blocks where the row was pruned.
    pub grid: GridShape,
    /// Bytes of dynamic shared memory each block was launched with (and the occupancy
    /// queries were given).
    pub dynamic_shared_memory: u32,
    /// The resources that bind blocks/SM at this size, by the occupancy model (none where the
    /// model does not know the device).
    pub limiters: Vec<Limiter>,
    /// Milliseconds of each sample, in order: one launch's, or in batch mode the mean of a
    /// batch's. Under the noise-driven stop their count varies from row to row.
    pub run_ms: Vec<f32>,
    /// Why the noise-driven stop ended this row (`None`: a fixed count).
    pub stopped: Option<Stopped>,
    /// Their median, extremes and median absolute deviation.
    pub stats: RunStats,
    /// The row's value on each axis of the sweep ([`Sweep::axes`]): the table's first
    /// columns. Empty where the sweep has no axis beyond the block size.
    pub axes: AxisValues,
    /// Why this configuration has no measurement: a launch fault (the driver's message) or a
    /// hang. Its samples are then empty, and the table says so instead of a time.
    pub failed: Option<String>,
    /// Why this configuration was not launched: the occupancy model says the device cannot
    /// launch it (threads, registers or shared memory beyond a block's limits;
    /// `docs/search.md`). Its samples are empty; it is no failure.
    pub pruned: Option<String>,
    /// The SM clock while its samples ran, and the samples taken again for throttling
    /// (`None`: the device has no sensors).
    pub clock: Option<RowClock>,
    /// Its energy (`--energy`; `None`: not asked, or no sensors).
    pub energy: Option<RowEnergy>,
    /// Its hardware counters, read on a replay after the timed samples (`--counters`; `None`:
    /// not asked, not read, or not measured).
    pub counters: Option<Counters>,
}

impl Row {
    /// Whether the row was launched and measured: neither failed nor pruned.
    pub(crate) fn measured(&self) -> bool {
        self.failed.is_none() && self.pruned.is_none()
    }

    /// Whether the row was measured and holds samples to rank it by.
    pub(crate) fn sampled(&self) -> bool {
        self.measured() && !self.run_ms.is_empty()
    }

    /// Whether this row is slower than `best` by no more than the measured noise: its median
    /// exceeds `best`'s by at most the two rows' median absolute deviations.
    pub(crate) fn within_noise_of(&self, best: &Row) -> bool {
        self.stats.median - best.stats.median <= best.stats.mad + self.stats.mad
    }
}

/// A check that did not hold. Each variant says why its row, or the run, measures nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckFailure {
    /// The driver fits no block of this size on an SM.
    NoResidency {
        /// The row's block.
        block: BlockShape,
    },
    /// The driver's blocks/SM is above the device's resident-block cap.
    BlockCapExceeded {
        /// The row's block.
        block: BlockShape,
        /// The driver's blocks/SM.
        blocks_per_sm: u32,
        /// The device's resident-block cap.
        cap: u32,
    },
    /// blocks/SM x warps/block is above the device's resident-warp cap.
    WarpCapExceeded {
        /// The row's block.
        block: BlockShape,
        /// Warps resident per SM by the driver's blocks/SM.
        resident_warps: u32,
        /// The device's resident-warp cap.
        cap: u32,
    },
    /// The output differs from the CPU reference (or, for a kernel of your own, fails one of
    /// its checks).
    WrongOutput {
        /// The row's block.
        block: BlockShape,
        /// Where and how.
        mismatch: Mismatch,
    },
    /// The device's warp size is not the one the warps and idle columns assume.
    WarpSize {
        /// The warp size the device reports.
        reported: u32,
    },
    /// The occupancy model and the driver disagree about blocks/SM.
    ModelDisagrees {
        /// The row's block.
        block: BlockShape,
        /// The model's blocks/SM.
        model: u32,
        /// The driver's.
        driver: u32,
    },
    /// A failure of the rows of one configuration of the sweep's axes ([`Sweep::axes`]).
    Configuration {
        /// Its values ("items/thr 4, grid waves:2").
        axes: AxisValues,
        /// What failed there.
        failure: Box<CheckFailure>,
    },
    /// The configuration could not be measured: a launch fault, or a hang.
    Failed {
        /// Its block.
        block: BlockShape,
        /// The driver's message, or the hang.
        reason: String,
    },
    /// A launch fault poisoned the context and no fresh worker measured the rest.
    NotMeasured {
        /// How many configurations were left.
        configurations: usize,
    },
    /// A failure read back from a sweep's JSON export, in its words (`block-size merge`).
    Recorded(String),
}

impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::NoResidency { block } => write!(
                f,
                "the driver fits no block of this kernel on an SM at {}; that row measured a single block, not a wave",
                block.in_words()
            ),
            Self::BlockCapExceeded { block, blocks_per_sm, cap } => write!(
                f,
                "{} the driver reports {blocks_per_sm} blocks/SM, above the device's cap of {cap}",
                at_block(block)
            ),
            Self::WarpCapExceeded { block, resident_warps, cap } => write!(
                f,
                "{} {resident_warps} warps would be resident per SM, above the device's cap of {cap}",
                at_block(block)
            ),
            Self::WrongOutput { block, ref mismatch } => {
                write!(f, "wrong output {}: {mismatch}", at_block(block))
            }
            Self::WarpSize { reported } => write!(
                f,
                "the device reports a warp size of {reported}; the warps and idle columns assume {WARP_SIZE}"
            ),
            Self::ModelDisagrees { block, model, driver } => write!(
                f,
                "{} the occupancy model predicts {model} blocks/SM, the driver says {driver}",
                at_block(block)
            ),
            Self::Configuration { ref axes, ref failure } => write!(f, "{axes}: {failure}"),
            Self::Failed { block, ref reason } => {
                write!(f, "{} nothing was measured: {reason}", at_block(block))
            }
            Self::NotMeasured { configurations } => write!(
                f,
                "{configurations} configuration(s) after a launch fault that lost the GPU context were not measured \
                 (block-size and sweep_and_print measure them in a fresh worker)"
            ),
            Self::Recorded(ref words) => f.write_str(words),
        }
    }
}

/// "at 256 threads per block" for a block in x alone, "at block 32x8" for any other shape:
/// how a failure names its row.
fn at_block(block: BlockShape) -> String {
    format!("at {}", block.in_words())
}

/// The occupancy model run beside the driver: the kernel's resources it was given, and at
/// how many rows it agreed (disagreements are [`CheckFailure::ModelDisagrees`]). The JSON
/// export keeps it whole (`occupancy_model`), so that `block-size merge` can add shards' up.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelCheck {
    /// The model ran: with these resources, agreeing at this many rows.
    Ran {
        /// The kernel's registers and static shared memory it was given.
        resources: KernelResources,
        /// Rows at which it agreed with the driver.
        agreeing_rows: usize,
    },
    /// Not checked: the model does not know this compute capability's architecture.
    Unavailable {
        /// The device's compute capability.
        compute_capability: (u32, u32),
    },
    /// A sweep over axes whose configurations' kernels differ in resources: each
    /// configuration's check (the sweeps of its configurations combined).
    PerConfiguration {
        /// Each configuration with its kernel's check.
        checks: Vec<(AxisValues, ModelCheck)>,
    },
}

/// Everything one sweep measured, ready to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The device.
    pub limits: DeviceLimits,
    /// What one pass of the kernel is: its name, frame and bytes.
    pub pass: Pass,
    /// How each row was timed.
    pub timing: Timing,
    /// One row per configuration: per block size, times the configurations of the axes.
    pub rows: Vec<Row>,
    /// How many blocks each row launched.
    pub grid: GridPolicy,
    /// The names of the axes beyond the block size ("items/thr", "grid"), where the sweep ran
    /// the cross product of the block sizes and their values; each row says its values
    /// ([`Row::axes`]). Empty where there is none.
    pub axes: Vec<String>,
    /// The driver's suggestion for the kernel (with axes, for its first configuration's).
    pub suggestion: Suggestion,
    /// The occupancy model's check against the driver.
    pub model_check: ModelCheck,
    /// Every check that failed; non-empty means the rows are not a measurement.
    pub failures: Vec<CheckFailure>,
    /// Why the sweep ended before its last configuration, where it did.
    pub ended_early: Option<EndedEarly>,
    /// How its samples were spent: every configuration to the end, or a race
    /// (`crate::search::race`).
    pub search: crate::model::search::Search,
    /// What makes a row the best ([`Sweep::best`]): its time unless asked otherwise
    /// (`--objective`).
    pub objective: Objective,
    /// Where this sweep is one shard of a larger one (`--shard I/N`): which, and of how many
    /// configurations; its rows are that shard's alone.
    pub shard: Option<crate::model::shard::ShardOf>,
    /// Where the measurement's wall time went, where it was timed (a sweep measured here, or
    /// read back from a JSON export that kept it).
    pub wall_time: Option<crate::measure::sampling::wall_time::WallTime>,
    /// What `--counters` read for the sweep as a whole (the copy, the profiler, or why there
    /// are no counters); `None`: not asked.
    pub counters: Option<CountersRun>,
}

/// Why a sweep ended before its last configuration: its rows so far are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndedEarly {
    /// A signal asked it to stop (exit 130 for SIGINT, 143 for SIGTERM).
    Interrupted(crate::measure::supervision::interrupt::Signal),
    /// A launch fault poisoned the GPU context: the rest needs a fresh process (a supervised
    /// worker exits for its supervisor to start one; `configurations_left` were not measured).
    ContextLost {
        /// Configurations after the faulting one.
        configurations_left: usize,
    },
}

impl Sweep {
    /// Items one pass covers: the frame's pixels, or a user kernel's items.
    pub fn pixels(&self) -> u64 {
        self.pass.item_count()
    }

    /// The best row under the sweep's objective (the first of equals): the lowest median
    /// time, or the lowest energy or energy-delay product among the rows with an energy;
    /// where none has one, the fastest.
    pub fn best(&self) -> Option<&Row> {
        self.best_by(self.scored_objective())
    }

    /// The row with the lowest median time (the first of equals).
    pub fn fastest(&self) -> Option<&Row> {
        self.best_by(Objective::Time)
    }

    /// The row with the fewest joules per pass, where any row has an energy.
    pub fn best_by_energy(&self) -> Option<&Row> {
        self.best_by(Objective::Energy)
    }

    /// The objective rows are ranked by: the sweep's, or time where no row has what it needs.
    pub fn scored_objective(&self) -> Objective {
        let scored = self.measured_rows().any(|row| self.score(self.objective, row).is_some());
        if scored { self.objective } else { Objective::Time }
    }

    fn score(&self, objective: Objective, row: &Row) -> Option<f64> {
        objective.score(row.stats.median, row.energy.as_ref().map(|energy| energy.joules_per_pass))
    }

    fn best_by(&self, objective: Objective) -> Option<&Row> {
        self.measured_rows()
            .filter_map(|row| self.score(objective, row).map(|score| (score, row)))
            .reduce(|best, row| if row.0 < best.0 { row } else { best })
            .map(|(_, row)| row)
    }

    /// The rows with a measurement (not failed, not pruned).
    pub fn measured_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| row.measured())
    }

    /// The rows the occupancy model left out as unable to launch ([`Row::pruned`]).
    pub fn pruned_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| row.pruned.is_some())
    }

    /// The best row's score over this row's ([`Sweep::scored_objective`]; by time, the best
    /// row's median over this row's): 1.00 for the best row, smaller for worse ones; NaN for a
    /// row without the energy the objective needs.
    pub fn fraction_of_best(&self, row: &Row) -> f64 {
        let objective = self.scored_objective();
        let Some(score) = self.score(objective, row) else { return f64::NAN };
        let best = self.best().and_then(|best| self.score(objective, best)).unwrap_or(score);
        best / score
    }

    /// Whether a row other than the best is slower by no more than the measured noise: its
    /// median exceeds the best median by at most the two rows' median absolute deviations.
    /// Under an energy objective, no row is (the noise is measured in time).
    pub fn within_noise_of_best(&self, row: &Row) -> bool {
        if self.scored_objective() != Objective::Time {
            return false;
        }
        match self.best() {
            Some(best) if (best.block, &best.axes) != (row.block, &row.axes) => row.within_noise_of(best),
            _ => false,
        }
    }

    /// Rows that reach at least 95 percent of the fastest row's speed (by time, whatever the
    /// objective).
    pub fn rows_near_best(&self) -> usize {
        let Some(fastest) = self.fastest() else { return 0 };
        self.measured_rows()
            .filter(|row| fastest.stats.median / row.stats.median >= NEAR_BEST_FRACTION)
            .count()
    }

    /// A row's resident warps over the SM's maximum, in percent.
    pub fn occupancy_percent(&self, row: &Row) -> f64 {
        occupancy_percent(row.resident_warps, self.limits.max_warps_per_sm())
    }

    /// Effective bandwidth of a row: the bytes one pass moves over its median time.
    pub fn gigabytes_per_second(&self, row: &Row) -> f64 {
        self.gigabytes_per_second_at(row.stats.median)
    }

    /// The bytes one pass moves over `milliseconds`, in GB/s.
    pub fn gigabytes_per_second_at(&self, milliseconds: f64) -> f64 {
        self.pass.gigabytes_per_second(milliseconds)
    }

    /// Whether rows took different numbers of samples (the noise-driven stop), or a race
    /// stopped some (marked `r` there, at as many samples as the rest): the table then has a
    /// `runs` column.
    pub fn samples_vary(&self) -> bool {
        let measured: Vec<&Row> = self.measured_rows().collect();
        measured.windows(2).any(|pair| pair[0].run_ms.len() != pair[1].run_ms.len())
            || measured.iter().any(|row| row.stopped == Some(Stopped::Raced))
    }

    /// The dynamic shared memory every row was launched with, where it is the same in all.
    pub fn constant_dynamic_shared_memory(&self) -> Option<u32> {
        let first = self.rows.first().map_or(0, |row| row.dynamic_shared_memory);
        self.rows.iter().all(|row| row.dynamic_shared_memory == first).then_some(first)
    }
}

#[cfg(test)]
/// Runs the sweep over `block_sizes` of the active kernel on `workload`, already uploaded.
/// Every row's occupancy query, suggestion, launch and model check get the workload's
/// dynamic shared memory at that block size. With `corrupt`, that output element is
/// overwritten on the device after every row's launches, and every row must then fail its
/// reference check at that index.
///
/// Returns `Err` only when the driver itself fails (a launch, a copy); failed checks are
/// collected in [`Sweep::failures`].
///
/// Each row's samples are taken as `timing` says: its mode, and a fixed count or the
/// noise-driven stop (`crate::measure::sampling::checked::sample`). Each row launches one full wave
/// ([`GridPolicy::OneWave`]); `measure` takes the grid policy too.
pub fn run(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    block_sizes: &[u32],
    timing: Timing,
    corrupt: Option<usize>,
) -> Result<Sweep> {
    measure(
        gpu,
        workload,
        &Plan {
            blocks: block_sizes.iter().copied().map(BlockShape::linear).collect(),
            timing,
            grid: GridPolicy::OneWave,
            corrupt,
            round: Round::All,
            shard: None,
            bounds: None,
            rungs_budget: RungsBudget::Exhaustive,
        },
    )
}

/// What one sweep measures, besides the kernel and its workload: the engine's options, as
/// the CLI's sweep ([`crate::commands::sweep`]) and a sweep of your own kernel
/// ([`crate::kernel::run`]) both give them to [`measure`].
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The block of each row, in order: a block size in x alone, or a shape.
    pub blocks: Vec<BlockShape>,
    /// How each row is timed.
    pub timing: Timing,
    /// How many blocks each row launches.
    pub grid: GridPolicy,
    /// Overwrite this output element after every row's launches (the `--corrupt-pixel`
    /// self-test); `None` in a real run.
    pub corrupt: Option<usize>,
    /// Which configurations it measures: all, or a race's round ([`crate::search::race`]).
    pub round: Round,
    /// One shard of the sweep's configurations alone (`--shard I/N`), where given.
    pub shard: Option<crate::model::shard::Shard>,
    /// What the kernel's PTX and the driver allow a block (`.reqntid`, `.maxntid`), where read:
    /// the block sizes they forbid are pruned with the directive named.
    pub bounds: Option<LaunchBounds>,
    /// What a race in rungs may spend.
    pub rungs_budget: RungsBudget,
}

/// What a race in rungs (`--search rungs`) may spend, in launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RungsBudget {
    /// What measuring every configuration spends at the least (each one's warm-ups and
    /// `--min-runs` samples): a race whose rows tie too closely to be dropped ends there, so
    /// that it never costs more than it saves.
    #[default]
    Exhaustive,
    /// No limit: every rung and the whole run-off, as the race's rules say (the tests of
    /// those rules, on sweeps of a few configurations).
    #[cfg(test)]
    Unlimited,
}

/// Which configurations a sweep measures: all of them, or one round of a race
/// ([`crate::search::race`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Round {
    /// Every configuration, to the end.
    #[default]
    All,
    /// A race's first round: every configuration, journaled apart from the second.
    First,
    /// A later rung of a race in rungs (1, 2, ...), journaled apart from the first round, the
    /// other rungs and the last round: these configurations alone, as in `Survivors`.
    Rung(u32, Vec<(AxisValues, BlockShape)>),
    /// A race's second round: these configurations alone, each as (its values on the axes,
    /// its block, its first round's samples), each sampled on from those to the noise-driven
    /// stop as a row measured to the end would have been (`checked::sample`'s `prior`).
    Survivors(Vec<(AxisValues, BlockShape, Vec<f32>)>),
    /// Every configuration launched as its plan's timing says, unchecked: a replay a
    /// profiler reads counters on (`--counters`, [`crate::measure::profiler`]).
    Replay,
}

impl Round {
    /// Whether this round measures the configuration of `axes` with blocks of `block`.
    fn measures(&self, axes: &AxisValues, block: BlockShape) -> bool {
        match self {
            Self::All | Self::First | Self::Replay => true,
            Self::Rung(_, alive) => alive.iter().any(|(values, alive)| values == axes && *alive == block),
            Self::Survivors(alive) => {
                alive.iter().any(|(values, alive, _)| values == axes && *alive == block)
            }
        }
    }

    /// The samples a configuration already holds, which this round samples on from: a race's
    /// second round's survivor's first round; none for any other round.
    fn prior(&self, axes: &AxisValues, block: BlockShape) -> &[f32] {
        match self {
            Self::Survivors(alive) => alive
                .iter()
                .find(|(values, alive, _)| values == axes && *alive == block)
                .map_or(&[], |(_, _, prior)| prior.as_slice()),
            _ => &[],
        }
    }
}

#[cfg(test)]
/// The sweep engine: [`run`] with every option of [`Plan`], the grid policy included.
/// The CLI's sweep and [`crate::kernel::run`] both measure through it.
pub fn measure(gpu: &mut dyn Gpu, workload: &mut dyn Workload, plan: &Plan) -> Result<Sweep> {
    measure_in(gpu, workload, plan, &mut Session::default())
}

/// What a sweep keeps beside its rows: the journal it writes and resumes from, and the
/// configuration of the axes its rows are of.
#[derive(Default)]
pub(crate) struct Session<'a> {
    /// Where finished configurations go, and those a resume skips.
    pub journal: Option<&'a mut Journal>,
    /// The values on the axes of this sweep's rows (a kernel of your own with axes).
    pub axes: AxisValues,
}

/// [`measure`], journaled: a configuration the journal's resume holds is taken from it, not
/// measured; each one measured is appended to the journal as it finishes. A launch fault marks
/// its configuration failed and the sweep goes on, unless it lost the context
/// ([`EndedEarly::ContextLost`]); a signal ends it with the rows so far
/// ([`EndedEarly::Interrupted`]).
pub(crate) fn measure_in(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    plan: &Plan,
    session: &mut Session,
) -> Result<Sweep> {
    let Plan { ref blocks, timing, grid, .. } = *plan;
    let limits = gpu.limits().clone();
    let resources = gpu.kernel_resources().context("reading the kernel's registers and shared memory")?;
    let model = SmModel::from_device(&limits);
    // Before any launch: a launch fault can leave the context unable to answer it.
    let suggestion =
        // The driver asks by thread count: each count as a block in x alone.
        gpu.suggestion(&|threads_per_block| workload.dynamic_shared_memory(BlockShape::linear(threads_per_block)))?;

    let mut tally = Tally {
        rows: Vec::with_capacity(blocks.len()),
        failures: Vec::new(),
        agreeing_rows: 0,
        ended_early: None,
    };
    let (items, domain) = (workload.pass().item_count(), workload.domain());
    let context = Context { plan, limits: &limits, model: model.as_ref(), resources, items, domain };
    for (index, &block) in blocks.iter().enumerate() {
        if !context.measure_block(&mut tally, gpu, workload, session, block, &blocks[index + 1..])? {
            break;
        }
    }
    let Tally { rows, mut failures, agreeing_rows, ended_early } = tally;

    if limits.warp_size != WARP_SIZE {
        failures.push(CheckFailure::WarpSize { reported: limits.warp_size });
    }

    let model_check = match model {
        Some(_) => ModelCheck::Ran { resources, agreeing_rows },
        None => ModelCheck::Unavailable { compute_capability: limits.compute_capability },
    };
    Ok(Sweep {
        limits,
        pass: workload.pass().clone(),
        timing,
        rows,
        grid,
        axes: Vec::new(),
        suggestion,
        model_check,
        failures,
        ended_early,
        search: crate::model::search::Search::Exhaustive,
        objective: Objective::Time,
        shard: None,
        wall_time: None,
        counters: None,
    })
}

/// What [`measure_in`] gathers over a round's configurations.
struct Tally {
    rows: Vec<Row>,
    failures: Vec<CheckFailure>,
    /// Rows at which the occupancy model agrees with the driver.
    agreeing_rows: usize,
    ended_early: Option<EndedEarly>,
}

/// What [`measure_in`] measures every configuration against.
struct Context<'a> {
    plan: &'a Plan,
    limits: &'a DeviceLimits,
    model: Option<&'a SmModel>,
    resources: KernelResources,
    /// The workload's items and its domain, which the grids cover.
    items: u64,
    domain: Option<[u64; 3]>,
}

impl Context<'_> {
    /// One configuration, `block` on the session's axes, into `tally`: pruned, taken from the
    /// journal, or measured; `rest` the blocks after it. `false` where the round ends here (a
    /// signal, or a lost context with configurations left).
    fn measure_block(
        &self,
        tally: &mut Tally,
        gpu: &mut dyn Gpu,
        workload: &mut dyn Workload,
        session: &mut Session,
        block: BlockShape,
        rest: &[BlockShape],
    ) -> Result<bool> {
        let Context { plan, limits, model, resources, .. } = *self;
        let Plan { ref round, .. } = *plan;
        if let Some(signal) = crate::measure::supervision::interrupt::requested() {
            tally.ended_early = Some(EndedEarly::Interrupted(signal));
            return Ok(false);
        }
        if !round.measures(&session.axes, block) {
            return Ok(true);
        }
        let Some((dynamic_shared_memory, blocks_per_sm, launched)) =
            self.place(tally, gpu, workload, block)?
        else {
            return Ok(true);
        };
        let resident_warps = blocks_per_sm * warps_per_block(block.threads());
        // This row's checks count only once it is finished: a row a signal cuts short leaves
        // nothing behind.
        let (failures_before, agreeing_before) = (tally.failures.len(), tally.agreeing_rows);
        tally.failures.extend(residency_failures(limits, block, blocks_per_sm, resident_warps));

        let limiters = match model {
            Some(model) => {
                let (limiters, agrees) =
                    model_check(model, resources, block, dynamic_shared_memory, blocks_per_sm);
                match agrees {
                    Ok(()) => tally.agreeing_rows += 1,
                    Err(failure) => tally.failures.push(failure),
                }
                limiters
            }
            None => Vec::new(),
        };
        let configuration = match round {
            Round::Rung(rung, _) => Configuration::of_rung(block, session.axes.clone(), *rung),
            _ => Configuration::new(block, session.axes.clone(), *round == Round::First),
        };
        let resumed = session.journal.as_ref().and_then(|journal| journal.resumed(&configuration).cloned());
        let mut context_lost = false;
        let mut entry = match resumed {
            Some(entry) => entry,
            None => {
                match measure_configuration(gpu, workload, session, configuration, (block, launched), plan)? {
                    Measurement::Entry { entry, context_lost: lost } => {
                        context_lost = lost;
                        *entry
                    }
                    Measurement::Interrupted(signal) => {
                        tally.ended_early = Some(EndedEarly::Interrupted(signal));
                        tally.failures.truncate(failures_before);
                        tally.agreeing_rows = agreeing_before;
                        return Ok(false);
                    }
                }
            }
        };
        if let Some(mismatch) = entry.mismatch.take() {
            tally.failures.push(CheckFailure::WrongOutput { block, mismatch });
        }
        if let Some(reason) = &entry.failed {
            tally.failures.push(CheckFailure::Failed { block, reason: reason.clone() });
        }
        tally.rows.push(measured_row(block, launched, blocks_per_sm, dynamic_shared_memory, limiters, entry));
        gpu.row_finished();
        let configurations_left = rest.iter().filter(|&&block| round.measures(&session.axes, block)).count();
        if context_lost && configurations_left > 0 {
            tally.ended_early = Some(EndedEarly::ContextLost { configurations_left });
            return Ok(false);
        }
        Ok(true)
    }

    /// Where `block` goes: its dynamic shared memory, the driver's blocks per SM and its grid;
    /// `None` where it cannot be launched (its pruned row in `tally`, with the reason).
    fn place(
        &self,
        tally: &mut Tally,
        gpu: &mut dyn Gpu,
        workload: &mut dyn Workload,
        block: BlockShape,
    ) -> Result<Option<(u32, u32, GridShape)>> {
        let Context { plan, limits, model, resources, items, domain } = *self;
        let Plan { grid, ref bounds, .. } = *plan;
        let threads_per_block = block.threads();
        let dynamic_shared_memory = workload.dynamic_shared_memory(block);
        // Not launched, not queried: the row says why, and the sweep goes on.
        let pruned = |reason: String| pruned_row(block, dynamic_shared_memory, reason);
        if let Some(reason) = refusal(limits, model, resources, bounds.as_ref(), block, dynamic_shared_memory)
        {
            tally.rows.push(pruned(reason));
            return Ok(None);
        }
        let blocks_per_sm = gpu
            .blocks_per_sm(threads_per_block, dynamic_shared_memory)
            .with_context(|| format!("occupancy query {}", at_block(block)))?;
        let covers = workload.block_covers(block);
        let launched = grid.grid_for(blocks_per_sm, limits.multiprocessors, items, domain, block, covers);
        if let Err(reason) = launched.check(limits.max_grid_dimensions) {
            tally.rows.push(pruned(reason));
            return Ok(None);
        }
        Ok(Some((dynamic_shared_memory, blocks_per_sm, launched)))
    }
}

/// What measuring one configuration gave: its journal entry, and whether its launch fault lost
/// the GPU's context; or the signal that cut it short (nothing of it kept).
enum Measurement {
    Entry { entry: Box<journal::Entry>, context_lost: bool },
    Interrupted(crate::measure::supervision::interrupt::Signal),
}

/// Measures `configuration` at `launched` (checked in a first round, sampled as known in a
/// later one) with the watchdog watching it, and journals it: a hang is journaled as failed
/// from the watchdog's thread, so that the next worker goes on after it.
fn measure_configuration(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    session: &mut Session,
    configuration: Configuration,
    (block, launched): (BlockShape, GridShape),
    plan: &Plan,
) -> Result<Measurement> {
    let Plan { timing, corrupt, ref round, .. } = *plan;
    let mut context_lost = false;
    gpu.watchdog().set_current(Some(configuration.to_string()));
    // A hang ends this process from the watchdog's thread: the configuration is
    // journaled as failed first, so that the next worker goes on after it.
    if let Some(journal) = session.journal.as_deref()
        && let Some(record) = journal.for_hangs()
    {
        let entry = journal.entry(configuration.clone());
        gpu.watchdog().on_hang(move |_, message| {
            record(journal::Entry { failed: Some(message.to_string()), ..entry.clone() })
        });
    }
    // A later round samples what the first round checked: every configuration
    // it measures was in the first round (`Round::measures`).
    let verdict = match round {
        Round::All | Round::First => checked::Verdict::Check { corrupt },
        Round::Rung(..) | Round::Survivors(_) | Round::Replay => checked::Verdict::Known,
    };
    let prior = round.prior(&session.axes, block);
    let measured = checked::measure(gpu, workload, launched, block, timing, verdict, prior);
    gpu.watchdog().set_current(None);
    let mut entry = match &session.journal {
        Some(journal) => journal.entry(configuration),
        None => journal::Entry::unkeyed(configuration),
    };
    match measured {
        Ok(Checked { run_ms, stopped, mismatch, clock, energy }) => {
            (entry.run_ms, entry.stopped, entry.mismatch) = (run_ms, stopped, mismatch);
            (entry.clock, entry.energy) = (clock, energy);
        }
        Err(error) => {
            if let Some(&Interrupted(signal)) = error.downcast_ref::<Interrupted>() {
                return Ok(Measurement::Interrupted(signal));
            }
            let Some(fault) = gpu.launch_fault(&error) else { return Err(error) };
            context_lost = fault.context_lost;
            entry.failed = Some(format!("the launch failed: {error:#}"));
        }
    }
    if let Some(journal) = session.journal.as_deref_mut() {
        journal.record(&entry).map_err(|error| anyhow::anyhow!(error))?;
    }
    Ok(Measurement::Entry { entry: Box::new(entry), context_lost })
}

/// A measured configuration's row: its block and grid, the driver's residency, the model's
/// limiters, and what its journal entry holds (samples, stop, failure, sensors).
fn measured_row(
    block: BlockShape,
    grid: GridShape,
    blocks_per_sm: u32,
    dynamic_shared_memory: u32,
    limiters: Vec<Limiter>,
    entry: journal::Entry,
) -> Row {
    let threads_per_block = block.threads();
    let warps = warps_per_block(threads_per_block);
    Row {
        threads_per_block,
        block,
        warps_per_block: warps,
        idle_lanes: idle_lanes(threads_per_block),
        blocks_per_sm,
        resident_warps: blocks_per_sm * warps,
        grid_blocks: grid.blocks_within_u32(),
        grid,
        dynamic_shared_memory,
        limiters,
        stats: RunStats::of(&entry.run_ms),
        run_ms: entry.run_ms,
        stopped: entry.stopped,
        axes: AxisValues::none(),
        failed: entry.failed,
        pruned: None,
        clock: entry.clock,
        energy: entry.energy,
        counters: None,
    }
}

/// A configuration not launched and not queried, with the reason.
fn pruned_row(block: BlockShape, dynamic_shared_memory: u32, reason: String) -> Row {
    let threads_per_block = block.threads();
    Row {
        threads_per_block,
        block,
        warps_per_block: warps_per_block(threads_per_block),
        idle_lanes: idle_lanes(threads_per_block),
        blocks_per_sm: 0,
        resident_warps: 0,
        grid_blocks: 0,
        grid: GridShape::linear(0),
        dynamic_shared_memory,
        limiters: Vec::new(),
        run_ms: Vec::new(),
        stopped: None,
        stats: RunStats::of(&[]),
        axes: AxisValues::none(),
        failed: None,
        pruned: Some(reason),
        clock: None,
        energy: None,
        counters: None,
    }
}

/// Why `block` cannot be launched, where it cannot: its shape past the device's bounds (a block
/// in x alone past the device's threads is the model's to name, as always), the model's reason,
/// or the kernel's launch bounds.
fn refusal(
    limits: &DeviceLimits,
    model: Option<&SmModel>,
    resources: KernelResources,
    bounds: Option<&LaunchBounds>,
    block: BlockShape,
    dynamic_shared_memory: u32,
) -> Option<String> {
    let shape_refused = (!block.is_linear())
        .then(|| block.check(limits.max_block_dimensions, limits.max_threads_per_block).err())
        .flatten();
    shape_refused
        .or_else(|| {
            crate::model::prune::cannot_launch(
                limits,
                model,
                resources,
                block.threads(),
                dynamic_shared_memory,
            )
        })
        .or_else(|| bounds.and_then(|bounds| bounds.refuses(block)))
}

/// The driver's residency against the device's own caps: none resident, or past the blocks or
/// warps an SM holds.
fn residency_failures(
    limits: &DeviceLimits,
    block: BlockShape,
    blocks_per_sm: u32,
    resident_warps: u32,
) -> Vec<CheckFailure> {
    let mut failures = Vec::new();
    if blocks_per_sm == 0 {
        failures.push(CheckFailure::NoResidency { block });
    }
    if blocks_per_sm > limits.max_blocks_per_sm {
        failures.push(CheckFailure::BlockCapExceeded { block, blocks_per_sm, cap: limits.max_blocks_per_sm });
    }
    if resident_warps > limits.max_warps_per_sm() {
        failures.push(CheckFailure::WarpCapExceeded {
            block,
            resident_warps,
            cap: limits.max_warps_per_sm(),
        });
    }

    failures
}

/// The occupancy model's answer for `block` beside the driver's `blocks_per_sm`: the limiters,
/// and whether they agree (else the failed check).
fn model_check(
    model: &SmModel,
    resources: KernelResources,
    block: BlockShape,
    dynamic_shared_memory: u32,
    blocks_per_sm: u32,
) -> (Vec<Limiter>, Result<(), CheckFailure>) {
    // The shared memory a block holds: the kernel's static plus the launch's dynamic.
    let shared = resources.static_shared_memory.saturating_add(dynamic_shared_memory);
    let occupancy = model.occupancy(block.threads(), resources.registers_per_thread, shared);
    let predicted = occupancy.blocks_per_sm;
    let agrees = match predicted == blocks_per_sm {
        true => Ok(()),
        false => Err(CheckFailure::ModelDisagrees { block, model: predicted, driver: blocks_per_sm }),
    };
    (occupancy.limiters, agrees)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::mock::{H200_BLOCKS_PER_SM_AT_16_KIB, MockGpu};
    use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
    use crate::tests::fixture;

    const TIMING: Timing = Timing::launch(3, 10);

    /// The fixture's kernel over `width` x `height` values, uploaded to `gpu`.
    fn grayscale(gpu: &mut MockGpu, width: u32, height: u32) -> Box<dyn Workload> {
        fixture::workload(gpu, fixture::kernel((width * height) as usize))
    }

    fn sweep(gpu: &mut MockGpu, width: u32, height: u32, sizes: &[u32]) -> Sweep {
        let mut workload = grayscale(gpu, width, height);
        run(gpu, workload.as_mut(), sizes, TIMING, None).unwrap()
    }

    #[test]
    fn clean_sweep_has_one_row_per_size_and_no_failures() {
        let mut gpu = fixture::gpu();
        let result = sweep(&mut gpu, 64, 64, &[32, 100, 256]);
        assert!(result.failures.is_empty(), "{:?}", result.failures);
        let threads: Vec<u32> = result.rows.iter().map(|r| r.threads_per_block).collect();
        assert_eq!(threads, [32, 100, 256]);
        let row = &result.rows[1];
        assert_eq!(
            (row.warps_per_block, row.idle_lanes, row.blocks_per_sm, row.resident_warps),
            (4, 28, 16, 64)
        );
    }

    #[test]
    fn every_row_launches_warmups_then_timed_runs_with_its_grid() {
        let mut gpu = fixture::gpu();
        // 4096 pixels at 256 threads need 16 blocks, fewer than one wave of 8 x 132.
        sweep(&mut gpu, 64, 64, &[256, 1024]);
        assert_eq!(gpu.launches.len(), 2 * 13);
        assert!(gpu.launches[..13].iter().all(|&launch| launch == (16, 256)));
        assert!(gpu.launches[13..].iter().all(|&launch| launch == (4, 1024)));
    }

    #[test]
    fn corrupted_output_is_reported_at_every_row() {
        let mut gpu = fixture::gpu();
        let mut workload = grayscale(&mut gpu, 256, 256);
        let result = run(&mut gpu, workload.as_mut(), &[128, 256], TIMING, Some(40_960)).unwrap();
        let want = 2.0 * fixture::input(40_960);
        let expected = |threads_per_block| CheckFailure::WrongOutput {
            block: BlockShape::linear(threads_per_block),
            mismatch: Mismatch {
                index: None,
                description: format!("value 40960 is NaN, the CPU reference says {want}"),
            },
        };
        assert_eq!(result.failures, [expected(128), expected(256)]);
    }

    #[test]
    fn residency_above_the_caps_is_a_failure() {
        let mut gpu = fixture::gpu();
        gpu.blocks_per_sm = vec![(64, 33), (512, 5)];
        let result = sweep(&mut gpu, 32, 32, &[64, 512]);
        assert_eq!(
            result.failures,
            [
                CheckFailure::BlockCapExceeded { block: BlockShape::linear(64), blocks_per_sm: 33, cap: 32 },
                CheckFailure::WarpCapExceeded { block: BlockShape::linear(64), resident_warps: 66, cap: 64 },
                CheckFailure::ModelDisagrees { block: BlockShape::linear(64), model: 32, driver: 33 },
                CheckFailure::WarpCapExceeded { block: BlockShape::linear(512), resident_warps: 80, cap: 64 },
                CheckFailure::ModelDisagrees { block: BlockShape::linear(512), model: 4, driver: 5 },
            ]
        );
    }

    #[test]
    fn a_configuration_the_model_cannot_launch_is_pruned_with_its_reason() {
        let mut gpu = fixture::gpu();
        gpu.blocks_per_sm = vec![(1024, 0)];
        // 128 registers per thread: no 1024-thread block fits; 512 threads do.
        gpu.resources.registers_per_thread = 128;
        let result = sweep(&mut gpu, 32, 32, &[512, 1024]);
        assert_eq!(result.failures, []);
        let pruned = &result.rows[1];
        assert_eq!((pruned.threads_per_block, pruned.grid_blocks, pruned.run_ms.len()), (1024, 0, 0));
        assert_eq!(
            pruned.pruned.as_deref(),
            Some("128 registers a thread x 1024 threads, above the 65536 registers a block may hold")
        );
        assert_eq!(result.measured_rows().count(), 1);
        assert_eq!(result.model_check.agreeing_rows(), 1);
        // It was neither queried nor launched.
        assert!(gpu.launches.iter().all(|&(_, threads)| threads == 512), "{:?}", gpu.launches);
        let table = crate::results::table::body(&result, false);
        assert!(table.contains("    0%       0    pruned        -        -  cannot launch\n"), "{table}");
        assert!(
            table.contains(
                "Not launched, 1 configuration(s) the device cannot launch (docs/search.md): \
                 1024 threads: 128 registers a thread x 1024 threads, above the 65536 registers a block may hold.\n"
            ),
            "{table}"
        );
    }

    #[test]
    fn zero_residency_the_model_does_not_predict_fails_but_still_launches_one_block() {
        let mut gpu = fixture::gpu();
        gpu.blocks_per_sm = vec![(1024, 0)];
        let result = sweep(&mut gpu, 32, 32, &[1024]);
        assert_eq!(result.rows[0].grid_blocks, 1);
        assert_eq!(
            result.failures,
            [
                CheckFailure::NoResidency { block: BlockShape::linear(1024) },
                CheckFailure::ModelDisagrees { block: BlockShape::linear(1024), model: 2, driver: 0 }
            ]
        );
    }

    #[test]
    fn no_residency_names_the_block_in_words_for_a_size_and_for_a_shape() {
        let said = |block: &str| CheckFailure::NoResidency { block: block.parse().unwrap() }.to_string();
        assert!(
            said("1024")
                .starts_with("the driver fits no block of this kernel on an SM at 1024 threads per block;")
        );
        assert!(said("32x8").starts_with("the driver fits no block of this kernel on an SM at block 32x8;"));
    }

    #[test]
    fn model_and_driver_agree_on_every_row_of_an_h200() {
        let mut gpu = fixture::gpu();
        let result = sweep(&mut gpu, 16, 16, &DEFAULT_BLOCK_SIZES);
        assert_eq!(result.failures, []);
        assert_eq!(
            result.model_check,
            ModelCheck::Ran {
                resources: KernelResources {
                    registers_per_thread: 16,
                    static_shared_memory: 0,
                    local_bytes_per_thread: 0
                },
                agreeing_rows: 13
            }
        );
    }

    #[test]
    fn a_disagreement_with_the_model_names_the_row() {
        let mut gpu = fixture::gpu();
        // Within every cap, but one block fewer than the model predicts.
        gpu.blocks_per_sm = vec![(64, 32), (96, 20)];
        let result = sweep(&mut gpu, 16, 16, &[64, 96]);
        assert_eq!(
            result.failures,
            [CheckFailure::ModelDisagrees { block: BlockShape::linear(96), model: 21, driver: 20 }]
        );
        assert_eq!(
            result.failures[0].to_string(),
            "at 96 threads per block the occupancy model predicts 21 blocks/SM, the driver says 20"
        );
    }

    #[test]
    fn no_model_before_volta_is_reported_not_failed() {
        let mut gpu = fixture::gpu();
        gpu.limits.compute_capability = (6, 1);
        let result = sweep(&mut gpu, 8, 8, &[64]);
        assert_eq!(result.failures, []);
        assert_eq!(result.model_check, ModelCheck::Unavailable { compute_capability: (6, 1) });
    }

    #[test]
    fn an_architecture_the_model_does_not_know_runs_unchecked() {
        // A B200 (10.0): whatever its residency, the model does not judge it.
        let mut gpu = fixture::gpu();
        gpu.limits.compute_capability = (10, 0);
        gpu.blocks_per_sm = vec![(64, 24), (96, 20)];
        let result = sweep(&mut gpu, 16, 16, &[64, 96]);
        assert_eq!(result.failures, []);
        assert_eq!(result.model_check, ModelCheck::Unavailable { compute_capability: (10, 0) });
    }

    #[test]
    fn a_warp_size_other_than_32_fails_the_run() {
        let mut gpu = fixture::gpu();
        gpu.limits.warp_size = 64;
        gpu.limits.max_threads_per_sm = 4096;
        let result = sweep(&mut gpu, 8, 8, &[64]);
        assert_eq!(result.failures, [CheckFailure::WarpSize { reported: 64 }]);
    }

    #[test]
    fn driver_errors_abort_the_sweep() {
        let mut gpu = fixture::gpu();
        gpu.fail_launch_at = Some(64);
        let mut workload = grayscale(&mut gpu, 8, 8);
        let error = run(&mut gpu, workload.as_mut(), &[32, 64], TIMING, None).unwrap_err();
        assert_eq!(
            format!("{error:#}"),
            "launching 1 blocks of 64 threads: launch failed: mock driver error at 64 threads per block"
        );
    }

    #[test]
    fn every_run_is_kept_and_summarised() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(128, 0.1)];
        gpu.run_spread = 0.1;
        let result = sweep(&mut gpu, 64, 64, &[128]);
        let row = &result.rows[0];
        assert_eq!(row.run_ms.len(), 10);
        // Runs alternate 0.09, 0.10, 0.11 (in f32): median 0.10, MAD 0.01.
        assert!(
            (row.stats.median - 0.1).abs() < 1e-6 && (row.stats.mad - 0.01).abs() < 1e-6,
            "{:?}",
            row.stats
        );
        assert!((row.stats.min - 0.09).abs() < 1e-6 && (row.stats.max - 0.11).abs() < 1e-6);
    }

    #[test]
    fn l2_is_flushed_before_every_timed_run_when_asked() {
        let mut gpu = fixture::gpu();
        let mut workload = grayscale(&mut gpu, 8, 8);
        run(&mut gpu, workload.as_mut(), &[32, 64], Timing { flush_l2: true, ..TIMING }, None).unwrap();
        assert_eq!(gpu.l2_flushes, 20);
    }

    #[test]
    fn rows_within_the_noise_of_the_best_are_recognised() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(64, 0.100), (128, 0.101), (256, 0.110)];
        gpu.run_spread = 0.01;
        let result = sweep(&mut gpu, 64, 64, &[64, 128, 256]);
        // MADs are about 0.001 each: 0.101 is within 0.002 of 0.100, 0.110 is not.
        let marked: Vec<bool> = result.rows.iter().map(|row| result.within_noise_of_best(row)).collect();
        assert_eq!(marked, [false, true, false]);
    }

    #[test]
    fn best_fraction_and_near_best_count_use_median_times() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(32, 0.200), (64, 0.104), (128, 0.100), (256, 0.106)];
        let result = sweep(&mut gpu, 64, 64, &[32, 64, 128, 256]);
        assert_eq!(result.best().unwrap().threads_per_block, 128);
        assert_eq!(result.fraction_of_best(&result.rows[0]), f64::from(0.1f32) / f64::from(0.2f32));
        // 0.100/0.104 = 0.96 and 0.100/0.106 = 0.943: two rows besides the best are
        // checked, and only one of them reaches 95 percent.
        assert_eq!(result.rows_near_best(), 2);
    }

    #[test]
    fn bandwidth_is_bytes_moved_over_time() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(256, 0.5)];
        let mut result = sweep(&mut gpu, 8, 8, &[256]);
        // Bandwidth depends on the bytes a pass moves alone: a 4K frame moves 132,710,400.
        result.pass.bytes_per_pass = 132_710_400.0;
        assert!((result.gigabytes_per_second(&result.rows[0]) - 265.4208).abs() < 1e-9);
    }

    /// An H200 and the fixture's kernel over 10403 values with `shared` bytes of dynamic shared
    /// memory a block; at 16 KiB the driver answers [`H200_BLOCKS_PER_SM_AT_16_KIB`], at 1 KiB and
    /// less the column of a kernel without any, which shared memory does not bind.
    fn shared_gpu(shared: u32) -> (MockGpu, Box<dyn Workload>) {
        let mut gpu = fixture::gpu();
        if shared == 16384 {
            gpu.answer_16_kib_as_the_h200();
        }
        let kernel = fixture::kernel(101 * 103).dynamic_shared_memory(move |_, _| shared);
        let workload = fixture::workload(&mut gpu, kernel);
        (gpu, workload)
    }

    #[test]
    fn a_sweep_passes_its_shared_memory_everywhere_and_the_model_agrees() {
        let (mut gpu, mut workload) = shared_gpu(16384);
        let sizes = DEFAULT_BLOCK_SIZES;
        let result = run(&mut gpu, workload.as_mut(), &sizes, TIMING, None).unwrap();
        assert_eq!(result.failures, []);
        assert_eq!(result.model_check, ModelCheck::Ran { resources: gpu.resources, agreeing_rows: 13 });
        let blocks: Vec<u32> = result.rows.iter().map(|row| row.blocks_per_sm).collect();
        assert_eq!(blocks, H200_BLOCKS_PER_SM_AT_16_KIB, "the scripted driver answered for 16384 B");
        // The occupancy query, the suggestion's function and every launch got 16 KiB.
        assert!(gpu.occupancy_queries.borrow().iter().all(|&(_, smem)| smem == 16384));
        assert_eq!(*gpu.suggestion_queries.borrow(), [[16384; 3]]);
        assert_eq!(gpu.last_launch.as_ref().unwrap().dynamic_shared_memory, 16384);
        assert!(result.rows.iter().all(|row| row.dynamic_shared_memory == 16384));
        let limiters: Vec<String> =
            result.rows.iter().map(|row| crate::model::sm::limiter_names(&row.limiters)).collect();
        assert_eq!(limiters[..6], ["shared memory"; 6]);
        assert_eq!(limiters[6..], ["warps"; 7]);
        // 10403 values: at 128 threads, ceil(10403 / 128) = 82 blocks, below the wave of 13 x 132.
        assert_eq!(result.rows[5].grid_blocks, 82);
    }

    #[test]
    fn a_driver_that_ignores_the_shared_memory_disagrees_with_the_model() {
        // What the driver would say if the launch's 16 KiB were lost.
        let (mut gpu, mut workload) = shared_gpu(16384);
        gpu.shared_memory_residency.clear();
        gpu.blocks_per_sm = vec![(64, 32), (256, 8)];
        let result = run(&mut gpu, workload.as_mut(), &[64, 256], TIMING, None).unwrap();
        assert_eq!(
            result.failures,
            [CheckFailure::ModelDisagrees { block: BlockShape::linear(64), model: 13, driver: 32 }]
        );
    }

    #[test]
    fn a_kernel_that_computes_one_value_wrong_fails_its_rows() {
        let (mut gpu, mut workload) = shared_gpu(1024);
        gpu.wrong_kernel = Some(fixture::MODULE.kernel("scale"));
        gpu.wrong_element = 5;
        let result = run(&mut gpu, workload.as_mut(), &[256], TIMING, None).unwrap();
        let [CheckFailure::WrongOutput { mismatch, .. }] = result.failures.as_slice() else {
            panic!("{:?}", result.failures)
        };
        assert_eq!(mismatch.description, "value 5 is -1, the CPU reference says 1.25");
    }
}
