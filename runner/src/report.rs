/*!
What every printed report shares, in the words of `block_size.cu`'s output: the device and
image lines, the `Timing:` line (and its shorter forms for the Markdown export and the plot),
the sentences after a sweep's table ([`Summary`]: the table, the Markdown export, the JSON
export and the plot say them alike), the `check failed:` lines and verdict for standard error,
and right-aligned columns. Each subcommand's own report is in its module under
[`crate::cmd`]; everything here is a function of results, none of the command line.
*/

use crate::backend::{DeviceLimits, Suggestion, Timing};
use crate::frame_size::mib;
use crate::model;
use crate::sweep::{ModelCheck, Sweep};
use crate::workload::Pass;
use tabled::builder::Builder;
use tabled::settings::{Alignment, Padding, Style};

/// How a row's runs are summarised: "median of 10 runs after 3 warm-ups".
fn median_of(timing: Timing) -> String {
    format!("median of {} runs after {} warm-ups", timing.runs, timing.warmups)
}

/// What `--flush-l2` adds to a timing description.
fn flushed(timing: Timing) -> &'static str {
    if timing.flush_l2 { ", L2 flushed before each run" } else { "" }
}

/// The `Timing:` line of the sweep and `tail`: "Timing: median of 10 runs after 3 warm-ups,
/// each run between its own CUDA events", and the L2 flush where there was one.
pub fn timing_line(timing: Timing) -> String {
    format!("Timing: {}, each run between its own CUDA events{}\n", median_of(timing), flushed(timing))
}

/// The same as a clause, for the Markdown export's first line.
pub fn timing_clause(timing: Timing) -> String {
    median_of(timing) + flushed(timing)
}

/// The same in a few words, for the plot's title: "median of 10 runs, L2 flushed".
pub fn timing_title(timing: Timing) -> String {
    format!("median of {} runs{}", timing.runs, if timing.flush_l2 { ", L2 flushed" } else { "" })
}

/// The device line pair, the image line (what a pass moves, as GB/s counts it) and the
/// kernel's own line where it has one; shared by the sweep, `compare`, `tail` and `variants`.
pub fn device_and_image(limits: &DeviceLimits, pass: &Pass) -> String {
    let frame = pass.frame;
    let mut text = format!(
        "GPU: {} (compute capability {}.{})\n  SMs {}, resident warps/SM {}, resident blocks/SM {}\n\
         Image: {frame}, {} pixels, {:.1} MiB {}\n",
        limits.name,
        limits.compute_capability.0,
        limits.compute_capability.1,
        limits.multiprocessors,
        limits.max_warps_per_sm(),
        limits.max_blocks_per_sm,
        frame.pixels(),
        mib(pass.bytes_per_pass),
        pass.bytes_counted,
    );
    if let Some(detail) = &pass.detail {
        text += detail;
        text.push('\n');
    }
    text
}

/// A row's limiters as the table and the exports print them: `-` where the model did not run.
pub fn limiter_cell(limiters: &[model::Limiter]) -> String {
    if limiters.is_empty() { "-".to_string() } else { model::limiter_names(limiters) }
}

/// The sentences after a sweep's table: the driver's suggestion, the fastest row, how many rows
/// come near it, and the occupancy model's check. The table, the Markdown export, the JSON
/// export's `model_check` and the plot's legend all say them in these words.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    suggestion: Suggestion,
    /// The fastest row's block size and median milliseconds.
    fastest: Option<(u32, f64)>,
    rows_near_best: usize,
    rows: usize,
    /// Whether some row is marked as within the measured noise of the fastest.
    noise_marks: bool,
    model_check: ModelCheck,
    /// The dynamic shared memory of every row, where it is the same in all.
    dynamic_shared_memory: Option<u32>,
}

impl Summary {
    pub fn of(sweep: &Sweep) -> Self {
        Self {
            suggestion: sweep.suggestion,
            fastest: sweep.best().map(|best| (best.threads_per_block, best.stats.median)),
            rows_near_best: sweep.rows_near_best(),
            rows: sweep.rows.len(),
            noise_marks: sweep.rows.iter().any(|row| sweep.within_noise_of_best(row)),
            model_check: sweep.model_check.clone(),
            dynamic_shared_memory: sweep.constant_dynamic_shared_memory(),
        }
    }

    /// "cuOccupancyMaxPotentialBlockSize suggests 1024 threads per block and a grid of 264 blocks."
    pub fn suggestion(&self) -> String {
        format!(
            "cuOccupancyMaxPotentialBlockSize suggests {} threads per block and a grid of {} blocks.",
            self.suggestion.threads_per_block, self.suggestion.grid_blocks
        )
    }

    /// "Fastest measured: 64 threads per block at 0.038 ms."
    pub fn fastest(&self) -> Option<String> {
        self.fastest
            .map(|(threads, ms)| format!("Fastest measured: {threads} threads per block at {ms:.3} ms."))
    }

    /// The plot's legend for the fastest row: "fastest: 64 threads, 0.038 ms".
    pub fn fastest_label(&self) -> Option<String> {
        self.fastest.map(|(threads, ms)| format!("fastest: {threads} threads, {ms:.3} ms"))
    }

    /// "8 of 13 configurations reach at least 95 percent of that row."
    pub fn near_best(&self) -> String {
        format!(
            "{} of {} configurations reach at least 95 percent of that row.",
            self.rows_near_best, self.rows
        )
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
        }
    }

    /// The lines after the table, each ending in a newline.
    pub fn lines(&self) -> String {
        let mut text = self.suggestion() + "\n";
        for line in self.fastest().into_iter().chain([self.near_best()]) {
            text += &line;
            text.push('\n');
        }
        if let Some(note) = self.noise_note() {
            text += note;
            text.push('\n');
        }
        text + &self.model_sentence() + "\n"
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockGpu;
    use crate::workload::{Params, grayscale};

    fn sweep(gpu: &mut MockGpu, sizes: &[u32]) -> Sweep {
        let mut workload = (grayscale::KERNEL.create)(&Params::frame(16, 16)).unwrap();
        gpu.loaded.clear();
        crate::backend::Device::load(gpu, &grayscale::KERNEL.rust_kernel()).unwrap();
        workload.upload(gpu).unwrap();
        let timing = Timing { warmups: 0, runs: 3, flush_l2: false };
        crate::sweep::run(gpu, workload.as_mut(), sizes, timing, None).unwrap()
    }

    #[test]
    fn every_format_says_the_timing_in_the_same_words() {
        let timing = Timing { warmups: 3, runs: 10, flush_l2: true };
        assert_eq!(
            timing_line(timing),
            "Timing: median of 10 runs after 3 warm-ups, each run between its own CUDA events, L2 flushed before each run\n"
        );
        assert_eq!(timing_clause(timing), "median of 10 runs after 3 warm-ups, L2 flushed before each run");
        assert_eq!(timing_title(timing), "median of 10 runs, L2 flushed");
        assert_eq!(timing_title(Timing { flush_l2: false, ..timing }), "median of 10 runs");
    }

    #[test]
    fn the_summary_says_each_sentence_once_for_every_format() {
        let mut gpu = MockGpu::h200_like();
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        let summary = Summary::of(&sweep(&mut gpu, &[64, 128]));
        assert_eq!(
            summary.lines(),
            "cuOccupancyMaxPotentialBlockSize suggests 1024 threads per block and a grid of 264 blocks.\n\
             Fastest measured: 128 threads per block at 0.250 ms.\n\
             1 of 2 configurations reach at least 95 percent of that row.\n\
             Occupancy model (16 registers/thread, 0 B static shared memory) agrees with the driver's blk/SM at 2 of 2 block sizes.\n"
        );
        assert_eq!(summary.fastest_label().as_deref(), Some("fastest: 128 threads, 0.250 ms"));
        assert_eq!(
            summary.model_clause(),
            "model with 16 registers/thread and 0 B static shared memory agrees at 2 of 2 rows"
        );
    }

    #[test]
    fn an_architecture_the_model_does_not_know_is_said_to_be_unchecked() {
        // A B200 (10.0): whatever its residency, the model does not judge it.
        let mut gpu = MockGpu::h200_like();
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
