/*!
A sweep in a worker process, under a supervisor. A kernel that faults in a way that poisons the
CUDA context, or hangs, can only be left behind by ending the process that holds the context;
the supervisor is the process that stays. It starts the worker (the same program, or
`block-size-cuda` for `block-size`) with a journal, and where the worker exits with
[`crate::exit::RESTART`] (its failed configuration journaled) starts a fresh one that resumes
from the journal, until one finishes; its exit status is the run's.

The worker learns from its environment that it is supervised ([`Supervision::from_env`]):
which journal to write, which attempt it is (the second and later resume from the journal and
do not print the header again).
*/

use crate::error::{Error, exit, shown};
use crate::measure::profiler::ReplayOrder;
use crate::model::shard::Shard;
use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The environment variable that marks a supervised worker: the journal it writes.
const JOURNAL: &str = "BLOCK_SIZE_WORKER_JOURNAL";
/// Which attempt the worker is, from 1.
const ATTEMPT: &str = "BLOCK_SIZE_WORKER_ATTEMPT";
/// For one worker of several at once (`--device all`): the device it measures.
const DEVICE: &str = "BLOCK_SIZE_WORKER_DEVICE";
/// With [`DEVICE`], under `--split`: the shard it measures, `I/N`.
const SHARD: &str = "BLOCK_SIZE_WORKER_SHARD";
/// With [`DEVICE`]: where it writes its result's JSON for the process that started it, which
/// alone writes the files the settings name.
const PART: &str = "BLOCK_SIZE_WORKER_PART";

/// What a supervised worker was told.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Supervision {
    /// The journal the supervisor reads back; `None`: not supervised.
    pub journal: Option<PathBuf>,
    /// 1 for the first worker, more after a restart.
    pub attempt: u32,
    /// Where this worker is one of several at once: its device, its shard (`--split`), and
    /// where its result goes.
    pub part: Option<Part>,
    /// Where this process is a replay under a profiler (`--counters`): its device and where it
    /// lists what it launched ([`crate::measure::profiler`]).
    pub replay: Option<ReplayOrder>,
}

/// One worker's share of a run on several devices at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// The device it measures.
    pub device: u32,
    /// The shard of the sweep it measures (`--split`); `None`: the whole sweep.
    pub shard: Option<Shard>,
    /// Where it writes its result's JSON export.
    pub result: PathBuf,
}

impl Supervision {
    /// This process's supervision, from its environment: read once, where a sweep starts
    /// (`sweep`, `sweep_and_print`, `open_early`), and passed in.
    pub fn from_env() -> Self {
        let journal = std::env::var_os(JOURNAL).map(PathBuf::from);
        let attempt = std::env::var(ATTEMPT).ok().and_then(|text| text.parse().ok()).unwrap_or(1);
        let device = std::env::var(DEVICE).ok().and_then(|text| text.parse().ok());
        let result = std::env::var_os(PART).map(PathBuf::from);
        let part = device.zip(result).map(|(device, result)| Part {
            device,
            shard: std::env::var(SHARD).ok().and_then(|text| Shard::parse(&text).ok()),
            result,
        });
        let replay =
            std::env::var(crate::measure::profiler::REPLAY).ok().and_then(|text| ReplayOrder::parse(&text));
        Self { journal, attempt, part, replay }
    }

    /// Whether a supervisor will start a fresh worker when this one exits with RESTART.
    pub fn active(&self) -> bool {
        self.journal.is_some()
    }

    /// Whether an earlier worker printed the header already.
    pub fn restarted(&self) -> bool {
        self.active() && self.attempt > 1
    }
}

/// Runs `program` with the command line `args` (its first, the name it is started as) as a
/// supervised worker until one finishes, and returns its exit
/// status: a worker that exits with RESTART is followed by a fresh one, as long as each such
/// worker journaled at least one more configuration (the one that cost it), so that every
/// restart is progress and the run ends. `journal` is the run's `--journal` where given
/// (the workers then append to it), else a temporary file removed afterwards.
///
/// The worker runs in a process group of its own, and every SIGINT and SIGTERM this process
/// gets (a Ctrl-C at the terminal reaches this process's group) is passed on to it once: the
/// worker prints what it has and exits 130 or 143, or at a second signal exits at once; this
/// process then exits with the worker's status.
pub fn supervise(program: &Path, args: &[OsString], journal: Option<&Path>) -> Result<i32, Error> {
    let temporary = journal.is_none().then(temporary_journal);
    let journal = journal.map(Path::to_path_buf).or_else(|| temporary.clone()).expect("one of the two");
    let signals = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
    let received: Vec<std::sync::Arc<AtomicUsize>> = signals.iter().map(|_| Default::default()).collect();
    for (&signal, count) in signals.iter().zip(&received) {
        let count = count.clone();
        // SAFETY: the handler only increments an atomic. Without it a signal ends this process
        // at once, as it always did, and the worker is left to the terminal's next signal.
        let _ = unsafe {
            signal_hook::low_level::register(signal, move || {
                count.fetch_add(1, Ordering::SeqCst);
            })
        };
    }
    let mut forwarded = vec![0; signals.len()];
    let result = (|| {
        let mut worker = Worker::start(program, args, journal.clone(), Vec::new(), None)?;
        loop {
            for ((&signal, count), forwarded) in signals.iter().zip(&received).zip(&mut forwarded) {
                while *forwarded < count.load(Ordering::SeqCst) {
                    worker.signal(signal);
                    *forwarded += 1;
                }
            }
            // A signal ends the run, whatever the worker exited with: its status, or the
            // signal's where the worker was on its way to a restart.
            let signalled = signals
                .iter()
                .zip(&received)
                .find(|(_, count)| count.load(Ordering::SeqCst) > 0)
                .map(|(&signal, _)| signal);
            match worker.poll(signalled)? {
                Some(code) => return Ok(code),
                // Woken at the worker's exit, else every 20 ms to pass a signal on.
                None => worker.wait(std::time::Duration::from_millis(20)),
            }
        }
    })();
    if let Some(path) = temporary {
        let _ = std::fs::remove_file(path);
    }
    result
}

/// Leaves out of `command`'s environment what this process was told as a worker, so that a
/// program it starts (a replay under a profiler) is no worker of this run: it journals
/// nothing, resumes nothing and writes no part.
pub(crate) fn clear_worker_environment(command: &mut Command) {
    for name in [JOURNAL, ATTEMPT, DEVICE, SHARD, PART] {
        command.env_remove(name);
    }
}

/// A temporary journal's path, unique to this process and moment.
pub(crate) fn temporary_journal() -> PathBuf {
    std::env::temp_dir().join(format!("block-size-journal-{}-{}.jsonl", std::process::id(), nanos()))
}

/// One supervised worker: the process now measuring, and what starts the next one after a
/// restart.
pub(crate) struct Worker {
    program: PathBuf,
    args: Vec<OsString>,
    journal: PathBuf,
    environment: Vec<(&'static str, OsString)>,
    /// Standard output and error go to these files where given (else this process's).
    output: Option<(PathBuf, PathBuf)>,
    attempt: u32,
    /// Journal lines when this attempt started.
    journaled: usize,
    child: std::process::Child,
    /// One message once `child` has exited ([`exit_of`]).
    exited: std::sync::mpsc::Receiver<()>,
}

impl Worker {
    /// Starts the first attempt of `program` with `args`, journaling to `journal`, with
    /// `environment` besides the supervision's, its standard output and error appended to
    /// `output`'s two files where given.
    pub fn start(
        program: &Path,
        args: &[OsString],
        journal: PathBuf,
        environment: Vec<(&'static str, OsString)>,
        output: Option<(PathBuf, PathBuf)>,
    ) -> Result<Self, Error> {
        let journaled = journal_lines(&journal);
        let child = spawn(program, args, &journal, 1, &environment, output.as_ref())?;
        Ok(Self {
            program: program.to_path_buf(),
            args: args.to_vec(),
            journal,
            environment,
            output,
            attempt: 1,
            journaled,
            exited: exit_of(child.id()),
            child,
        })
    }

    /// Returns once the worker now running has exited, or after `timeout`, whichever is first:
    /// the run ends as its worker does, not at the next tick of a poll.
    pub fn wait(&self, timeout: std::time::Duration) {
        use std::sync::mpsc::RecvTimeoutError;
        match self.exited.recv_timeout(timeout) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            // No thread waits on it (it could not start): a plain tick.
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(timeout),
        }
    }

    /// Sends `signal` to the worker now running.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) of our own child, not yet reaped (its pid is its own).
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
    }

    /// `Some(status)` once the run of this worker is over; `None` while it runs (after a
    /// restart, the fresh one runs). `signalled`: a signal this process got, which ends the run
    /// at the next exit.
    pub fn poll(&mut self, signalled: Option<i32>) -> Result<Option<i32>, Error> {
        let status = match self.child.try_wait() {
            Ok(Some(status)) => status,
            Ok(None) => return Ok(None),
            Err(error) => return Err(Error::new(exit::FAILED, format!("waiting for the worker: {error}"))),
        };
        let code = status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt as _;
            128 + status.signal().unwrap_or(0)
        });
        match (code, signalled) {
            (exit::RESTART, Some(signal)) => Ok(Some(128 + signal)),
            (exit::RESTART, None) if journal_lines(&self.journal) > self.journaled => {
                self.attempt += 1;
                self.journaled = journal_lines(&self.journal);
                self.child = spawn(
                    &self.program,
                    &self.args,
                    &self.journal,
                    self.attempt,
                    &self.environment,
                    self.output.as_ref(),
                )?;
                self.exited = exit_of(self.child.id());
                Ok(None)
            }
            (exit::RESTART, None) => Err(Error::new(
                exit::FAILED,
                "a worker lost the GPU context without journaling the configuration it was measuring; giving up",
            )),
            (code, _) => Ok(Some(code)),
        }
    }

    /// The journal its attempts write.
    pub fn journal(&self) -> &Path {
        &self.journal
    }
}

/// Starts attempt `attempt` of the worker: in a process group of its own, ended with this
/// process ([`end_with`]).
fn spawn(
    program: &Path,
    args: &[OsString],
    journal: &Path,
    attempt: u32,
    environment: &[(&'static str, OsString)],
    output: Option<&(PathBuf, PathBuf)>,
) -> Result<std::process::Child, Error> {
    let cannot =
        |error: std::io::Error| Error::new(exit::FAILED, format!("cannot start {}: {error}", shown(program)));
    let supervisor = std::process::id() as libc::pid_t;
    let mut command = Command::new(program);
    command
        .process_group(0)
        .arg0(args.first().map_or(program.as_os_str(), |name| name.as_os_str()))
        .args(args.iter().skip(1))
        .env(JOURNAL, journal)
        .env(ATTEMPT, attempt.to_string());
    for (name, value) in environment {
        command.env(name, value);
    }
    if let Some((stdout, stderr)) = output {
        let append = |path: &Path| std::fs::OpenOptions::new().create(true).append(true).open(path);
        command.stdout(append(stdout).map_err(cannot)?).stderr(append(stderr).map_err(cannot)?);
    }
    // SAFETY: the closure runs in the child between fork and exec and calls only
    // prctl(2) and getppid(2), which are async-signal-safe.
    unsafe { command.pre_exec(move || end_with(supervisor)) };
    command.spawn().map_err(cannot)
}

/// A channel that gets one message when child process `pid` has exited, from a thread that
/// waits for it with waitid(2) and `WNOWAIT`: the child is left for [`Worker::poll`] to reap.
/// The thread ends with the child (or at once where the child was reaped before it waited).
fn exit_of(pid: u32) -> std::sync::mpsc::Receiver<()> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let _ = std::thread::Builder::new().name("worker-exit".into()).spawn(move || {
        loop {
            // SAFETY: waitid(2) on a child of this process, into a siginfo_t of its own; WNOWAIT
            // leaves the child unreaped.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let waited = unsafe {
                libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
            };
            if waited == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        let _ = sender.send(());
    });
    receiver
}

/// The environment of the worker of `part`: its device, its shard, its result's file.
pub(crate) fn part_environment(part: &Part) -> Vec<(&'static str, OsString)> {
    let mut environment =
        vec![(DEVICE, part.device.to_string().into()), (PART, part.result.clone().into_os_string())];
    if let Some(shard) = part.shard {
        environment.push((SHARD, shard.to_string().into()));
    }
    environment
}

/// Lines in the journal at `path` (0 where it does not exist yet): configurations finished.
fn journal_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

/// Nanoseconds since the epoch, which with the process id names a temporary file or folder.
pub(crate) fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos())
}

/// In a worker about to start: it gets SIGKILL when its supervisor dies (Linux's parent-death
/// signal), so that a supervisor killed with SIGKILL (`kill -9`, the OOM killer), which can pass
/// nothing on, leaves no worker behind in its own process group, still measuring on the GPU
/// beside whatever runs next and appending to the journal. Where the supervisor died before
/// this call, the worker does not start.
fn end_with(supervisor: libc::pid_t) -> std::io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number; getppid has no arguments.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != supervisor {
            return Err(std::io::Error::other("its supervisor ended before it started"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn the_wait_for_a_worker_ends_at_its_exit_and_leaves_its_status_to_poll() {
        let journal = temporary_journal();
        let shell = |script: &str| -> Vec<OsString> { vec!["sh".into(), "-c".into(), script.into()] };
        let mut worker =
            Worker::start(Path::new("/bin/sh"), &shell("exit 7"), journal.clone(), Vec::new(), None)
                .expect("sh starts");
        let started = Instant::now();
        worker.wait(Duration::from_secs(30));
        // Well before the timeout: woken by the exit (a tick would have taken all 30 s).
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
        assert_eq!(worker.poll(None).unwrap(), Some(7), "reaped by poll, its status intact");
        // A worker still running: the wait is the timeout.
        let running =
            Worker::start(Path::new("/bin/sh"), &shell("sleep 5"), journal.clone(), Vec::new(), None)
                .expect("sh starts");
        let started = Instant::now();
        running.wait(Duration::from_millis(50));
        assert!(started.elapsed() >= Duration::from_millis(50));
        running.signal(libc::SIGKILL);
        let _ = std::fs::remove_file(journal);
    }
}
