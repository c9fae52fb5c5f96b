/*!
No wait on the GPU without a bound. Each open device has its [`Watchdog`]; every blocking wait
of its backend (a stream or event synchronisation, a copy) runs inside [`Watchdog::wait`], and a
thread watches the wait in flight. One that has lasted longer than the timeout is a hang: the
configuration being measured is named ([`Watchdog::set_current`]), the hang is handed to the
handler (which journals it), one line goes to standard error, and the process exits with
[`crate::error::exit::RESTART`] so that its supervisor starts a fresh worker for the
configurations left (a process without a supervisor exits 1). A hung kernel cannot be stopped
from the host, and its context cannot be used again; the process's end frees both, which is
why a hang ends the process and not only the sweep.

The timeout is the sweep's (`--launch-timeout`, [`crate::Settings::launch_timeout`], set with
[`Watchdog::set_timeout`]); where it gives none, the longer of [`FLOOR`] and [`FACTOR`] times
the longest wait that has finished on this device (a slow kernel's own samples raise it).
*/

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

/// The shortest default timeout.
pub const FLOOR: Duration = Duration::from_secs(10);
/// The default timeout is at least this many times the longest finished wait.
pub const FACTOR: u32 = 20;
/// How often the watching thread looks at the wait in flight.
const POLL: Duration = Duration::from_millis(100);

/// What a hang does before the process exits: `handler(configuration, message)`.
type HangHandler = Box<dyn Fn(&str, &str) + Send>;

/// The watchdog of one open device.
pub struct Watchdog {
    state: Arc<State>,
}

/// What the watching thread and the waits share.
struct State {
    /// Nanoseconds after `epoch` at which the wait in flight began; 0 for none.
    busy_since: AtomicU64,
    /// The longest finished wait, in nanoseconds.
    longest: AtomicU64,
    /// The timeout given, in nanoseconds; 0 for the default.
    given: AtomicU64,
    /// Whether this process is a supervised worker ([`Watchdog::set_supervised`]).
    supervised: AtomicBool,
    epoch: Instant,
    /// The configuration the waits belong to.
    current: Mutex<Option<String>>,
    on_hang: Mutex<Option<HangHandler>>,
    /// The watching thread, started with the first wait.
    started: Once,
}

impl Watchdog {
    /// A watchdog with the default timeout and no thread yet.
    pub fn new() -> Self {
        Self {
            state: Arc::new(State {
                busy_since: AtomicU64::new(0),
                longest: AtomicU64::new(0),
                given: AtomicU64::new(0),
                supervised: AtomicBool::new(false),
                epoch: Instant::now(),
                current: Mutex::new(None),
                on_hang: Mutex::new(None),
                started: Once::new(),
            }),
        }
    }

    /// Says whether this process is a supervised worker (crate::launch's), whose hang ends it
    /// with RESTART, so that its supervisor starts a fresh worker for the rest, rather than
    /// FAILED.
    pub fn set_supervised(&self, supervised: bool) {
        self.state.supervised.store(supervised, Ordering::SeqCst);
    }

    /// Sets the timeout (`--launch-timeout`); `None` for the default.
    pub fn set_timeout(&self, timeout: Option<Duration>) {
        let nanos = timeout.map_or(0, |timeout| timeout.as_nanos().clamp(1, u128::from(u64::MAX)) as u64);
        self.state.given.store(nanos, Ordering::SeqCst);
    }

    /// The timeout in force now.
    pub fn timeout(&self) -> Duration {
        self.state.timeout()
    }

    /// Names the configuration the waits from now on belong to ("256 threads per block"), or none.
    pub(crate) fn set_current(&self, configuration: Option<String>) {
        *lock(&self.state.current) = configuration;
    }

    /// Sets what a hang does before the process exits: `handler(configuration, message)`, where
    /// the sweep journals the configuration as hung.
    pub(crate) fn on_hang(&self, handler: impl Fn(&str, &str) + Send + 'static) {
        *lock(&self.state.on_hang) = Some(Box::new(handler));
    }

    /// Runs `blocking` (a wait on the GPU) under the watchdog.
    pub(crate) fn wait<T>(&self, blocking: impl FnOnce() -> T) -> T {
        self.start();
        let state = &self.state;
        let started = state.now_ns();
        state.busy_since.store(started, Ordering::SeqCst);
        let result = blocking();
        state.busy_since.store(0, Ordering::SeqCst);
        state.longest.fetch_max(state.now_ns().saturating_sub(started), Ordering::SeqCst);
        result
    }

    /// The watching thread: it holds the state weakly, and ends once the device is gone.
    fn start(&self) {
        let watched: Weak<State> = Arc::downgrade(&self.state);
        self.state.started.call_once(|| {
            let spawned = std::thread::Builder::new().name("watchdog".into()).spawn(move || {
                loop {
                    std::thread::sleep(POLL);
                    let Some(state) = watched.upgrade() else { return };
                    let since = state.busy_since.load(Ordering::SeqCst);
                    if since != 0
                        && Duration::from_nanos(state.now_ns().saturating_sub(since)) > state.timeout()
                    {
                        state.hang();
                    }
                }
            });
            // Without the thread there is no watchdog, as there was none before: say so once.
            if let Err(error) = spawned {
                eprintln!("warning: no watchdog on GPU waits ({error}); a hung kernel would hang this run");
            }
        });
    }
}

impl Default for Watchdog {
    fn default() -> Self {
        Self::new()
    }
}

/// A copy watches on its own (a mock device cloned for a second GPU), with the same timeout.
impl Clone for Watchdog {
    fn clone(&self) -> Self {
        let copy = Self::new();
        copy.state.given.store(self.state.given.load(Ordering::SeqCst), Ordering::SeqCst);
        copy
    }
}

impl std::fmt::Debug for Watchdog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watchdog").field("timeout", &self.timeout()).finish_non_exhaustive()
    }
}

impl State {
    fn now_ns(&self) -> u64 {
        (self.epoch.elapsed().as_nanos() as u64).max(1)
    }

    fn timeout(&self) -> Duration {
        match self.given.load(Ordering::SeqCst) {
            0 => FLOOR.max(Duration::from_nanos(self.longest.load(Ordering::SeqCst)) * FACTOR),
            given => Duration::from_nanos(given),
        }
    }

    /// A wait has lasted past the timeout: journal it, say so, end the process for its
    /// supervisor.
    fn hang(&self) -> ! {
        let configuration = lock(&self.current)
            .clone()
            .unwrap_or_else(|| "a GPU operation outside the sweep's rows".to_string());
        let message = format!(
            "hung: a wait on the GPU did not finish within {:.1} s (the watchdog's timeout, which \
             --launch-timeout sets); the usual cause is a barrier that not every thread of a block reaches",
            self.timeout().as_secs_f64()
        );
        if let Some(handler) = lock(&self.on_hang).as_ref() {
            handler(&configuration, &message);
        }
        eprintln!("Error: {configuration}: {message}");
        // A supervisor starts a fresh worker for the rest; a process on its own can only end.
        std::process::exit(if self.supervised.load(Ordering::SeqCst) {
            crate::error::exit::RESTART
        } else {
            crate::error::exit::FAILED
        })
    }
}

/// The value behind `mutex`, even where a panicking thread poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_is_the_sweeps_or_grows_with_the_longest_wait() {
        let watchdog = Watchdog::new();
        assert_eq!(watchdog.timeout(), FLOOR);
        watchdog.wait(|| std::thread::sleep(Duration::from_millis(20)));
        assert_eq!(watchdog.timeout(), FLOOR, "20 ms x 20 is below the floor");
        watchdog.state.longest.store(Duration::from_secs(1).as_nanos() as u64, Ordering::SeqCst);
        assert_eq!(watchdog.timeout(), Duration::from_secs(20));
        watchdog.set_timeout(Some(Duration::from_millis(1500)));
        assert_eq!(watchdog.timeout(), Duration::from_millis(1500));
        assert_eq!(watchdog.clone().timeout(), Duration::from_millis(1500), "a copy keeps the timeout given");
        // Two devices, two watchdogs: one's timeout is not the other's.
        assert_eq!(Watchdog::new().timeout(), FLOOR);
        watchdog.set_timeout(None);
        assert_eq!(watchdog.timeout(), Duration::from_secs(20));
    }

    #[test]
    fn the_watching_thread_ends_with_its_device() {
        let watchdog = Watchdog::new();
        watchdog.wait(|| ());
        let watched = Arc::downgrade(&watchdog.state);
        drop(watchdog);
        // The thread holds the state only while it looks; it lets go within one poll.
        std::thread::sleep(POLL * 3);
        assert!(watched.upgrade().is_none());
    }
}
