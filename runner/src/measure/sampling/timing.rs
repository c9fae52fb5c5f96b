/*!
How a row is timed: four ways of putting launches between CUDA events ([`TimingMode`]), the
sequence of stream operations each of them enqueues ([`schedule`]: both backends execute it
op by op, so the mock's record of it is what the driver is asked to do), and the noise-driven
stop ([`decide`]) that takes samples until their relative spread is small enough or the row's
time budget is spent.

- **batch** (block_size.cu's method): `launches_per_sample` launches back to back between one
  pair of events; a sample is their mean. Launch gaps are hidden behind the kernels in
  flight, and the event resolution is divided by the batch.
- **cold**: one launch per sample between its own events, after an L2 flush, every sample of
  a window enqueued behind a blocking kernel ([`BLOCKING_KERNEL`]) that the host releases
  once they all are, so they run back to back from a full queue: no host work and no launch
  gap of the host's between a sample's events, and no data left in L2 by the one before.
- **launch** (this program's method before batch and cold): one launch per sample between
  its own events, the host waiting for each before it enqueues the next.
- **graph**: batch's `launches_per_sample` launches captured once a row into a CUDA graph
  ([`Op::Graph`]), each sample one replay of it between one pair of events outside the graph;
  a sample is the replay's time over its launches. Of the host's launch calls only the
  replay's one is inside it (once over all the launches), and of the gaps between launches
  only those between the graph's kernel nodes.
*/

use crate::measure::gpu::ptx::{BLOCKING_MODULE, KernelRef};
use crate::model::stats::RunStats;
use anyhow::Result;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::time::Duration;

/// The kernel cold timing enqueues ahead of its samples: `block_until_released(flag, timeout_ns)`
/// in the cuda_builder module (`kernels/src/spin.rs`).
pub const BLOCKING_KERNEL: KernelRef = BLOCKING_MODULE.kernel("block_until_released");

/// How long the blocking kernel waits for the host's release before it gives up, so that a
/// host that stalls or dies never holds the GPU for long. Enqueuing a window of cold samples
/// takes well under a millisecond.
pub const BLOCKING_TIMEOUT: Duration = Duration::from_secs(5);

/// Cold samples queued behind one blocking kernel: few enough that the driver's queue never
/// fills (a full queue would block the host before its release, until the timeout).
pub const COLD_WINDOW: u32 = 32;

/// Launches per batch sample unless asked otherwise: block_size.cu's ten.
pub const DEFAULT_BATCH_LAUNCHES: u32 = 10;

/// How long a batch or graph sample lasts at least unless `--launches-per-sample` fixes its
/// launches: 200 times the resolution of CUDA events (about 0.5 µs), so that the resolution
/// is at most the noise-driven stop's 0.5 percent of a sample. A kernel of 10 µs or more fills
/// it with block_size.cu's ten launches; a 2 µs one takes 50.
pub const MIN_SAMPLE: Duration = Duration::from_micros(100);

/// The most launches a sample grows to ([`Timing::min_sample`]): 0.1 ms of 10 ns launches,
/// shorter than any kernel launch takes.
pub const MAX_GROWN_LAUNCHES: u32 = 10_000;

/// How the launches of one sample sit between CUDA events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimingMode {
    /// Several launches back to back between one pair of events; the sample is their mean.
    Batch,
    /// One launch per sample after an L2 flush, every sample queued behind a blocking kernel.
    Cold,
    /// One launch per sample between its own events, the host waiting for each.
    Launch,
    /// Several launches captured once a row into a CUDA graph, each sample one replay of it
    /// between one pair of events; the sample is their mean.
    Graph,
}

impl TimingMode {
    #[cfg(test)]
    pub(crate) const ALL: [Self; 4] = [Self::Batch, Self::Cold, Self::Launch, Self::Graph];

    /// Whether a sample is several launches between one pair of events (batch, graph):
    /// `--launches-per-sample` applies, a short kernel's samples grow, a flush comes before each
    /// sample; else a sample is one launch, a run (cold, launch). Every rule that tells the two
    /// families apart asks this.
    pub(crate) const fn batches(self) -> bool {
        match self {
            Self::Batch | Self::Graph => true,
            Self::Cold | Self::Launch => false,
        }
    }

    /// What one of its samples is called: a batch, a graph's replay ("samples"), or one launch
    /// ("runs").
    pub(crate) const fn sample_noun(self) -> &'static str {
        if self.batches() { "samples" } else { "runs" }
    }

    /// What `--timing` takes and the JSON export writes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Batch => "batch",
            Self::Cold => "cold",
            Self::Launch => "launch",
            Self::Graph => "graph",
        }
    }
}

impl std::fmt::Display for TimingMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The noise-driven stop: after the minimum count ([`Timing::runs`]), take samples until
/// their relative spread (median absolute deviation over median) is at most `max_noise`, or
/// until `max_time_per_row` of host time has passed since the row's first sample, or until
/// `max_runs` samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoiseStop {
    /// Stop once MAD over median is at most this fraction.
    pub max_noise: f64,
    /// Stop once a row has run this long (host time, after its warm-ups).
    #[serde(rename = "max_time_per_row_s", serialize_with = "seconds", deserialize_with = "from_seconds")]
    pub max_time_per_row: Duration,
    /// Stop at this many samples.
    pub max_runs: u32,
}

impl NoiseStop {
    /// Half a percent, half a second a row, ten thousand samples at most.
    pub const DEFAULT: Self =
        Self { max_noise: 0.005, max_time_per_row: Duration::from_millis(500), max_runs: 10_000 };
}

fn seconds<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(duration.as_secs_f64())
}

fn from_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom)
}

/// What the L2 held when a timed launch started, as the exports say it (`l2_flush`): one
/// field for what `--timing`, `--flush-l2` and `--no-flush-l2` did together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum L2Flush {
    /// No flush: each sample may find in L2 what the one before left there (batch, launch and
    /// graph timing by default; cold timing with `--no-flush-l2`).
    None,
    /// Flushed before every sample, and every sample is one launch: each timed launch starts
    /// with a cold L2 (cold timing; launch timing with `--flush-l2`).
    BeforeEachLaunch,
    /// Flushed before every batch sample: its first launch starts cold, the others find
    /// what the launch before them left (batch or graph timing with `--flush-l2`; in graph
    /// timing before each replay, outside the graph).
    BeforeEachBatch,
}

impl L2Flush {
    /// Its name in the exports: `none`, `before_each_launch`, `before_each_batch`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::BeforeEachLaunch => "before_each_launch",
            Self::BeforeEachBatch => "before_each_batch",
        }
    }
}

/// How each row is timed: the mode, the warm-ups, how many samples, the L2 flush and the
/// noise-driven stop. The exports write it with the flush as one field, `l2_flush`
/// ([`L2Flush`]), and read it back from that.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(into = "TimingRecord", try_from = "TimingRecord")]
pub struct Timing {
    /// How a sample's launches sit between events.
    pub mode: TimingMode,
    /// Untimed launches first, so the row does not pay for lazy module loading or clocks.
    pub warmups: u32,
    /// Samples: exactly this many, or with `stop` at least this many.
    pub runs: u32,
    /// Launches between one pair of events in batch mode, and in the graph each sample replays
    /// in graph mode (the other modes take one a sample); with `min_sample`, the fewest.
    pub launches_per_sample: u32,
    /// Batch and graph: each row's launches a sample grown from `launches_per_sample` so that
    /// a sample lasts at least this long (a calibration sample after the warm-ups times a
    /// launch); `None`: exactly `launches_per_sample` (`--launches-per-sample`).
    pub min_sample: Option<Duration>,
    /// Overwrite a scratch buffer of twice the L2 before each sample, outside the timed
    /// interval, so no sample finds the previous one's data in L2 (cold timing does unless
    /// `cold_keeps_l2`).
    pub flush_l2: bool,
    /// Cold timing without its L2 flush (`--no-flush-l2`): samples still queued behind the
    /// blocking kernel, each finding in L2 what the one before left there.
    pub cold_keeps_l2: bool,
    /// `None`: exactly `runs` samples. `Some`: at least `runs`, then until the noise-driven
    /// stop says so.
    pub stop: Option<NoiseStop>,
    /// `--energy`: after its samples, each row's energy is read over at least this long a
    /// window of the GPU's energy counter (`crate::measure::sensors`); `None`: no energy.
    pub energy_window: Option<Duration>,
}

impl Timing {
    /// `runs` samples of `mode` after `warmups` warm-ups, with the mode's default launches
    /// per sample, no flush asked for and a fixed count.
    pub const fn fixed(mode: TimingMode, warmups: u32, runs: u32) -> Self {
        let launches_per_sample = if mode.batches() { DEFAULT_BATCH_LAUNCHES } else { 1 };
        Self {
            mode,
            warmups,
            runs,
            launches_per_sample,
            flush_l2: false,
            cold_keeps_l2: false,
            stop: None,
            energy_window: None,
            min_sample: None,
        }
    }

    /// This program's method before batch and cold: `runs` launches after `warmups`, each
    /// between its own events, a fixed count.
    pub const fn launch(warmups: u32, runs: u32) -> Self {
        Self::fixed(TimingMode::Launch, warmups, runs)
    }

    /// The same with the noise-driven stop, `runs` being the minimum.
    pub const fn until(self, stop: NoiseStop) -> Self {
        Self { stop: Some(stop), ..self }
    }

    /// Whether a sample's launches grow for short kernels: batch or graph with a `min_sample`.
    pub fn may_grow(&self) -> bool {
        self.min_sample.is_some() && self.mode.batches()
    }

    /// Launches a sample needs to last `min_sample` where one launch takes `launch_ms`: at
    /// least `launches_per_sample`, at most [`MAX_GROWN_LAUNCHES`]; `launches_per_sample`
    /// where nothing asks it to grow (a fixed count, another mode, an unknown time).
    pub fn grown_launches(&self, launch_ms: f64) -> u32 {
        let base = self.launches();
        match self.min_sample {
            Some(min) if self.may_grow() && launch_ms > 0.0 => {
                let needed = (min.as_secs_f64() * 1e3 / launch_ms).ceil();
                if needed.is_finite() {
                    (needed.min(f64::from(MAX_GROWN_LAUNCHES)) as u32).max(base)
                } else {
                    base
                }
            }
            _ => base,
        }
    }

    /// The time `samples` (each a launch's milliseconds) took on the device, their launches
    /// counted as [`Timing::launches`] says: what a row's noise-driven stop counts against its
    /// budget for samples it already holds (a race's first round, the rungs so far, a journal's
    /// resumed row).
    pub(crate) fn samples_own_time(&self, samples: &[f32]) -> Duration {
        let ms: f64 = samples.iter().map(|&ms| f64::from(ms)).sum::<f64>() * f64::from(self.launches());
        Duration::from_secs_f64(ms.max(0.0) / 1e3)
    }

    /// Launches one sample holds: `launches_per_sample` in batch and graph mode, else 1.
    pub fn launches(&self) -> u32 {
        if self.mode.batches() { self.launches_per_sample.max(1) } else { 1 }
    }

    /// Whether L2 is flushed before each sample: in cold mode unless `cold_keeps_l2`, where
    /// asked otherwise.
    pub fn flushes(&self) -> bool {
        (self.mode == TimingMode::Cold && !self.cold_keeps_l2) || self.flush_l2
    }

    /// What the L2 held when a timed launch started.
    pub fn l2_flush(&self) -> L2Flush {
        match self.mode {
            _ if !self.flushes() => L2Flush::None,
            mode if mode.batches() => L2Flush::BeforeEachBatch,
            _ => L2Flush::BeforeEachLaunch,
        }
    }

    /// What one sample is, in the mode's words, as the `Timing:` line says it: "each sample 10
    /// launches back to back between one pair of CUDA events, divided by 10".
    pub(crate) fn method(&self) -> String {
        let launches = self.launches();
        match self.mode {
            TimingMode::Batch => format!(
                "each sample {launches} launches back to back between one pair of CUDA events, divided by {launches}"
            ),
            TimingMode::Cold if !self.flushes() => "each run one launch between its own CUDA events, no L2 \
                 flush (--no-flush-l2), every run queued behind a blocking kernel until all are enqueued"
                .to_string(),
            TimingMode::Cold => {
                "each run one launch between its own CUDA events after an L2 flush, every run \
                 queued behind a blocking kernel until all are enqueued"
                    .to_string()
            }
            TimingMode::Launch => "each run between its own CUDA events".to_string(),
            TimingMode::Graph => format!(
                "each sample one replay of a CUDA graph of {launches} launches between one pair of CUDA events, divided by {launches}"
            ),
        }
    }

    /// What `--flush-l2` adds to the `Timing:` line: ", L2 flushed before each sample" (cold
    /// mode says its flush in its method).
    pub(crate) fn flush_words(&self) -> &'static str {
        match self.mode {
            _ if !self.flush_l2 => "",
            TimingMode::Cold => "",
            mode if mode.batches() => ", L2 flushed before each sample",
            _ => ", L2 flushed before each run",
        }
    }
}

/// [`Timing`] as the exports write it: the flush as one field.
#[derive(Serialize, Deserialize)]
struct TimingRecord {
    mode: TimingMode,
    warmups: u32,
    runs: u32,
    launches_per_sample: u32,
    l2_flush: L2Flush,
    stop: Option<NoiseStop>,
    #[serde(
        default,
        rename = "energy_window_s",
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_seconds",
        deserialize_with = "from_optional_seconds"
    )]
    energy_window: Option<Duration>,
    #[serde(
        default,
        rename = "min_sample_s",
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_seconds",
        deserialize_with = "from_optional_seconds"
    )]
    min_sample: Option<Duration>,
}

fn optional_seconds<S: Serializer>(duration: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
    match duration {
        Some(duration) => seconds(duration, serializer),
        None => serializer.serialize_none(),
    }
}

fn from_optional_seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    Option::<f64>::deserialize(deserializer)?
        .map(|seconds| Duration::try_from_secs_f64(seconds).map_err(serde::de::Error::custom))
        .transpose()
}

impl From<Timing> for TimingRecord {
    fn from(timing: Timing) -> Self {
        Self {
            mode: timing.mode,
            warmups: timing.warmups,
            runs: timing.runs,
            launches_per_sample: timing.launches_per_sample,
            l2_flush: timing.l2_flush(),
            stop: timing.stop,
            energy_window: timing.energy_window,
            min_sample: timing.min_sample,
        }
    }
}

impl TryFrom<TimingRecord> for Timing {
    type Error = String;

    fn try_from(record: TimingRecord) -> Result<Self, String> {
        let (flush_l2, cold_keeps_l2) = match (record.mode, record.l2_flush) {
            (TimingMode::Cold, L2Flush::None) => (false, true),
            (TimingMode::Cold, L2Flush::BeforeEachLaunch) => (false, false),
            // A flush where the mode puts it: before each batch, or before each launch.
            (mode, L2Flush::BeforeEachBatch) if mode.batches() => (true, false),
            (mode, L2Flush::BeforeEachLaunch) if !mode.batches() => (true, false),
            (_, L2Flush::None) => (false, false),
            (mode, flush) => {
                return Err(format!("l2_flush `{}` does not go with {mode} timing", flush.name()));
            }
        };
        Ok(Self {
            mode: record.mode,
            warmups: record.warmups,
            runs: record.runs,
            launches_per_sample: record.launches_per_sample,
            flush_l2,
            cold_keeps_l2,
            stop: record.stop,
            energy_window: record.energy_window,
            min_sample: record.min_sample,
        })
    }
}

/// One operation on the measuring stream, as [`schedule`] lays them out and
/// [`Gpu::run_schedule`](crate::measure::gpu::backend::Gpu::run_schedule) executes them. The launch's function handle and argument list are
/// prepared before the first op, so [`Op::Launch`] is the driver's `cuLaunchKernel` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Zero the launch's `zero_before_each` buffers (`cuMemsetD8Async`).
    Zero,
    /// Overwrite a scratch buffer of twice the L2, so the next launch finds nothing in L2.
    FlushL2,
    /// Record event `i` on the stream.
    Record(usize),
    /// The launch.
    Launch,
    /// One replay of the row's CUDA graph of `launches` launches of the launch
    /// (`cuGraphLaunch`): captured before the first op of a schedule that has one, once for a
    /// launch and count, and replayed by every schedule of the same launch after it. The
    /// graph holds those launches alone, never a [`Op::Zero`], [`Op::FlushL2`] or
    /// [`Op::Record`].
    Graph {
        /// Launches the graph holds.
        launches: u32,
    },
    /// Arm the release flag and enqueue the blocking kernel, one thread.
    Block,
    /// The host writes the release flag.
    Release,
    /// Wait until the stream has done everything enqueued.
    Synchronize,
    /// Wait until the stream has reached event `i`, the work queued after it still running:
    /// the energy window keeps the GPU busy while the host reads the counter.
    WaitFor(usize),
    /// One sample, read after a [`Op::Synchronize`]: the milliseconds between events `start`
    /// and `stop`, over the `launches` launches between them.
    Sample {
        /// The event recorded before.
        start: usize,
        /// The event recorded after.
        stop: usize,
        /// Launches between them.
        launches: u32,
    },
}

/// The operations that take `warmups` untimed launches and then `samples` samples of
/// `timing.mode`, with an L2 flush before each where [`Timing::flushes`], and the launch's
/// `zero_before_each` buffers zeroed before each launch or batch where `zero`:
///
/// - warm-ups, every mode: `[Zero] Launch` per warm-up, then `Synchronize`;
/// - launch: per sample `[Zero] [FlushL2] Record(0) Launch Record(1) Synchronize Sample`;
/// - batch: per sample `[Zero] [FlushL2] Record(0) Launch x n Record(1) Synchronize Sample`
///   with n = [`Timing::launches`]; a kernel that adds to zeroed outputs then holds n passes,
///   so `Zero Launch Synchronize` follows the last sample and the check sees one pass;
/// - cold, per window of up to [`COLD_WINDOW`] samples: `Block`, per sample `[Zero] FlushL2
///   Record(2i) Launch Record(2i+1)`, then `Release`, `Synchronize` and the window's samples;
/// - graph: as batch, with `Graph { launches: n }` (one replay of the graph of n launches)
///   where batch has its n launches. Its warm-ups start with one untimed `[Zero] Graph`, so
///   the graph's first replay is never a sample, and then the warm-up launches of every mode,
///   so a kernel that adds to its outputs ends them with one pass.
pub fn schedule(timing: &Timing, warmups: u32, samples: u32, zero: bool) -> Vec<Op> {
    let flush = timing.flushes();
    let mut ops = Vec::new();
    let zero_op = |ops: &mut Vec<Op>| {
        if zero {
            ops.push(Op::Zero);
        }
    };
    if warmups > 0 {
        if timing.mode == TimingMode::Graph {
            zero_op(&mut ops);
            ops.push(Op::Graph { launches: timing.launches() });
        }
        for _ in 0..warmups {
            zero_op(&mut ops);
            ops.push(Op::Launch);
        }
        ops.push(Op::Synchronize);
    }
    match timing.mode {
        TimingMode::Launch | TimingMode::Batch | TimingMode::Graph => {
            let launches = timing.launches();
            for _ in 0..samples {
                zero_op(&mut ops);
                if flush {
                    ops.push(Op::FlushL2);
                }
                ops.push(Op::Record(0));
                if timing.mode == TimingMode::Graph {
                    ops.push(Op::Graph { launches });
                } else {
                    ops.extend(std::iter::repeat_n(Op::Launch, launches as usize));
                }
                ops.extend([Op::Record(1), Op::Synchronize, Op::Sample { start: 0, stop: 1, launches }]);
            }
            if zero && launches > 1 && samples > 0 {
                ops.extend([Op::Zero, Op::Launch, Op::Synchronize]);
            }
        }
        TimingMode::Cold => {
            let mut left = samples;
            while left > 0 {
                let window = left.min(COLD_WINDOW) as usize;
                left -= window as u32;
                ops.push(Op::Block);
                for i in 0..window {
                    zero_op(&mut ops);
                    ops.extend([Op::FlushL2, Op::Record(2 * i), Op::Launch, Op::Record(2 * i + 1)]);
                }
                ops.extend([Op::Release, Op::Synchronize]);
                ops.extend((0..window).map(|i| Op::Sample { start: 2 * i, stop: 2 * i + 1, launches: 1 }));
            }
        }
    }
    ops
}

/// The relative spread of `samples`: their median absolute deviation over their median.
/// Zero for identical samples; infinite where the median is zero and the spread is not.
pub fn relative_spread(samples: &[f32]) -> f64 {
    if samples.is_empty() {
        return f64::INFINITY;
    }
    let stats = RunStats::of(samples);
    if stats.mad == 0.0 {
        0.0
    } else if stats.median > 0.0 {
        stats.mad / stats.median
    } else {
        f64::INFINITY
    }
}

/// Why the noise-driven stop ended a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// The relative spread came down to the limit.
    Converged,
    /// The row's time budget ran out first.
    TimeBudget,
    /// The row reached the most samples a row takes.
    MaxRuns,
    /// A race stopped the row after its first round (a race in rungs: after a rung): clearly
    /// slower than the best (`crate::search::race`).
    Raced,
    /// A race in rungs stopped the row once its median was known: half its distribution-free
    /// 95 % interval within the noise limit of its median (`crate::search::race::finished`).
    MedianKnown,
}

/// Whether a row with `samples` so far, `elapsed` host time after its first sample, stops:
/// never below `min_runs` samples; then when the relative spread is at most
/// `stop.max_noise` ([`Stopped::Converged`]), when `elapsed` reaches
/// `stop.max_time_per_row` ([`Stopped::TimeBudget`]), or at `stop.max_runs`
/// ([`Stopped::MaxRuns`]). `None`: take more.
pub fn decide(samples: &[f32], min_runs: u32, stop: &NoiseStop, elapsed: Duration) -> Option<Stopped> {
    let taken = samples.len();
    if taken < min_runs.max(1) as usize {
        return None;
    }
    if relative_spread(samples) <= stop.max_noise {
        Some(Stopped::Converged)
    } else if elapsed >= stop.max_time_per_row {
        Some(Stopped::TimeBudget)
    } else if taken >= stop.max_runs as usize {
        Some(Stopped::MaxRuns)
    } else {
        None
    }
}

/// How many samples to take next, with `taken` so far after `elapsed`: up to `min_runs`
/// first; then a quarter more (at least one, at most `cap`), no more than the rest of the
/// budget holds at the pace so far, and never past `stop.max_runs`.
pub fn next_chunk(taken: u32, min_runs: u32, stop: &NoiseStop, elapsed: Duration, cap: u32) -> u32 {
    let min_runs = min_runs.max(1);
    if taken < min_runs {
        return min_runs - taken;
    }
    let mut chunk = (taken / 4).clamp(1, cap.max(1));
    if taken > 0 && elapsed > Duration::ZERO {
        let pace = elapsed.as_secs_f64() / f64::from(taken);
        let left = stop.max_time_per_row.saturating_sub(elapsed).as_secs_f64();
        let fits = (left / pace).ceil().max(1.0);
        chunk = chunk.min(fits.min(f64::from(u32::MAX)) as u32);
    }
    chunk.min(stop.max_runs.saturating_sub(taken).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::backend::Gpu as _;
    use crate::measure::gpu::mock::{EmulatedMemory, Launch, MockGpu, read_values, write_values};
    use crate::measure::sampling::checked::sample;
    use crate::tests::fixture;
    use Op::*;

    const STOP: NoiseStop =
        NoiseStop { max_noise: 0.01, max_time_per_row: Duration::from_millis(100), max_runs: 1000 };

    fn ms(values: &[f32]) -> Vec<f32> {
        values.to_vec()
    }

    #[test]
    fn launch_mode_is_one_launch_between_its_own_events_synchronised_each_time() {
        let ops = schedule(&Timing::launch(0, 0), 2, 2, false);
        let sample = [Record(0), Launch, Record(1), Synchronize, Sample { start: 0, stop: 1, launches: 1 }];
        assert_eq!(ops, [&[Launch, Launch, Synchronize][..], &sample, &sample].concat());
        // With a flush and zeroed outputs, both go before the start event.
        let ops = schedule(&Timing { flush_l2: true, ..Timing::launch(0, 0) }, 0, 1, true);
        assert_eq!(
            ops,
            [
                Zero,
                FlushL2,
                Record(0),
                Launch,
                Record(1),
                Synchronize,
                Sample { start: 0, stop: 1, launches: 1 }
            ]
        );
    }

    #[test]
    fn batch_mode_puts_n_launches_between_one_event_pair_per_sample() {
        let ops = schedule(&batch(3), 1, 2, false);
        let sample = [
            Record(0),
            Launch,
            Launch,
            Launch,
            Record(1),
            Synchronize,
            Sample { start: 0, stop: 1, launches: 3 },
        ];
        assert_eq!(ops, [&[Launch, Synchronize][..], &sample, &sample].concat());
        // An accumulating kernel: zeroed before each batch, and one more pass at the end.
        let ops = schedule(&Timing { flush_l2: true, ..batch(2) }, 0, 1, true);
        assert_eq!(
            ops,
            [
                Zero,
                FlushL2,
                Record(0),
                Launch,
                Launch,
                Record(1),
                Synchronize,
                Sample { start: 0, stop: 1, launches: 2 },
                Zero,
                Launch,
                Synchronize
            ]
        );
    }

    #[test]
    fn graph_mode_replays_one_graph_of_n_launches_between_one_event_pair_per_sample() {
        let graph = Timing { launches_per_sample: 3, ..Timing::fixed(TimingMode::Graph, 0, 0) };
        let replay = Graph { launches: 3 };
        let sample = [Record(0), replay, Record(1), Synchronize, Sample { start: 0, stop: 1, launches: 3 }];
        // The warm-ups: one untimed replay (the graph's first), then the plain launches.
        let ops = schedule(&graph, 2, 2, false);
        assert_eq!(ops, [&[replay, Launch, Launch, Synchronize][..], &sample, &sample].concat());
        // No warm-ups, no replay before the samples.
        assert_eq!(schedule(&graph, 0, 1, false), sample);
        // The flush and the zeroing before the start event, outside the graph; an accumulating
        // kernel's warm-ups end with one pass, and one pass follows the last sample.
        let ops = schedule(&Timing { flush_l2: true, ..graph }, 1, 1, true);
        assert_eq!(
            ops,
            [
                Zero,
                replay,
                Zero,
                Launch,
                Synchronize,
                Zero,
                FlushL2,
                Record(0),
                replay,
                Record(1),
                Synchronize,
                Sample { start: 0, stop: 1, launches: 3 },
                Zero,
                Launch,
                Synchronize
            ]
        );
        // A graph of one launch leaves one pass: no pass after the samples.
        let one = Timing { launches_per_sample: 1, ..graph };
        assert_eq!(
            schedule(&one, 0, 1, true),
            [
                Zero,
                Record(0),
                Graph { launches: 1 },
                Record(1),
                Synchronize,
                Sample { start: 0, stop: 1, launches: 1 }
            ]
        );
        // The default is batch's ten.
        assert_eq!(schedule(&Timing::fixed(TimingMode::Graph, 0, 0), 0, 1, false)[1], Graph { launches: 10 });
    }

    #[test]
    fn cold_mode_queues_every_sample_behind_the_blocking_kernel_and_releases_last() {
        let ops = schedule(&COLD, 1, 3, false);
        assert_eq!(
            ops,
            [
                Launch,
                Synchronize,
                Block,
                FlushL2,
                Record(0),
                Launch,
                Record(1),
                FlushL2,
                Record(2),
                Launch,
                Record(3),
                FlushL2,
                Record(4),
                Launch,
                Record(5),
                Release,
                Synchronize,
                Sample { start: 0, stop: 1, launches: 1 },
                Sample { start: 2, stop: 3, launches: 1 },
                Sample { start: 4, stop: 5, launches: 1 },
            ]
        );
        // Past one window: a blocking kernel per window, its events counted from 0 again.
        let ops = schedule(&COLD, 0, COLD_WINDOW + 2, true);
        assert_eq!(ops.iter().filter(|op| **op == Block).count(), 2);
        assert_eq!(ops.iter().filter(|op| **op == Release).count(), 2);
        assert_eq!(ops.iter().filter(|op| matches!(op, Sample { .. })).count(), COLD_WINDOW as usize + 2);
        let max_event = ops.iter().filter_map(|op| if let Record(i) = op { Some(*i) } else { None }).max();
        assert_eq!(max_event, Some(2 * COLD_WINDOW as usize - 1));
        let second = ops.iter().rposition(|op| *op == Block).unwrap();
        assert_eq!(ops[second + 1..second + 6], [Zero, FlushL2, Record(0), Launch, Record(1)]);
    }

    #[test]
    fn no_samples_is_the_warm_ups_alone() {
        for mode in TimingMode::ALL {
            // Graph mode's warm-ups replay the graph first, once.
            let first: &[Op] = if mode == TimingMode::Graph { &[Zero, Graph { launches: 10 }] } else { &[] };
            assert_eq!(
                schedule(&Timing { flush_l2: true, ..Timing::fixed(mode, 0, 0) }, 2, 0, true),
                [first, &[Zero, Launch, Zero, Launch, Synchronize]].concat()
            );
            assert_eq!(schedule(&Timing::fixed(mode, 0, 0), 0, 0, true), []);
        }
    }

    #[test]
    fn relative_spread_is_mad_over_median() {
        assert_eq!(relative_spread(&[1.0, 1.0, 1.0]), 0.0);
        // Median 2.5, MAD 1.0.
        assert_eq!(relative_spread(&[1.0, 2.0, 3.0, 4.0]), 0.4);
        assert_eq!(relative_spread(&[-1.0, 0.0, 1.0]), f64::INFINITY);
        assert_eq!(relative_spread(&[0.0, 0.0]), 0.0);
        assert_eq!(relative_spread(&[]), f64::INFINITY);
    }

    #[test]
    fn the_stop_respects_the_minimum_even_past_the_budget() {
        let steady = ms(&[1.0; 9]);
        assert_eq!(decide(&steady, 10, &STOP, Duration::from_secs(9)), None);
        assert_eq!(decide(&ms(&[1.0; 10]), 10, &STOP, Duration::ZERO), Some(Stopped::Converged));
        // A minimum of 0 still wants one sample.
        assert_eq!(decide(&[], 0, &STOP, Duration::from_secs(9)), None);
    }

    #[test]
    fn the_stop_converges_once_the_spread_comes_down() {
        // Noisy first, then steady: samples are taken until MAD / median <= 1 percent.
        let mut samples = ms(&[1.0, 1.2, 0.8, 1.1, 0.9, 1.3]);
        assert_eq!(decide(&samples, 5, &STOP, Duration::from_millis(10)), None);
        let mut stopped = None;
        while stopped.is_none() {
            samples.push(1.0);
            stopped = decide(&samples, 5, &STOP, Duration::from_millis(10));
        }
        assert_eq!(stopped, Some(Stopped::Converged));
        // Six noisy samples, one of them 1.0: with five more 1.0s, six of eleven deviations
        // are 0, so their median is, and the spread is 0.
        assert_eq!(samples.len(), 11);
        assert!(relative_spread(&samples) <= STOP.max_noise);
    }

    #[test]
    fn the_stop_gives_up_at_the_budget_or_the_cap() {
        let noisy = ms(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(decide(&noisy, 5, &STOP, Duration::from_millis(99)), None);
        assert_eq!(decide(&noisy, 5, &STOP, Duration::from_millis(100)), Some(Stopped::TimeBudget));
        let capped = NoiseStop { max_runs: 6, ..STOP };
        assert_eq!(decide(&noisy, 5, &capped, Duration::ZERO), Some(Stopped::MaxRuns));
        // Converged wins over an exhausted budget.
        assert_eq!(decide(&ms(&[2.0; 6]), 5, &STOP, Duration::from_secs(1)), Some(Stopped::Converged));
    }

    #[test]
    fn chunks_fill_the_minimum_then_grow_within_the_budget() {
        assert_eq!(next_chunk(0, 10, &STOP, Duration::ZERO, 64), 10);
        assert_eq!(next_chunk(4, 10, &STOP, Duration::ZERO, 64), 6);
        assert_eq!(next_chunk(0, 0, &STOP, Duration::ZERO, 64), 1);
        // A quarter more, within the cap.
        assert_eq!(next_chunk(40, 10, &STOP, Duration::from_millis(1), 64), 10);
        assert_eq!(next_chunk(400, 10, &STOP, Duration::from_millis(1), 64), 64);
        assert_eq!(next_chunk(10, 10, &STOP, Duration::from_millis(1), 64), 2);
        // 40 samples took 80 ms: 20 ms left hold 10 more at that pace, no more.
        assert_eq!(next_chunk(40, 10, &STOP, Duration::from_millis(80), 64), 10);
        assert_eq!(next_chunk(400, 10, &STOP, Duration::from_millis(96), 64), 17);
        // Never past the cap on samples.
        assert_eq!(next_chunk(998, 10, &STOP, Duration::from_millis(1), 64), 2);
    }

    /// Through the mock, end to end: a sweep of one row of the fixture's kernel over 561
    /// values (its output zeroed before each launch, as a kernel that adds to it, where
    /// `accumulates`) timed as `timing` says, on a fresh H200-like mock; the row and the mock,
    /// with what it was asked to enqueue.
    fn one_row(accumulates: bool, timing: Timing) -> (crate::search::sweep::Row, MockGpu) {
        let mut gpu = fixture::gpu();
        let kernel = fixture::kernel(33 * 17);
        let kernel = if accumulates { kernel.zeroed_before_each_launch("out") } else { kernel };
        let mut workload = fixture::workload(&mut gpu, kernel);
        let sweep = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[128], timing, None).unwrap();
        assert_eq!(sweep.failures, [], "accumulating {accumulates}: every mode leaves one checked pass");
        assert_eq!(sweep.timing, timing);
        (sweep.rows.into_iter().next().unwrap(), gpu)
    }

    /// Two warm-ups and three samples.
    const fn fixed(mode: TimingMode) -> Timing {
        Timing::fixed(mode, 2, 3)
    }

    /// Batch samples of `launches` launches.
    const fn batch(launches: u32) -> Timing {
        Timing { launches_per_sample: launches, ..Timing::fixed(TimingMode::Batch, 0, 0) }
    }

    const COLD: Timing = Timing::fixed(TimingMode::Cold, 0, 0);

    #[test]
    fn the_mock_enqueues_launch_mode_as_before_one_event_pair_per_launch() {
        let (row, gpu) = one_row(false, fixed(TimingMode::Launch));
        let sample = [Record(0), Launch, Record(1), Synchronize, Sample { start: 0, stop: 1, launches: 1 }];
        assert_eq!(gpu.enqueued, [&[Launch, Launch, Synchronize][..], &sample, &sample, &sample].concat());
        assert_eq!((row.run_ms.len(), row.stopped), (3, None));
        assert_eq!(gpu.launches.len(), 5);
    }

    #[test]
    fn the_mock_enqueues_batch_mode_as_one_event_pair_around_n_launches_per_sample() {
        let (row, gpu) = one_row(false, Timing { warmups: 2, runs: 3, ..batch(4) });
        let sample = [
            Record(0),
            Launch,
            Launch,
            Launch,
            Launch,
            Record(1),
            Synchronize,
            Sample { start: 0, stop: 1, launches: 4 },
        ];
        assert_eq!(gpu.enqueued, [&[Launch, Launch, Synchronize][..], &sample, &sample, &sample].concat());
        // A sample is the batch's mean: the scripted time of one launch.
        assert_eq!(row.run_ms, [1.0; 3]);
        assert_eq!(gpu.launches.len(), 2 + 3 * 4);
    }

    #[test]
    fn the_mock_enqueues_cold_mode_behind_the_blocking_kernel_released_after_the_last_sample() {
        let (row, gpu) = one_row(false, fixed(TimingMode::Cold));
        assert_eq!(
            gpu.enqueued,
            [
                Launch,
                Launch,
                Synchronize,
                Block,
                FlushL2,
                Record(0),
                Launch,
                Record(1),
                FlushL2,
                Record(2),
                Launch,
                Record(3),
                FlushL2,
                Record(4),
                Launch,
                Record(5),
                Release,
                Synchronize,
                Sample { start: 0, stop: 1, launches: 1 },
                Sample { start: 2, stop: 3, launches: 1 },
                Sample { start: 4, stop: 5, launches: 1 },
            ]
        );
        // Cold flushes L2 whether or not --flush-l2 was given.
        assert_eq!((row.run_ms.len(), gpu.l2_flushes), (3, 3));
    }

    /// Graph samples of `launches` launches.
    const fn graph(launches: u32) -> Timing {
        Timing { launches_per_sample: launches, ..Timing::fixed(TimingMode::Graph, 0, 0) }
    }

    #[test]
    fn the_mock_captures_graph_mode_once_a_row_and_replays_it_once_a_sample() {
        let (row, gpu) = one_row(false, Timing { warmups: 2, runs: 3, ..graph(4) });
        let replay = Graph { launches: 4 };
        let sample = [Record(0), replay, Record(1), Synchronize, Sample { start: 0, stop: 1, launches: 4 }];
        assert_eq!(
            gpu.enqueued,
            [&[replay, Launch, Launch, Synchronize][..], &sample, &sample, &sample].concat()
        );
        // A sample is the replay's mean: the scripted time of one launch.
        assert_eq!(row.run_ms, [1.0; 3]);
        // One capture; one replay for the warm-ups and one a sample, each its four launches.
        assert_eq!((gpu.graph_captures, gpu.graph_replays), (1, 1 + 3));
        assert_eq!(gpu.launches.len(), 4 + 2 + 3 * 4);

        // Under the noise-driven stop a row is several schedules (the warm-ups, then chunks of
        // samples): all replay the row's one capture, and the next row captures its own.
        let mut gpu = fixture::gpu();
        gpu.sample_script = [&[1.3, 0.7, 1.2, 0.8][..], &[1.0; 60]].concat();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(33 * 17));
        let stop = NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_secs(10), max_runs: 1000 };
        let timing = Timing { warmups: 1, runs: 5, ..graph(3) }.until(stop);
        let sweep = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, None).unwrap();
        assert_eq!(sweep.failures, []);
        let samples: Vec<usize> = sweep.rows.iter().map(|row| row.run_ms.len()).collect();
        // The first row's chunks of 5, 1, 1, 1 and 2 (as the_noise_driven_stop_takes_samples_until_they_settle).
        assert_eq!(samples, [10, 5]);
        let schedules = gpu.enqueued.iter().filter(|op| **op == Synchronize).count();
        assert_eq!(schedules, 2 + 15, "the warm-ups of each row, then one a sample");
        assert_eq!((gpu.graph_captures, gpu.graph_replays), (2, 2 + 15));
        // Every replay is of the row's own launch: 64 threads, then 128.
        let threads: Vec<u32> = gpu.launches.iter().map(|&(_, threads)| threads).collect();
        assert_eq!(threads, [[64].repeat(3 + 1 + 10 * 3), [128].repeat(3 + 1 + 5 * 3)].concat());
    }

    /// `out[i] += 2 x[i]`: the fixture's kernel as one that adds to its outputs, as a
    /// histogram does.
    fn adds(launch: &Launch, memory: &mut dyn EmulatedMemory, _fault: Option<usize>) -> Result<()> {
        let [x, n, out, ..] = launch.args.as_slice() else { anyhow::bail!("scale takes three arguments") };
        let n = n.as_usize()?;
        let inputs = read_values::<f32>(memory.at(x)?, n)?;
        let outputs = read_values::<f32>(memory.at(out)?, n)?;
        let sums: Vec<f32> = inputs.iter().zip(outputs).map(|(x, out)| out + 2.0 * x).collect();
        write_values(memory.at_mut(out)?, &sums)
    }

    #[test]
    fn a_kernel_that_adds_to_its_outputs_is_checked_on_one_pass_of_the_graph() {
        let stop = NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_secs(10), max_runs: 1000 };
        let timings = [
            Timing { warmups: 2, runs: 3, ..graph(4) },
            Timing { warmups: 1, runs: 5, flush_l2: true, ..graph(4) }.until(stop),
            Timing { warmups: 0, runs: 2, ..graph(1) },
        ];
        for timing in timings {
            let mut gpu = fixture::gpu();
            gpu.emulate(fixture::MODULE.kernel("scale"), adds);
            let kernel = fixture::kernel(33 * 17).zeroed_before_each_launch("out");
            let mut workload = fixture::workload(&mut gpu, kernel);
            let sweep = crate::search::sweep::run(&mut gpu, workload.as_mut(), &[128], timing, None).unwrap();
            assert_eq!(sweep.failures, [], "{timing:?}");
            assert_eq!(gpu.graph_captures, 1, "{timing:?}");
        }
        // The mock adds every launch of a replay: without the pass after the samples the check
        // would see four.
        let mut gpu = fixture::gpu();
        gpu.emulate(fixture::MODULE.kernel("scale"), adds);
        let mut workload =
            fixture::workload(&mut gpu, fixture::kernel(33 * 17).zeroed_before_each_launch("out"));
        let launch = workload
            .launch(
                crate::model::block_shape::GridShape::linear(1),
                crate::model::block_shape::BlockShape::linear(128),
            )
            .unwrap();
        let ops = schedule(&graph(4), 0, 1, true);
        gpu.run_schedule(&launch, &ops[..ops.len() - 3]).unwrap();
        let mismatch = workload.check(&mut gpu).unwrap().expect("four passes are not one");
        assert!(mismatch.to_string().contains("the CPU reference says"), "{mismatch}");
        gpu.run_schedule(&launch, &ops).unwrap();
        assert!(workload.check(&mut gpu).unwrap().is_none());
    }

    #[test]
    fn a_kernel_that_adds_to_its_outputs_is_zeroed_outside_every_sample_and_checked_on_one_pass() {
        // A kernel that adds to its outputs has them zeroed before each launch; the check (in
        // one_row) sees one pass.
        let (_, gpu) = one_row(true, Timing { warmups: 1, runs: 3, ..batch(3) });
        let sample = [
            Zero,
            Record(0),
            Launch,
            Launch,
            Launch,
            Record(1),
            Synchronize,
            Sample { start: 0, stop: 1, launches: 3 },
        ];
        let expected =
            [&[Zero, Launch, Synchronize][..], &sample, &sample, &sample, &[Zero, Launch, Synchronize]]
                .concat();
        assert_eq!(gpu.enqueued, expected);
        let (_, gpu) = one_row(true, Timing { runs: 3, ..COLD });
        assert_eq!(gpu.enqueued[..6], [Block, Zero, FlushL2, Record(0), Launch, Record(1)]);
        let (_, gpu) = one_row(true, Timing { flush_l2: true, ..Timing::launch(0, 3) });
        assert_eq!(gpu.enqueued[..4], [Zero, FlushL2, Record(0), Launch]);
        let (_, gpu) = one_row(true, Timing { warmups: 1, runs: 2, flush_l2: true, ..graph(3) });
        let replay = Graph { launches: 3 };
        let sample = [
            Zero,
            FlushL2,
            Record(0),
            replay,
            Record(1),
            Synchronize,
            Sample { start: 0, stop: 1, launches: 3 },
        ];
        let expected =
            [&[Zero, replay, Zero, Launch, Synchronize][..], &sample, &sample, &[Zero, Launch, Synchronize]]
                .concat();
        assert_eq!(gpu.enqueued, expected);
        assert_eq!((gpu.l2_flushes, gpu.graph_captures, gpu.graph_replays), (2, 1, 3));
    }

    #[test]
    fn the_mock_refuses_schedules_a_stream_could_not_run() {
        let mut gpu = fixture::gpu();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(16));
        workload.upload(&mut gpu).unwrap();
        let launch = workload
            .launch(
                crate::model::block_shape::GridShape::linear(1),
                crate::model::block_shape::BlockShape::linear(32),
            )
            .unwrap();
        let error = |gpu: &mut MockGpu, ops: &[Op]| gpu.run_schedule(&launch, ops).unwrap_err().to_string();
        assert_eq!(
            error(&mut gpu, &[Block, Record(0), Launch, Record(1), Synchronize]),
            "op 4: synchronising a stream the host has not released"
        );
        assert_eq!(error(&mut gpu, &[Release]), "op 0: a release with no blocking kernel");
        assert_eq!(
            error(&mut gpu, &[Record(0), Launch, Record(1), Sample { start: 0, stop: 1, launches: 1 }]),
            "op 3: event 0 read before a synchronize"
        );
        assert_eq!(
            error(&mut gpu, &[Synchronize, Sample { start: 0, stop: 1, launches: 1 }]),
            "op 1: event 0 was never recorded"
        );
        assert_eq!(error(&mut gpu, &[Block, Launch]), "the schedule ends with the stream still held");
        // One graph is captured a schedule, of the count its first replay asks for.
        assert_eq!(
            error(&mut gpu, &[Graph { launches: 2 }, Graph { launches: 3 }]),
            "op 1: a graph of 3 launches was never captured"
        );
    }

    #[test]
    fn the_mock_injects_faults_and_failures_into_a_graph_as_into_a_launch() {
        let mut gpu = fixture::gpu();
        let workload = fixture::workload(&mut gpu, fixture::kernel(16));
        let launch = workload
            .launch(
                crate::model::block_shape::GridShape::linear(1),
                crate::model::block_shape::BlockShape::linear(32),
            )
            .unwrap();
        let ops = schedule(&Timing { runs: 1, ..graph(2) }, 0, 1, false);
        assert!(!ops.contains(&Launch), "{ops:?}");
        gpu.fail_launch_at = Some(32);
        let error = gpu.run_schedule(&launch, &ops).unwrap_err();
        assert_eq!(error.to_string(), "launch failed: mock driver error at 32 threads per block");
        gpu.fail_launch_at = None;
        gpu.fault_at = Some((32, crate::measure::gpu::mock::MockFault { context_lost: true }));
        let error = gpu.run_schedule(&launch, &ops).unwrap_err();
        assert_eq!(gpu.launch_fault(&error).map(|fault| fault.context_lost), Some(true));
        assert!(gpu.context_lost);
    }

    #[test]
    fn the_noise_driven_stop_takes_samples_until_they_settle() {
        let stop = NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_secs(10), max_runs: 1000 };
        for mode in TimingMode::ALL {
            let mut gpu = fixture::gpu();
            // Four noisy samples, then steady ones.
            gpu.sample_script = [&[1.3, 0.7, 1.2, 0.8][..], &[1.0; 60]].concat();
            let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
            workload.upload(&mut gpu).unwrap();
            let launch = workload
                .launch(
                    crate::model::block_shape::GridShape::linear(1),
                    crate::model::block_shape::BlockShape::linear(64),
                )
                .unwrap();
            let timing = Timing::fixed(mode, 1, 5).until(stop);
            let samples = sample(&mut gpu, &launch, &timing, &[]).unwrap();
            // Chunks of 5 (the minimum), 1, 1, 1 and 2: at 10 samples six are 1.0 and the
            // median absolute deviation is 0.
            assert_eq!(samples.run_ms.len(), 10, "{mode}");
            assert_eq!(samples.stopped, Some(Stopped::Converged), "{mode}");
            let schedules = gpu.enqueued.iter().filter(|op| **op == Synchronize).count();
            let expected = match mode {
                // The warm-ups, then one synchronisation per sample.
                TimingMode::Batch | TimingMode::Launch | TimingMode::Graph => 1 + 10,
                // The warm-ups, then one per window: five chunks.
                TimingMode::Cold => 1 + 5,
            };
            assert_eq!(schedules, expected, "{mode}");
        }
    }

    #[test]
    fn the_noise_driven_stop_ends_a_row_that_never_settles_at_its_budget() {
        let stop =
            NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_millis(50), max_runs: 1000 };
        let mut gpu = fixture::gpu();
        // Samples of 0.9, 1.0 and 1.1 ms: a relative spread of 10 percent, for ever.
        gpu.run_spread = 0.1;
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
        workload.upload(&mut gpu).unwrap();
        let launch = workload
            .launch(
                crate::model::block_shape::GridShape::linear(1),
                crate::model::block_shape::BlockShape::linear(64),
            )
            .unwrap();
        let samples = sample(&mut gpu, &launch, &Timing::launch(3, 10).until(stop), &[]).unwrap();
        assert_eq!(samples.stopped, Some(Stopped::TimeBudget));
        // About 1 ms a sample on the mock's clock: about 50 of them, the chunks sized to fit.
        assert!((50..=52).contains(&samples.run_ms.len()), "{}", samples.run_ms.len());
        assert!(
            gpu.clock >= stop.max_time_per_row && gpu.clock < Duration::from_millis(53),
            "{:?}",
            gpu.clock
        );
        // A budget spent at once still gets the minimum.
        let spent = NoiseStop { max_time_per_row: Duration::ZERO, ..stop };
        let timing = Timing::fixed(TimingMode::Batch, 3, 10);
        let samples = sample(&mut gpu, &launch, &timing.until(spent), &[]).unwrap();
        assert_eq!((samples.run_ms.len(), samples.stopped), (10, Some(Stopped::TimeBudget)));
        // A fixed count ignores the spread.
        let samples = sample(&mut gpu, &launch, &Timing::fixed(TimingMode::Cold, 3, 10), &[]).unwrap();
        assert_eq!((samples.run_ms.len(), samples.stopped), (10, None));
    }

    #[test]
    fn compare_s_single_launches_are_launch_mode() {
        let mut gpu = fixture::gpu();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
        workload.upload(&mut gpu).unwrap();
        assert_eq!(
            gpu.time_one_launch(
                &workload
                    .launch(
                        crate::model::block_shape::GridShape::linear(1),
                        crate::model::block_shape::BlockShape::linear(64)
                    )
                    .unwrap()
            )
            .unwrap(),
            1.0
        );
        assert_eq!(
            gpu.enqueued,
            [Record(0), Launch, Record(1), Synchronize, Sample { start: 0, stop: 1, launches: 1 }]
        );
    }

    #[test]
    fn modes_are_named_as_the_command_line_names_them() {
        for mode in TimingMode::ALL {
            assert_eq!(serde_json::to_string(&mode).unwrap(), format!("\"{mode}\""));
        }
        assert_eq!(Timing::fixed(TimingMode::Batch, 0, 1).launches(), DEFAULT_BATCH_LAUNCHES);
        assert_eq!(Timing { launches_per_sample: 7, ..COLD }.launches(), 1);
        assert_eq!(Timing::fixed(TimingMode::Graph, 0, 1).launches(), DEFAULT_BATCH_LAUNCHES);
        assert_eq!(graph(7).launches(), 7);
        assert!(!graph(7).flushes() && Timing { flush_l2: true, ..graph(7) }.flushes());
        assert_eq!(serde_json::to_string(&TimingMode::Graph).unwrap(), "\"graph\"");
        assert!(COLD.flushes() && !Timing::launch(0, 1).flushes());
        assert!(!Timing { cold_keeps_l2: true, ..COLD }.flushes(), "--no-flush-l2");
        assert!(Timing { cold_keeps_l2: true, flush_l2: true, ..COLD }.flushes());
        let stop = serde_json::to_value(NoiseStop::DEFAULT).unwrap();
        assert_eq!(stop["max_time_per_row_s"], 0.5);
    }

    #[test]
    fn the_l2_flush_is_one_field_of_three_values_and_reads_back() {
        let cold = Timing::fixed(TimingMode::Cold, 3, 10);
        let batch = Timing::fixed(TimingMode::Batch, 3, 10);
        let launch = Timing::launch(3, 10);
        let cases = [
            (batch, L2Flush::None),
            (Timing { flush_l2: true, ..batch }, L2Flush::BeforeEachBatch),
            (launch, L2Flush::None),
            (Timing { flush_l2: true, ..launch }, L2Flush::BeforeEachLaunch),
            // Cold timing flushes though nobody asked with --flush-l2.
            (cold, L2Flush::BeforeEachLaunch),
            (Timing { cold_keeps_l2: true, ..cold }, L2Flush::None),
            (Timing { warmups: 3, runs: 10, ..graph(4) }, L2Flush::None),
            (Timing { warmups: 3, runs: 10, flush_l2: true, ..graph(4) }, L2Flush::BeforeEachBatch),
        ];
        for (timing, flush) in cases {
            let json = serde_json::to_value(timing.until(NoiseStop::DEFAULT)).unwrap();
            assert_eq!(json["l2_flush"], flush.name(), "{timing:?}");
            assert!(json.get("flush_l2").is_none() && json.get("cold_keeps_l2").is_none(), "{json}");
            let back: Timing = serde_json::from_value(json).unwrap();
            assert_eq!(back.until(NoiseStop::DEFAULT), timing.until(NoiseStop::DEFAULT), "{flush:?}");
            assert_eq!((back.flushes(), back.l2_flush()), (timing.flushes(), flush));
        }
        let wrong = serde_json::json!({
            "mode": "batch", "warmups": 3, "runs": 10, "launches_per_sample": 10,
            "l2_flush": "before_each_launch", "stop": null
        });
        let error = serde_json::from_value::<Timing>(wrong).unwrap_err().to_string();
        assert_eq!(error, "l2_flush `before_each_launch` does not go with batch timing");
        let wrong = serde_json::json!({
            "mode": "graph", "warmups": 3, "runs": 10, "launches_per_sample": 10,
            "l2_flush": "before_each_launch", "stop": null
        });
        let error = serde_json::from_value::<Timing>(wrong).unwrap_err().to_string();
        assert_eq!(error, "l2_flush `before_each_launch` does not go with graph timing");
    }
}
