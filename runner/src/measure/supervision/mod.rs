//! What keeps a sweep in hand: the watchdog on every GPU wait, signals, the supervised worker
//! and its restarts, and progress on the terminal.

pub mod interrupt;
pub mod progress;
pub mod supervise;
pub mod watchdog;
