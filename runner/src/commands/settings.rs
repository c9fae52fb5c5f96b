/*!
How to sweep: [`Settings`] and its [`TimingSettings`], what the commands' options
(`crate::commands::options`, as `block-size` takes them and a program of your own alike) become,
with the one validation every command goes through.

Every field is a plain value with `block_size.cu`'s default ([`Settings::default`]); `None`
means "not given", so an option that only one timing mode reads can be refused when it is given
with another. [`Settings::validate`] is every check that needs no device, each failure one line
naming the `block-size` option it is about, exit status 2 ([`crate::Error`]). The checks that
need the device (a block size above its limit, buffers larger than its free memory) run when the
sweep opens it, for the library and the CLI alike.
*/

use crate::error::{Error, exit};
use crate::files;
use crate::kernel::Kernel;
use crate::measure::sampling::timing::{DEFAULT_BATCH_LAUNCHES, MIN_SAMPLE, NoiseStop, Timing, TimingMode};
use crate::model::block_shape::{BlockShape, MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK};
use crate::model::grid::GridPolicy;
use crate::model::objective::Objective;
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::model::shard::Shard;
use crate::results::export::Format;
use crate::search::strategy::Search;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Untimed launches before each row: `block_size.cu`'s.
pub(crate) const DEFAULT_WARMUPS: u32 = 3;
/// Samples a row takes at least under the noise-driven stop: the seed's ten.
pub(crate) const DEFAULT_MIN_RUNS: u32 = 10;
/// The noise-driven stop's spread: a row stops once its samples' median absolute deviation is
/// at most this fraction of their median.
pub(crate) const DEFAULT_MAX_NOISE: f64 = 0.005;
/// The noise-driven stop's time limit per row.
pub(crate) const DEFAULT_MAX_TIME_PER_ROW: Duration = Duration::from_millis(500);

/// Which GPUs a sweep runs on (`--device`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeviceChoice {
    /// The device of this CUDA ordinal (0 by default).
    One(u32),
    /// Every visible GPU in turn, each with its own table, then one summary line per GPU.
    All,
}

impl Default for DeviceChoice {
    fn default() -> Self {
        Self::One(0)
    }
}

/// How each row is timed, as given: `--timing` and the options around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TimingSettings {
    /// `--timing`: how a row's samples sit between CUDA events (graph by default: of the four
    /// modes, the nearest Nsight Compute's own duration on the H200, docs/timing.md).
    pub mode: TimingMode,
    /// `--launches-per-sample`: launches between one pair of events in a batch sample, or in
    /// the graph a graph sample replays (10; batch and graph only).
    pub launches_per_sample: Option<u32>,
    /// `--warmups`: untimed launches before each row (3).
    pub warmups: u32,
    /// `--runs`: exactly this many samples a row, no noise-driven stop.
    pub runs: Option<u32>,
    /// `--min-runs`: samples every row takes before the noise-driven stop may end it (10).
    pub min_runs: Option<u32>,
    /// `--max-noise`: the stop's spread, a fraction from 0 to 1 (0.005).
    pub max_noise: Option<f64>,
    /// `--max-time-per-row`: the stop's time limit for a row (0.5 s).
    pub max_time_per_row: Option<Duration>,
    /// Whether to overwrite twice the L2 before every sample, outside the timed interval:
    /// `Some(true)` flushes in every mode (`--flush-l2`; batch and graph: before each batch or
    /// replay), `Some(false)` is cold timing without its flush (`--no-flush-l2`, cold only),
    /// `None` as the mode does (cold flushes, batch, launch and graph do not).
    pub flush_l2: Option<bool>,
    /// `--energy`: each row's energy, read over at least this long a window of the GPU's
    /// energy counter after its samples (`--energy-window`, [`DEFAULT_ENERGY_WINDOW`]);
    /// `None`: no energy.
    pub energy_window: Option<Duration>,
}

/// The energy window unless asked otherwise (`--energy-window`): five steps of the H200's
/// counter, which steps every 100 ms, so that the 4 ms a read takes on each end leaves under
/// one percent of the window (docs/timing.md).
pub(crate) const DEFAULT_ENERGY_WINDOW: Duration = Duration::from_millis(500);

/// The longest energy window a row may ask for.
const MAX_ENERGY_WINDOW: Duration = Duration::from_secs(60);

impl Default for TimingSettings {
    fn default() -> Self {
        Self {
            mode: TimingMode::Graph,
            launches_per_sample: None,
            warmups: DEFAULT_WARMUPS,
            runs: None,
            min_runs: None,
            max_noise: None,
            max_time_per_row: None,
            flush_l2: None,
            energy_window: None,
        }
    }
}

/// The most warm-ups, samples (`--runs`, `--min-runs`) or launches a sample a row may ask
/// for: a row's launches are listed before the GPU runs them, so a count past any a
/// measurement needs would exhaust the host's memory before the first launch.
const MAX_COUNT: u32 = 1_000_000;

/// The most launches (warm-ups, and samples times launches each) a row's first schedule may
/// hold: at least 20 seconds of the shortest launches, a few hundred MiB of its list.
const MAX_LAUNCHES_PER_ROW: u64 = 10_000_000;

impl TimingSettings {
    /// The timing these settings give, or the one line (exit 2) saying why they do not.
    pub(crate) fn validate(&self) -> Result<Timing, Error> {
        self.timing().map_err(|message| Error::new(exit::USAGE, message))
    }

    /// Each option on its own and beside the others: counts from 1 to their most, `--runs` alone
    /// or the noise-driven stop's limits, each option of a timing mode with that mode.
    fn check_options(&self) -> Result<(), String> {
        let mode = self.mode;
        for (option, count) in [
            ("--launches-per-sample", self.launches_per_sample),
            ("--runs", self.runs),
            ("--min-runs", self.min_runs),
        ] {
            if count == Some(0) {
                return Err(format!("{option} must be at least 1, not 0"));
            }
        }
        for (option, count) in [
            ("--warmups", Some(self.warmups)),
            ("--launches-per-sample", self.launches_per_sample),
            ("--runs", self.runs),
            ("--min-runs", self.min_runs),
        ] {
            if let Some(count) = count
                && count > MAX_COUNT
            {
                return Err(format!("{option} must be at most {MAX_COUNT}, not {count}"));
            }
        }
        if self.runs.is_some() {
            let limits = [
                ("--min-runs", self.min_runs.is_some()),
                ("--max-noise", self.max_noise.is_some()),
                ("--max-time-per-row", self.max_time_per_row.is_some()),
            ];
            if let Some((option, _)) = limits.iter().find(|(_, given)| *given) {
                return Err(format!(
                    "--runs cannot be used with {option}: --runs is a fixed count, {option} a limit of the noise-driven stop"
                ));
            }
        }
        if let Some(noise) = self.max_noise
            && !(0.0..=1.0).contains(&noise)
        {
            return Err(format!(
                "--max-noise must be a fraction from 0 to 1 (0.005 is half a percent), not {noise}"
            ));
        }
        if self.launches_per_sample.is_some() && !mode.batches() {
            return Err(format!(
                "--launches-per-sample applies to --timing batch and graph, not --timing {mode}"
            ));
        }
        if self.flush_l2 == Some(false) && mode != TimingMode::Cold {
            return Err(format!("--no-flush-l2 applies to --timing cold, not --timing {mode}"));
        }
        if let Some(window) = self.energy_window
            && !(Duration::from_millis(1)..=MAX_ENERGY_WINDOW).contains(&window)
        {
            return Err(format!(
                "--energy-window must be from 0.001 to {} seconds, not {}",
                MAX_ENERGY_WINDOW.as_secs(),
                window.as_secs_f64()
            ));
        }
        Ok(())
    }

    fn timing(&self) -> Result<Timing, String> {
        self.check_options()?;
        let mode = self.mode;
        let min_runs = self.min_runs.unwrap_or(DEFAULT_MIN_RUNS);
        let timing = Timing {
            mode,
            warmups: self.warmups,
            runs: self.runs.unwrap_or(min_runs),
            launches_per_sample: match mode.batches() {
                true => self.launches_per_sample.unwrap_or(DEFAULT_BATCH_LAUNCHES),
                false => 1,
            },
            flush_l2: self.flush_l2 == Some(true),
            cold_keeps_l2: self.flush_l2 == Some(false),
            stop: None,
            energy_window: self.energy_window,
            // Launches a sample grow for short kernels unless a count was asked for.
            min_sample: (mode.batches() && self.launches_per_sample.is_none()).then_some(MIN_SAMPLE),
        };
        let launches =
            u64::from(timing.warmups) + u64::from(timing.runs) * u64::from(timing.launches_per_sample);
        if launches > MAX_LAUNCHES_PER_ROW {
            return Err(format!(
                "{} warm-ups and {} samples of {} launches are {launches} launches a row, more than the \
                 {MAX_LAUNCHES_PER_ROW} one row may take",
                timing.warmups, timing.runs, timing.launches_per_sample
            ));
        }
        Ok(match self.runs {
            Some(_) => timing,
            None => timing.until(NoiseStop {
                max_noise: self.max_noise.unwrap_or(DEFAULT_MAX_NOISE),
                max_time_per_row: self.max_time_per_row.unwrap_or(DEFAULT_MAX_TIME_PER_ROW),
                max_runs: NoiseStop::DEFAULT.max_runs.max(min_runs),
            }),
        })
    }
}

/// How to sweep: the devices, the block sizes, the timing, the grid, and what to print where.
/// [`Settings::default`] is `block-size`'s defaults, which are `block_size.cu`'s.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// `--device`: one CUDA ordinal (0), or every visible GPU.
    pub device: DeviceChoice,
    /// `--block-sizes`: threads per block of each row, in order, each once.
    pub block_sizes: Vec<u32>,
    /// `--block-shapes`: the block of each row as a shape (`32x8`, `8x8x4`), in order, each
    /// once, in place of `block_sizes`. Empty: `block_sizes`, in x alone for a kernel without
    /// a domain, and for a kernel with one ([`crate::Kernel::domain`]) every power-of-two
    /// shape of each size with a warp or more in x ([`BlockShape::generate`]). A shape other
    /// than in x alone needs a kernel with a domain.
    pub block_shapes: Vec<BlockShape>,
    /// The timing options.
    pub timing: TimingSettings,
    /// `--grid`: how many blocks each row launches (one full wave).
    pub grid: GridPolicy,
    /// `--corrupt-output`: a self-test of the check. Output element INDEX is overwritten on the
    /// device after every row's launches, so every row must fail its check and the run exit 1.
    pub corrupt_output: Option<usize>,
    /// `--provenance`: print what was measured with what (PTX sha256, driver, command, date)
    /// before the header.
    pub provenance: bool,
    /// `--stats`: add each row's min, max and median absolute deviation to the table.
    pub stats: bool,
    /// `--format`: an export instead of the table (`None`: the table).
    pub format: Option<Format>,
    /// `--output`: write the table or export to this file instead of standard output.
    pub output: Option<PathBuf>,
    /// `--plot`: write an SVG plot of GB/s and occupancy against block size here.
    pub plot: Option<PathBuf>,
    /// `--json`, `--csv`, `--markdown`, `--html`: also write each of these exports to its
    /// file, whatever goes to standard output or `--output`; one file a format.
    pub exports: Vec<(Format, PathBuf)>,
    /// `--journal`: append each finished configuration to this file as one JSON line.
    pub journal: Option<PathBuf>,
    /// `--resume`: skip the configurations this journal holds under the same key (GPU,
    /// driver, PTX, kernel, work, timing, grid); those under another key are measured again.
    pub resume: Option<PathBuf>,
    /// `--launch-timeout`: a wait on the GPU longer than this is a hang (default: the longer of
    /// 10 s and 20 times the longest wait so far).
    pub launch_timeout: Option<std::time::Duration>,
    /// `--search`: every configuration to the noise-driven stop, or a race that stops the
    /// clearly slower ones after a first round, or after rungs of doubling samples (`None`: race above
    /// 24 (`RACE_ABOVE`) configurations; exhaustive with `--runs`).
    pub search: Option<Search>,
    /// `--emit-rust`: write the winning configuration here as Rust source, and its JSON beside
    /// it (`crate::results::emit`).
    pub emit_rust: Option<PathBuf>,
    /// `--force`: let `--emit-rust` replace a file it did not write itself (a hand-written
    /// `main.rs`); without it such a file is refused before the sweep.
    pub force: bool,
    /// `--objective`: what makes a row the winner (the table's best, the summary's,
    /// `--emit-rust`'s): its time (the default), its energy, or their product; the last two
    /// need `--energy`.
    pub objective: Objective,
    /// `--shard I/N`: measure shard I of the sweep's configurations alone, for `block-size
    /// merge` to put together with the others (`crate::model::shard`); on one device.
    pub shard: Option<Shard>,
    /// `--split`: with [`DeviceChoice::All`], one sweep split across the GPUs (each a shard,
    /// all at once), merged into one result; the GPUs must be of one model.
    pub split: bool,
    /// `--counters`: each measured row's hardware counters (DRAM bytes/s and its percentage
    /// of a device-to-device copy timed in the same run, achieved occupancy, warp and branch
    /// efficiency, L2 hit rate, shared-memory bank conflicts, barrier and memory stalls), read
    /// after the timed samples on a replay under Nsight Compute; where they cannot be read,
    /// `n/a` and one warning line. Needs [`crate::sweep_and_print`].
    pub counters: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            device: DeviceChoice::One(0),
            block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
            block_shapes: Vec::new(),
            timing: TimingSettings::default(),
            grid: GridPolicy::OneWave,
            corrupt_output: None,
            provenance: false,
            stats: false,
            format: None,
            output: None,
            plot: None,
            exports: Vec::new(),
            journal: None,
            resume: None,
            launch_timeout: None,
            search: None,
            emit_rust: None,
            force: false,
            objective: Objective::Time,
            shard: None,
            split: false,
            counters: false,
        }
    }
}

impl Settings {
    /// Every check that needs no device; the first that fails as one line, exit status 2.
    pub(crate) fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    /// The timing, once every check holds.
    pub(crate) fn checked(&self) -> Result<Timing, Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        check_block_sizes(&self.block_sizes).map_err(usage)?;
        check_block_shapes(&self.block_shapes).map_err(usage)?;
        let timing = self.timing.validate()?;
        if let GridPolicy::Waves(0) = self.grid {
            return Err(usage("--grid waves:0 launches nothing: give waves:1 or more".to_string()));
        }
        if self.launch_timeout.is_some_and(|timeout| timeout.is_zero()) {
            return Err(usage("--launch-timeout must be above 0 seconds".to_string()));
        }
        for (index, (format, _)) in self.exports.iter().enumerate() {
            if self.exports[..index].iter().any(|(earlier, _)| earlier == format) {
                return Err(usage(format!("{} is given twice: one file a format", format.option())));
            }
        }
        self.check_outputs().map_err(usage)?;
        let racing = self.search.filter(|search| search.races());
        if let Some(search) = racing
            && timing.stop.is_none()
        {
            return Err(usage(format!(
                "--search {search} needs the noise-driven stop: --runs is a fixed count for every configuration"
            )));
        }
        if self.objective != Objective::Time {
            if timing.energy_window.is_none() {
                return Err(usage(format!(
                    "--objective {} needs --energy: a row's energy is read only with it",
                    self.objective.name()
                )));
            }
            if let Some(search) = racing {
                return Err(usage(format!(
                    "--search {search} drops rows by their time, not by --objective {}: give --search exhaustive",
                    self.objective.name()
                )));
            }
        }
        self.check_split().map_err(usage)?;
        if let Some(resume) = &self.resume
            && resume.is_dir()
        {
            return Err(usage(format!("--resume {} is a folder, not a journal", resume.display())));
        }
        Ok(timing)
    }

    /// `--shard` and `--split`: a shard on one device, a split over all, both exhaustive, and
    /// `--emit-rust` only where the whole sweep's winner is known.
    fn check_split(&self) -> Result<(), String> {
        // The refusal of a search that races, but for the option that ends it.
        let racing = self.search.filter(|search| search.races()).map(|search| {
            format!(
                "--search {search} drops rows against a best that no shard sees: shards measure exhaustively \
                 (give --search exhaustive, the default with"
            )
        });
        if let Some(shard) = self.shard {
            if self.device == DeviceChoice::All {
                return Err(format!(
                    "--shard {shard} measures its share on one GPU (--device INDEX); to split a sweep across \
                     this machine's GPUs give --device all --split"
                ));
            }
            if let Some(racing) = &racing {
                return Err(format!("{racing} --shard)"));
            }
            if self.emit_rust.is_some() {
                return Err(format!(
                    "--emit-rust writes the sweep's winner, which shard {shard} alone does not know: merge the \
                     shards' JSON with block-size merge --emit-rust"
                ));
            }
        }
        if self.split {
            if self.device != DeviceChoice::All {
                return Err(
                    "--split splits one sweep across every GPU of this machine: give --device all".into()
                );
            }
            if let Some(racing) = &racing {
                return Err(format!("{racing} --split)"));
            }
        }
        Ok(())
    }

    /// Every file the settings write, with the option that names it: `--emit-rust` twice, for
    /// its Rust source and the JSON beside it; the journal last. With `devices` (`--device all`
    /// on a machine of that many GPUs, not split), the table, plot and exports of each device,
    /// named for it ([`files::per_device`]); `--emit-rust` and the journal are one file for all.
    fn outputs(&self, devices: Option<u32>) -> Vec<(&'static str, PathBuf)> {
        let names = |path: &PathBuf| -> Vec<PathBuf> {
            match devices {
                Some(count) => (0..count).map(|ordinal| files::per_device(path, ordinal)).collect(),
                None => vec![path.clone()],
            }
        };
        let each = |option: &'static str, path: &PathBuf| {
            names(path).into_iter().map(move |path| (option, path)).collect::<Vec<_>>()
        };
        let exports = self.exports.iter().flat_map(|(format, path)| each(format.option(), path));
        let emitted = self.emit_rust.iter().flat_map(|path| {
            [("--emit-rust", path.clone()), ("--emit-rust", crate::results::emit::json_path(path))]
        });
        let named = |option, path: &Option<PathBuf>| {
            path.iter().flat_map(|path| each(option, path)).collect::<Vec<_>>()
        };
        named("--output", &self.output)
            .into_iter()
            .chain(named("--plot", &self.plot))
            .chain(exports)
            .chain(emitted)
            .chain(self.journal.iter().map(|path| ("--journal", path.clone())))
            .collect()
    }

    /// Every output can be written ([`files::check_writable`], which opens no special file),
    /// no two name one file by any path, none but the journal names the file `--resume` reads
    /// (`--journal j --resume j` continues a journal), and `--emit-rust` replaces only files it
    /// wrote itself unless `--force`.
    fn check_outputs(&self) -> Result<(), String> {
        self.check_outputs_of(None)?;
        match &self.emit_rust {
            Some(path) if !self.force => crate::results::emit::check_replaceable(path),
            _ => Ok(()),
        }
    }

    /// [`Settings::check_outputs`]'s rule for the files of `--device all` on a machine of
    /// `devices` GPUs, which a file's name for each device ([`files::per_device`]) could break:
    /// `--json p.json --resume p-gpu1.json` on two GPUs would write GPU 1's export over the
    /// journal it resumes. Checked once the GPUs are counted, before any is opened.
    pub(crate) fn check_outputs_on(&self, devices: u32) -> Result<(), String> {
        match devices > 1 && !self.split {
            true => self.check_outputs_of(Some(devices)).map_err(|why| {
                format!("--device all on {devices} GPUs names each file for its GPU (sweep-gpu1.json): {why}")
            }),
            false => Ok(()),
        }
    }

    fn check_outputs_of(&self, devices: Option<u32>) -> Result<(), String> {
        let outputs = self.outputs(devices);
        let named: Vec<(&str, &Path)> =
            outputs.iter().map(|(option, path)| (*option, path.as_path())).collect();
        files::check_distinct(&named, &[])?;
        let inputs: Vec<(&str, &Path)> =
            self.resume.iter().map(|path| ("--resume", path.as_path())).collect();
        let replaced: Vec<(&str, &Path)> =
            named.iter().copied().filter(|(option, _)| *option != "--journal").collect();
        files::check_distinct(&replaced, &inputs)?;
        for (option, path) in named {
            files::check_writable(option, path)?;
        }
        Ok(())
    }

    /// The search for `configurations`: the one asked for, or [`Search::automatic`] (exhaustive
    /// where a fixed count leaves nothing to race).
    pub(crate) fn search_for(&self, configurations: usize, timing: &Timing) -> Search {
        match self.search {
            Some(search) => search,
            // A shard races against no global best: every shard measures to the end.
            None if timing.stop.is_none()
                || self.objective != Objective::Time
                || self.shard.is_some()
                || self.split =>
            {
                Search::Exhaustive
            }
            None => Search::automatic(configurations),
        }
    }

    /// The block of each row of a sweep of `kernel`: [`Settings::block_shapes`], or
    /// [`Settings::block_sizes`] in x alone or, for a kernel with a domain, as the shapes
    /// generated from them. A shape other than in x alone for a kernel without a domain is
    /// the one line refusing it.
    pub(crate) fn blocks_of(&self, kernel: &Kernel) -> Result<Vec<BlockShape>, String> {
        if self.block_shapes.is_empty() {
            let dimensions = kernel.shape_dimensions();
            return Ok(BlockShape::generate(&self.block_sizes, dimensions));
        }
        if kernel.domain_sides().is_none()
            && let Some(shape) = self.block_shapes.iter().find(|shape| !shape.is_linear())
        {
            return Err(format!(
                "--block-shapes {shape}: the kernel `{}` launches blocks in x alone (its description has no domain, Kernel::domain); give it block sizes, or shapes in x alone",
                kernel.pass.kernel
            ));
        }
        Ok(self.block_shapes.clone())
    }
}

/// A list of block sizes: at least one, none 0, none twice.
pub(crate) fn check_block_sizes(block_sizes: &[u32]) -> Result<(), String> {
    if block_sizes.is_empty() {
        return Err("--block-sizes lists no block size".to_string());
    }
    if block_sizes.contains(&0) {
        return Err("--block-sizes: 0 is not a block size; each is 1 to the device's maximum".to_string());
    }
    match first_repeat(block_sizes) {
        Some(size) => Err(format!("block size {size} is listed twice in --block-sizes")),
        None => Ok(()),
    }
}

/// A list of block shapes: none twice, each within every device's bounds (1024, 1024, 64
/// threads and 1024 in all); empty is `--block-sizes`'s.
pub(crate) fn check_block_shapes(shapes: &[BlockShape]) -> Result<(), String> {
    for shape in shapes {
        shape
            .check(MAX_BLOCK_DIMENSIONS, MAX_THREADS_PER_BLOCK)
            .map_err(|why| format!("--block-shapes {shape}: {why}"))?;
    }
    match first_repeat(shapes) {
        Some(shape) => Err(format!("block shape {shape} is listed twice in --block-shapes")),
        None => Ok(()),
    }
}

/// The first value of `values` that an earlier one repeats, where one does.
pub(crate) fn first_repeat<T: PartialEq + Copy>(values: &[T]) -> Option<T> {
    values.iter().enumerate().find(|&(index, value)| values[..index].contains(value)).map(|(_, &value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(settings: Settings) -> String {
        let error = settings.validate().expect_err("refused");
        assert_eq!(error.exit_status(), exit::USAGE);
        error.to_string()
    }

    fn timing(timing: TimingSettings) -> Settings {
        Settings { timing, ..Settings::default() }
    }

    #[test]
    fn the_defaults_are_the_seed_s_and_hold() {
        let settings = Settings::default();
        assert_eq!(
            settings.checked().unwrap(),
            Timing {
                min_sample: Some(crate::measure::sampling::timing::MIN_SAMPLE),
                ..Timing::fixed(TimingMode::Graph, 3, 10).until(NoiseStop::DEFAULT)
            }
        );
        assert_eq!(settings.block_sizes, DEFAULT_BLOCK_SIZES);
    }

    #[test]
    fn counts_and_block_sizes_must_be_at_least_one() {
        let base = TimingSettings::default();
        assert_eq!(
            refused(timing(TimingSettings { runs: Some(0), ..base })),
            "--runs must be at least 1, not 0"
        );
        assert_eq!(
            refused(timing(TimingSettings { min_runs: Some(0), ..base })),
            "--min-runs must be at least 1, not 0"
        );
        assert_eq!(
            refused(Settings { block_sizes: vec![64, 0], ..Settings::default() }),
            "--block-sizes: 0 is not a block size; each is 1 to the device's maximum"
        );
        assert_eq!(
            refused(Settings { block_sizes: vec![], ..Settings::default() }),
            "--block-sizes lists no block size"
        );
    }

    #[test]
    fn counts_past_any_measurement_are_refused_before_their_schedule_is_built() {
        let base = TimingSettings::default();
        assert_eq!(
            refused(timing(TimingSettings { runs: Some(u32::MAX), ..base })),
            "--runs must be at most 1000000, not 4294967295"
        );
        assert_eq!(
            refused(timing(TimingSettings { warmups: u32::MAX, ..base })),
            "--warmups must be at most 1000000, not 4294967295"
        );
        assert_eq!(
            refused(timing(TimingSettings { min_runs: Some(1_000_001), ..base })),
            "--min-runs must be at most 1000000, not 1000001"
        );
        assert_eq!(
            refused(timing(TimingSettings { launches_per_sample: Some(u32::MAX), ..base })),
            "--launches-per-sample must be at most 1000000, not 4294967295"
        );
        assert_eq!(
            refused(timing(TimingSettings { runs: Some(1000), launches_per_sample: Some(100_000), ..base })),
            "3 warm-ups and 1000 samples of 100000 launches are 100000003 launches a row, more than the \
             10000000 one row may take"
        );
        let most = TimingSettings { runs: Some(1000), launches_per_sample: Some(9_999), ..base };
        assert!(Settings { timing: most, ..Settings::default() }.checked().is_ok());
    }

    #[test]
    fn a_fixed_count_and_the_stop_s_limits_do_not_mix() {
        let base = TimingSettings { runs: Some(5), ..TimingSettings::default() };
        assert!(
            refused(timing(TimingSettings { max_noise: Some(0.01), ..base }))
                .starts_with("--runs cannot be used with --max-noise")
        );
        assert!(
            refused(timing(TimingSettings { max_time_per_row: Some(Duration::from_secs(1)), ..base }))
                .starts_with("--runs cannot be used with --max-time-per-row")
        );
        assert_eq!(
            refused(timing(TimingSettings { max_noise: Some(2.0), ..TimingSettings::default() })),
            "--max-noise must be a fraction from 0 to 1 (0.005 is half a percent), not 2"
        );
    }

    #[test]
    fn mode_specific_options_with_another_mode_are_refused() {
        let cold = TimingSettings { mode: TimingMode::Cold, ..TimingSettings::default() };
        assert_eq!(
            refused(timing(TimingSettings { launches_per_sample: Some(4), ..cold })),
            "--launches-per-sample applies to --timing batch and graph, not --timing cold"
        );
        let graph = TimingSettings { mode: TimingMode::Graph, launches_per_sample: Some(4), ..cold };
        let graph = timing(graph).checked().unwrap();
        assert_eq!(
            (graph.launches(), graph.l2_flush()),
            (4, crate::measure::sampling::timing::L2Flush::None)
        );
        assert_eq!(
            refused(timing(TimingSettings { flush_l2: Some(false), ..TimingSettings::default() })),
            "--no-flush-l2 applies to --timing cold, not --timing graph"
        );
        let cold_without_flush = timing(TimingSettings { flush_l2: Some(false), ..cold }).checked().unwrap();
        assert!(!cold_without_flush.flushes());
    }

    #[test]
    fn outputs_into_missing_folders_and_an_empty_grid_are_refused() {
        assert_eq!(
            refused(Settings { output: Some("/no/such/folder/x.json".into()), ..Settings::default() }),
            "cannot write /no/such/folder/x.json (--output): its folder does not exist"
        );
        assert_eq!(
            refused(Settings {
                exports: vec![(Format::Csv, "/no/such/folder/x.csv".into())],
                ..Settings::default()
            }),
            "cannot write /no/such/folder/x.csv (--csv): its folder does not exist"
        );
        assert_eq!(
            refused(Settings {
                output: Some("sweep.json".into()),
                exports: vec![(Format::Json, "sweep.json".into())],
                ..Settings::default()
            }),
            "--output and --json both name sweep.json: give each its own file"
        );
        assert_eq!(
            refused(Settings {
                exports: vec![(Format::Json, "a.json".into()), (Format::Json, "b.json".into())],
                ..Settings::default()
            }),
            "--json is given twice: one file a format"
        );
        assert_eq!(
            refused(Settings { grid: GridPolicy::Waves(0), ..Settings::default() }),
            "--grid waves:0 launches nothing: give waves:1 or more"
        );
        assert_eq!(
            refused(Settings { emit_rust: Some("/no/such/folder/winner.rs".into()), ..Settings::default() }),
            "cannot write /no/such/folder/winner.rs (--emit-rust): its folder does not exist"
        );
    }

    fn folder(name: &str) -> PathBuf {
        let folder = std::env::temp_dir().join(format!("settings-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(folder.join("d")).unwrap();
        folder
    }

    #[test]
    fn no_output_names_another_or_the_resumed_journal_by_any_path() {
        let folder = folder("distinct");
        let at = |name: &str| folder.join(name);
        let shown = |name: &str| at(name).display().to_string();
        let export = |format, name: &str| (format, at(name));
        let cases = [
            (
                Settings {
                    exports: vec![export(Format::Json, "d/s.json"), export(Format::Csv, "./d/s.json")],
                    ..Settings::default()
                },
                format!("--json and --csv both name {}: give each its own file", shown("./d/s.json")),
            ),
            (
                Settings {
                    exports: vec![export(Format::Json, "w.rs.json")],
                    emit_rust: Some(at("w.rs")),
                    ..Settings::default()
                },
                format!("--json and --emit-rust both name {}: give each its own file", shown("w.rs.json")),
            ),
            (
                Settings {
                    output: Some(at("t.txt")),
                    exports: vec![export(Format::Json, "./t.txt")],
                    ..Settings::default()
                },
                format!("--output and --json both name {}: give each its own file", shown("./t.txt")),
            ),
            (
                Settings {
                    resume: Some(at("j.jsonl")),
                    exports: vec![export(Format::Json, "d/../j.jsonl")],
                    ..Settings::default()
                },
                format!(
                    "--json {} names the file --resume reads: give the output a file of its own",
                    shown("d/../j.jsonl")
                ),
            ),
            (
                Settings {
                    resume: Some(at("j.jsonl")),
                    emit_rust: Some(at("j.jsonl")),
                    ..Settings::default()
                },
                format!(
                    "--emit-rust {} names the file --resume reads: give the output a file of its own",
                    shown("j.jsonl")
                ),
            ),
        ];
        for (settings, message) in cases {
            assert_eq!(refused(settings), message);
        }
        // A hard link and a symlink are the file they name.
        std::fs::write(at("a.md"), "kept").unwrap();
        std::fs::hard_link(at("a.md"), at("hard.md")).unwrap();
        std::os::unix::fs::symlink(at("a.md"), at("soft.md")).unwrap();
        for other in ["hard.md", "soft.md"] {
            let settings = Settings {
                plot: Some(at(other)),
                exports: vec![export(Format::Markdown, "a.md")],
                ..Settings::default()
            };
            assert!(refused(settings).starts_with("--plot and --markdown both name "));
        }
        // `--journal j --resume j` continues a journal: the journal may be the file resumed.
        let resumed =
            Settings { journal: Some(at("j.jsonl")), resume: Some(at("j.jsonl")), ..Settings::default() };
        assert_eq!(resumed.validate(), Ok(()));
        let twice =
            Settings { journal: Some(at("j.jsonl")), output: Some(at("j.jsonl")), ..Settings::default() };
        assert!(refused(twice).starts_with("--output and --journal both name "));
        assert_eq!(std::fs::read_to_string(at("a.md")).unwrap(), "kept");
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 4, "the checks leave no file behind");
        let _ = std::fs::remove_dir_all(folder);
    }

    #[test]
    fn a_fifo_given_as_any_output_is_checked_without_being_opened() {
        let folder = folder("fifo");
        let fifo = folder.join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        // Each open of the FIFO for writing would block: no reader ever comes.
        let settings = Settings {
            output: Some(fifo.clone()),
            journal: Some(folder.join("j.jsonl")),
            ..Settings::default()
        };
        assert_eq!(settings.validate(), Ok(()));
        let settings = Settings {
            journal: Some(fifo.clone()),
            emit_rust: Some(folder.join("w.rs")),
            ..Settings::default()
        };
        assert_eq!(settings.validate(), Ok(()));
        let _ = std::fs::remove_dir_all(folder);
    }

    #[test]
    fn emit_rust_replaces_a_file_it_did_not_write_only_with_force() {
        let folder = folder("force");
        let main = folder.join("main.rs");
        std::fs::write(&main, "fn main() {}\n").unwrap();
        let emit = Settings { emit_rust: Some(main.clone()), ..Settings::default() };
        assert_eq!(
            refused(emit.clone()),
            format!(
                "--emit-rust {} is not a file --emit-rust wrote (its first line is not `// Written by ... --emit-rust: ...`): --force replaces it",
                main.display()
            )
        );
        assert_eq!(Settings { force: true, ..emit.clone() }.validate(), Ok(()));
        // The JSON beside it is a file of its own: one that holds no winners is refused too.
        let winner = folder.join("winner.rs");
        std::fs::write(folder.join("winner.rs.json"), "[1, 2]\n").unwrap();
        let emit = Settings { emit_rust: Some(winner.clone()), ..Settings::default() };
        let why = refused(emit.clone());
        assert!(
            why.contains(
                "winner.rs.json is not a file --emit-rust wrote (it holds no list of winners: invalid type: "
            ) && why.ends_with("): --force replaces it"),
            "{why}"
        );
        assert_eq!(Settings { force: true, ..emit }.validate(), Ok(()));
        // An empty file holds nothing to lose.
        std::fs::write(&main, "").unwrap();
        assert_eq!(Settings { emit_rust: Some(main.clone()), ..Settings::default() }.validate(), Ok(()));
        assert_eq!(std::fs::read_to_string(folder.join("winner.rs.json")).unwrap(), "[1, 2]\n");
        let _ = std::fs::remove_dir_all(folder);
    }

    #[test]
    fn a_race_needs_the_noise_driven_stop_and_is_the_default_above_24_configurations() {
        let fixed = TimingSettings { runs: Some(5), ..TimingSettings::default() };
        assert_eq!(
            refused(Settings { search: Some(Search::Race), timing: fixed, ..Settings::default() }),
            "--search race needs the noise-driven stop: --runs is a fixed count for every configuration"
        );
        assert_eq!(
            refused(Settings { search: Some(Search::Rungs), timing: fixed, ..Settings::default() }),
            "--search rungs needs the noise-driven stop: --runs is a fixed count for every configuration"
        );
        let settings = Settings::default();
        let timing = settings.checked().unwrap();
        assert_eq!(settings.search_for(24, &timing), Search::Exhaustive);
        assert_eq!(settings.search_for(25, &timing), Search::Race);
        let exhaustive = Settings { search: Some(Search::Exhaustive), ..Settings::default() };
        assert_eq!(exhaustive.search_for(100, &timing), Search::Exhaustive);
        let fixed_timing = fixed.validate().unwrap();
        assert_eq!(settings.search_for(100, &fixed_timing), Search::Exhaustive);
    }
}
