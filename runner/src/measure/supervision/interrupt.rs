/*!
SIGINT and SIGTERM during a sweep: the first asks the sweep to stop after the sample in flight,
print and write the rows finished so far, marked interrupted, and exit 130 (SIGINT) or 143
(SIGTERM); a second of either exits at once with that status.
*/

use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the run to stop (0: none yet). Process-wide because signals are: a
/// handler is given no context but the signal, and a process has one disposition for each.
static REQUESTED: AtomicI32 = AtomicI32::new(0);
static INSTALLED: Once = Once::new();

/// A signal that stops a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT (Ctrl-C): exit 130.
    Interrupt,
    /// SIGTERM: exit 143.
    Terminate,
}

impl Signal {
    /// `128 + the signal's number`, the shell's status for it.
    pub fn exit_status(self) -> i32 {
        match self {
            Self::Interrupt => 130,
            Self::Terminate => 143,
        }
    }

    /// Its name, for the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }

    fn from_number(number: i32) -> Option<Self> {
        match number {
            signal_hook::consts::SIGINT => Some(Self::Interrupt),
            signal_hook::consts::SIGTERM => Some(Self::Terminate),
            _ => None,
        }
    }
}

/// Catches SIGINT and SIGTERM from now on (once per process): the first is recorded for
/// [`requested`], a second ends the process at once with its status.
pub(crate) fn install() {
    INSTALLED.call_once(|| {
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // SAFETY: the handler only touches an atomic and calls `_exit`, both
            // async-signal-safe.
            let registered = unsafe {
                signal_hook::low_level::register(signal, move || {
                    if REQUESTED.swap(signal, Ordering::SeqCst) != 0 {
                        signal_hook::low_level::exit(128 + signal);
                    }
                })
            };
            // Without the handler the signal keeps its default action: the run ends at once,
            // as it always did. Nothing to report.
            let _ = registered;
        }
    });
}

/// The signal that asked the run to stop, if one has.
pub fn requested() -> Option<Signal> {
    Signal::from_number(REQUESTED.load(Ordering::SeqCst))
}

/// Records `signal` as if it had arrived (the mock's signal mid-row, in tests).
#[cfg(any(test, feature = "mock"))]
pub fn simulate(signal: Signal) {
    let number = match signal {
        Signal::Interrupt => signal_hook::consts::SIGINT,
        Signal::Terminate => signal_hook::consts::SIGTERM,
    };
    REQUESTED.store(number, Ordering::SeqCst);
}

/// The error a sweep stops with when a signal asked it to: the rows finished before it are
/// kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted(pub Signal);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}", self.0.name())
    }
}

impl std::error::Error for Interrupted {}
