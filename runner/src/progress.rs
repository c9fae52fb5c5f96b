/*!
A progress bar for sweeps long enough to wonder about: a [`Gpu`] wrapper that counts rows
(every workload's check downloads its outputs once per row) and shows an indicatif bar on standard error once the sweep
has run for two seconds. indicatif draws nothing when standard error is not a terminal, so
piped or redirected output stays clean.
*/

use crate::backend::{
    BufferId, DeviceLimits, Gpu, KernelResources, Launch, SharedMemoryFn, Suggestion, Timing,
};
use crate::ptx::KernelRef;
use crate::timing::Op;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

/// How long a sweep runs before it gets a bar.
const SHOW_AFTER: Duration = Duration::from_secs(2);

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
            ProgressStyle::with_template("{bar:40} {pos}/{len} block sizes, {elapsed} ({eta} left)")
                .expect("a valid template"),
        );
        Self { inner, bar, started: Instant::now(), shown: false }
    }

    /// Removes the bar, so the table prints on a clean line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Whether the bar was ever drawn (or would have been, on a terminal).
    pub fn shown(&self) -> bool {
        self.shown
    }

    fn row_done(&mut self) {
        self.bar.inc(1);
        if !self.shown && self.started.elapsed() >= SHOW_AFTER {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Gpu for WithProgress<'_> {
    fn limits(&self) -> &DeviceLimits {
        self.inner.limits()
    }
    fn select_kernel(&mut self, kernel: KernelRef) -> Result<()> {
        self.inner.select_kernel(kernel)
    }
    fn kernel_resources(&self) -> Result<KernelResources> {
        self.inner.kernel_resources()
    }
    fn blocks_per_sm(&self, threads_per_block: u32, dynamic_shared_memory: u32) -> Result<u32> {
        self.inner.blocks_per_sm(threads_per_block, dynamic_shared_memory)
    }
    fn suggestion(&self, dynamic_shared_memory: SharedMemoryFn) -> Result<Suggestion> {
        self.inner.suggestion(dynamic_shared_memory)
    }
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
        let result = self.inner.download(buffer, byte_offset, out);
        self.row_done();
        result
    }
    fn time_copy(&mut self, bytes: usize, timing: Timing) -> Result<Vec<f32>> {
        self.inner.time_copy(bytes, timing)
    }
    fn time_one_launch(&mut self, launch: &Launch) -> Result<f32> {
        self.inner.time_one_launch(launch)
    }
    fn time_launches(&mut self, launch: &Launch, timing: Timing) -> Result<Vec<f32>> {
        self.inner.time_launches(launch, timing)
    }
    fn run_schedule(&mut self, launch: &Launch, ops: &[Op]) -> Result<Vec<f32>> {
        self.inner.run_schedule(launch, ops)
    }
    fn clock(&self) -> Duration {
        self.inner.clock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockGpu;

    #[test]
    fn a_quick_sweep_never_shows_a_bar_and_every_row_is_counted() {
        use crate::workload::{KERNELS, Params};
        for spec in KERNELS {
            let mut gpu = MockGpu::h200_with(&[spec.rust_kernel()]);
            let mut workload = (spec.create)(&Params::frame(8, 8)).unwrap();
            workload.upload(&mut gpu).unwrap();
            let mut wrapped = WithProgress::new(&mut gpu, 3);
            let timing = Timing { warmups: 0, runs: 1, flush_l2: false };
            let result =
                crate::sweep::run(&mut wrapped, workload.as_mut(), &[32, 64, 128], timing, None).unwrap();
            assert_eq!(wrapped.bar.position(), 3, "{}", spec.name);
            assert!(!wrapped.shown());
            wrapped.finish();
            assert_eq!(result.rows.len(), 3, "the wrapper changes nothing the sweep sees");
        }
    }

    #[test]
    fn a_sweep_past_two_seconds_switches_the_bar_on() {
        let mut gpu = MockGpu::h200_like();
        let mut wrapped = WithProgress::new(&mut gpu, 2);
        wrapped.started -= SHOW_AFTER;
        wrapped.row_done();
        assert!(wrapped.shown());
        wrapped.finish();
    }
}
