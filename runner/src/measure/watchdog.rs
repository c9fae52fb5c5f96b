/*!
No wait on the GPU without a bound. Every blocking wait of the CUDA backend (a stream or event
synchronisation, a copy) runs inside [`wait`]; a thread of this process checks the wait in
flight, and one that has lasted longer than the timeout is a hang: the configuration being
measured is named ([`set_current`]), the hang is handed to the handler (which journals it),
one line goes to standard error, and the process exits with [`crate::error::exit::RESTART`] so that
its supervisor starts a fresh worker for the configurations left (a process without a
supervisor exits 1). A hung kernel cannot be
stopped from the host, and its context cannot be used again; the process's end frees both.

The timeout: `--launch-timeout` where given; else the longer of [`FLOOR`] and
[`FACTOR`] times the longest wait that has finished in this process (a slow kernel's own
samples raise it).
*/

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// The shortest default timeout.
pub const FLOOR: Duration = Duration::from_secs(10);
/// The default timeout is at least this many times the longest finished wait.
pub const FACTOR: u32 = 20;

/// What the watchdog knows: when the wait in flight began (nanoseconds after [`epoch`], 0 for
/// none), the longest finished wait, the timeout given, the configuration measured.
static BUSY_SINCE: AtomicU64 = AtomicU64::new(0);
static LONGEST: AtomicU64 = AtomicU64::new(0);
static GIVEN_TIMEOUT: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<Option<String>> = Mutex::new(None);
/// What a hang does before the process exits: `handler(configuration, message)`.
type HangHandler = Box<dyn Fn(&str, &str) + Send>;
static ON_HANG: Mutex<Option<HangHandler>> = Mutex::new(None);
static STARTED: Once = Once::new();

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    (epoch().elapsed().as_nanos() as u64).max(1)
}

/// Sets the timeout (`--launch-timeout`); `None` keeps the default.
pub(crate) fn set_timeout(timeout: Option<Duration>) {
    GIVEN_TIMEOUT.store(timeout.map_or(0, |timeout| timeout.as_nanos().max(1) as u64), Ordering::SeqCst);
}

/// The timeout in force now.
pub fn timeout() -> Duration {
    match GIVEN_TIMEOUT.load(Ordering::SeqCst) {
        0 => FLOOR.max(Duration::from_nanos(LONGEST.load(Ordering::SeqCst)) * FACTOR),
        given => Duration::from_nanos(given),
    }
}

/// Names the configuration the waits from now on belong to ("256 threads per block"), or none.
pub(crate) fn set_current(configuration: Option<String>) {
    *CURRENT.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = configuration;
}

/// Sets what a hang does before the process exits: `handler(configuration, message)`, where
/// the sweep journals the configuration as hung.
pub(crate) fn on_hang(handler: impl Fn(&str, &str) + Send + 'static) {
    *ON_HANG.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Box::new(handler));
}

/// Runs `blocking` (a wait on the GPU) under the watchdog.
pub(crate) fn wait<T>(blocking: impl FnOnce() -> T) -> T {
    start();
    let started = now_ns();
    BUSY_SINCE.store(started, Ordering::SeqCst);
    let result = blocking();
    BUSY_SINCE.store(0, Ordering::SeqCst);
    LONGEST.fetch_max(now_ns().saturating_sub(started), Ordering::SeqCst);
    result
}

/// The watching thread, started with the first wait.
fn start() {
    STARTED.call_once(|| {
        let spawned = std::thread::Builder::new().name("watchdog".into()).spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let since = BUSY_SINCE.load(Ordering::SeqCst);
                if since != 0 && Duration::from_nanos(now_ns().saturating_sub(since)) > timeout() {
                    hang();
                }
            }
        });
        // Without the thread there is no watchdog, as there was none before: say so once.
        if let Err(error) = spawned {
            eprintln!("warning: no watchdog on GPU waits ({error}); a hung kernel would hang this run");
        }
    });
}

/// A wait has lasted past the timeout: journal it, say so, end the process for its supervisor.
fn hang() -> ! {
    let configuration = CURRENT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
        .unwrap_or_else(|| "a GPU operation outside the sweep's rows".to_string());
    let message = format!(
        "hung: a wait on the GPU did not finish within {:.1} s (the watchdog's timeout, which \
         --launch-timeout sets); the usual cause is a barrier that not every thread of a block reaches",
        timeout().as_secs_f64()
    );
    if let Some(handler) = ON_HANG.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).as_ref() {
        handler(&configuration, &message);
    }
    eprintln!("Error: {configuration}: {message}");
    // A supervisor starts a fresh worker for the rest; a process on its own can only end.
    std::process::exit(if crate::measure::supervise::is_worker() {
        crate::error::exit::RESTART
    } else {
        crate::error::exit::FAILED
    })
}
