/*!
A progress bar for sweeps long enough to wonder about: a [`Gpu`] wrapper that counts rows
(the sweep says when each is finished, [`Gpu::row_finished`]), says which phase the row is in
(timing, checking on the GPU, or copying back to check on the host), and shows an indicatif bar on standard error
once the sweep has run for two seconds; and [`Phase`], a line for a long host step before the
sweep (building a frame and its CPU reference, uploading it), shown once it has run for two
seconds. indicatif draws nothing when standard error is not a terminal, so piped or
redirected output stays clean.
*/

use crate::measure::gpu::backend::{BufferId, Gpu, Launch, Timing};

use crate::measure::sampling::timing::Op;
use crate::model::comparison::{ElementComparison, Mismatches};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a sweep runs before it gets a bar.
const SHOW_AFTER: Duration = Duration::from_secs(2);

/// A [`Gpu`] that shows a progress bar, one step per row checked.
pub struct WithProgress<'a> {
    inner: &'a mut dyn Gpu,
    bar: ProgressBar,
    started: Instant,
    shown: bool,
}

impl<'a> WithProgress<'a> {
    /// Wraps `inner` for a sweep of `rows` rows.
    pub fn new(inner: &'a mut dyn Gpu, rows: usize) -> Self {
        let bar = ProgressBar::with_draw_target(Some(rows as u64), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} block sizes, {elapsed} ({eta} left) {msg}")
                .expect("a valid template"),
        );
        Self { inner, bar, started: Instant::now(), shown: false }
    }

    /// Removes the bar, so the table prints on a clean line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// Whether the bar was ever drawn (or would have been, on a terminal).
    pub fn shown(&self) -> bool {
        self.shown
    }

    fn row_done(&mut self) {
        self.bar.inc(1);
        self.show_when_due();
    }

    /// Says what the current row is doing, and shows the bar once the sweep is long enough.
    fn phase(&mut self, message: &'static str) {
        self.bar.set_message(message);
        self.show_when_due();
    }

    fn show_when_due(&mut self) {
        if !self.shown && self.started.elapsed() >= SHOW_AFTER {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// What the bar says the current row is doing.
    pub fn message(&self) -> String {
        self.bar.message()
    }
}

/// A long host step (building a frame, uploading it), said on standard error with a spinner
/// once it has run for two seconds, and cleared when it ends. A thread waits the two seconds,
/// since the step itself is one call that cannot look at the clock.
pub struct Phase {
    bar: ProgressBar,
    /// Whether the step has ended, and whether it was shown; the waiter's condition.
    state: Arc<(Mutex<PhaseState>, Condvar)>,
    waiter: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct PhaseState {
    finished: bool,
    shown: bool,
}

impl Phase {
    /// Starts the step, said as `message` ("building the frame and its CPU reference").
    pub fn start(message: &'static str) -> Self {
        Self::start_after(message, SHOW_AFTER)
    }

    fn start_after(message: &'static str, after: Duration) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("a valid template"));
        bar.set_message(message);
        let state = Arc::new((Mutex::new(PhaseState::default()), Condvar::new()));
        let (line, shared) = (bar.clone(), Arc::clone(&state));
        let waiter = std::thread::spawn(move || {
            let (lock, condvar) = &*shared;
            let guard = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let (mut state, _) = condvar
                .wait_timeout_while(guard, after, |state| !state.finished)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if !state.finished {
                state.shown = true;
                line.set_draw_target(ProgressDrawTarget::stderr());
                line.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Self { bar, state, waiter: Some(waiter) }
    }

    #[cfg_attr(not(test), allow(dead_code))]
    /// Whether the step has been shown (or would have been, on a terminal).
    pub fn shown(&self) -> bool {
        self.state.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).shown
    }

    /// Ends the step and clears its line.
    pub fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        let (lock, condvar) = &*self.state;
        lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).finished = true;
        condvar.notify_all();
        if let Some(waiter) = self.waiter.take() {
            let _ = waiter.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if self.waiter.is_some() {
            self.end();
        }
    }
}

impl Gpu for WithProgress<'_> {
    crate::measure::gpu::backend::pass_on_gpu_queries!();

    fn alloc_zeroed(&mut self, bytes: usize) -> Result<BufferId> {
        self.inner.alloc_zeroed(bytes)
    }
    fn upload(&mut self, buffer: BufferId, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        self.inner.upload(buffer, byte_offset, bytes)
    }
    fn zero(&mut self, buffer: BufferId) -> Result<()> {
        self.inner.zero(buffer)
    }
    fn download(&mut self, buffer: BufferId, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        self.phase("checking against the CPU reference");
        self.inner.download(buffer, byte_offset, out)
    }
    fn copy(&mut self, from: (BufferId, usize), to: (BufferId, usize), bytes: usize) -> Result<()> {
        self.inner.copy(from, to, bytes)
    }
    fn count_mismatches(
        &mut self,
        got: (BufferId, usize),
        expected: (BufferId, usize),
        count: usize,
        comparison: ElementComparison,
    ) -> Result<Option<Mismatches>> {
        self.phase("checking on the GPU");
        self.inner.count_mismatches(got, expected, count, comparison)
    }
    fn row_finished(&mut self) {
        self.inner.row_finished();
        self.row_done();
    }
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        self.inner.time_copy(bytes, timing)
    }
    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        self.phase("timing");
        self.inner.time_one_launch(launch)
    }
    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        self.phase("timing");
        self.inner.time_launches(launch, timing)
    }
    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>> {
        self.phase("timing");
        self.inner.run_schedule(launch, ops)
    }
    fn sensors(&mut self) -> Result<&mut dyn crate::measure::sensors::Sensors, String> {
        self.inner.sensors()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::fixture;

    #[test]
    fn a_quick_sweep_never_shows_a_bar_and_every_row_is_counted() {
        for accumulates in [false, true] {
            let mut gpu = fixture::gpu();
            let kernel = fixture::kernel(64);
            let kernel = if accumulates { kernel.zeroed_before_each_launch("out") } else { kernel };
            let mut workload = fixture::workload(&mut gpu, kernel);
            workload.upload(&mut gpu).unwrap();
            let mut wrapped = WithProgress::new(&mut gpu, 3);
            let timing = Timing::launch(0, 1);
            let result =
                crate::search::sweep::run(&mut wrapped, workload.as_mut(), &[32, 64, 128], timing, None)
                    .unwrap();
            assert_eq!(wrapped.bar.position(), 3, "accumulating {accumulates}");
            assert!(!wrapped.shown());
            wrapped.finish();
            assert_eq!(result.rows.len(), 3, "the wrapper changes nothing the sweep sees");
        }
    }

    #[test]
    fn the_bar_says_which_phase_the_row_is_in() {
        let mut gpu = fixture::gpu();
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(64));
        workload.upload(&mut gpu).unwrap();
        let launch = workload
            .launch(
                crate::model::block_shape::GridShape::linear(1),
                crate::model::block_shape::BlockShape::linear(64),
            )
            .unwrap();
        let mut wrapped = WithProgress::new(&mut gpu, 1);
        wrapped.time_launches(&launch, Timing::launch(0, 1)).unwrap();
        assert_eq!(wrapped.message(), "timing");
        workload.check(&mut wrapped).unwrap();
        assert_eq!(wrapped.message(), "checking against the CPU reference");
        wrapped.row_finished();
        // A long row shows the bar at its next phase, not only when it ends.
        wrapped.started -= SHOW_AFTER;
        wrapped.time_launches(&launch, Timing::launch(0, 1)).unwrap();
        assert!(wrapped.shown());
        assert_eq!(wrapped.bar.position(), 1);
        wrapped.finish();
    }

    #[test]
    fn a_host_phase_is_said_only_when_it_runs_long() {
        let quick = Phase::start("building the frame and its CPU reference");
        assert!(!quick.shown());
        quick.finish();
        let slow = Phase::start_after("uploading the frame", Duration::from_millis(10));
        std::thread::sleep(Duration::from_millis(200));
        assert!(slow.shown());
        assert_eq!(slow.bar.message(), "uploading the frame");
        drop(slow);
    }

    #[test]
    fn a_sweep_past_two_seconds_switches_the_bar_on() {
        let mut gpu = fixture::gpu();
        let mut wrapped = WithProgress::new(&mut gpu, 2);
        wrapped.started -= SHOW_AFTER;
        wrapped.row_done();
        assert!(wrapped.shown());
        wrapped.finish();
    }
}
