/*!
`--device all` on a machine of several GPUs: a supervised worker for each GPU, all at once
([`on_every_device`]), each with the restarts of [`crate::measure::supervision::supervise`], so that a fault,
a hang or a signal on one GPU costs that GPU's worker and nothing of the others. Each worker
([`as_part`]) measures its GPU and writes its result's JSON for this process, which alone writes
the journal (copying each worker's lines as they come), the exports and the `--emit-rust` file,
and prints the GPUs' tables in their order, each once it is finished.

With `--split`, the workers measure a shard each of one sweep (`crate::model::shard`), on GPUs
of one model, and this process deals their rows back into the one sweep, which it prints and
writes as a sweep measured on one GPU; without supervision the shards run one after the other
in this process ([`split_here`]).
*/

use super::{Measured, Measuring, Outputs, measure, not_measured};
use crate::commands::settings::{DeviceChoice, Settings};
use crate::error::{Console, Error, exit, failed};
use crate::files;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::Driver;
use crate::measure::record::provenance::Provenance;
use crate::measure::supervision::interrupt;
use crate::measure::supervision::supervise::{self, Part, Worker};
use crate::model::shard::Shard;
use crate::results::from_record::sweep_of;
use crate::results::merge::deal_back;
use crate::results::schema::SweepRecord;
use crate::results::table;
use crate::search::sweep::{EndedEarly, Sweep};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// `--split`: every GPU of one model (name and compute capability), or the one line that names
/// the two that differ (exit 2).
pub(crate) fn check_one_model<D: Driver>(driver: &D, count: u32) -> Result<(), Error> {
    let model =
        |ordinal| driver.model(ordinal).map_err(|error| Error::new(exit::NO_DEVICE, format!("{error:#}")));
    let first = model(0)?;
    for ordinal in 1..count {
        let other = model(ordinal)?;
        if other != first {
            return Err(Error::new(
                exit::USAGE,
                format!(
                    "--split needs GPUs of one model: GPU 0 is {} ({}.{}), GPU {ordinal} is {} ({}.{}); sweep them \
                     one by one with --device all, or shard by hand with --shard and block-size merge",
                    first.0, first.1.0, first.1.1, other.0, other.1.0, other.1.1
                ),
            ));
        }
    }
    Ok(())
}

/// How many of the machine's `count` GPUs a `--split` sweep runs on: one a configuration at
/// most, so that a sweep of fewer configurations than GPUs is split across as many GPUs as it
/// has configurations (with a line saying so) rather than refused for the shards that would
/// hold none.
pub(crate) fn gpus_for_split(
    run: &Run,
    settings: &Settings,
    count: u32,
    console: &mut Console,
) -> Result<u32, Error> {
    let kernel = run.kernel();
    let blocks = settings.blocks_of(kernel).map_err(|why| Error::new(exit::USAGE, why))?;
    let configurations = kernel.configurations(&blocks);
    let used = u32::try_from(configurations).unwrap_or(u32::MAX).clamp(1, count);
    if used < count {
        let on = match used {
            1 => "runs on GPU 0".to_string(),
            _ => format!("is split across GPUs 0 to {}", used - 1),
        };
        console.err(&format!(
            "Note: --split: the sweep has {configurations} configuration(s), so it {on}; the other {} GPU(s) of this machine stay idle\n",
            count - used
        ));
    }
    Ok(used)
}

/// One worker of several: measures its device (its shard, under `--split`), writes its result's
/// JSON for the process that started it, and prints its table (not under `--split`, whose table
/// is the merged one); it writes no file the settings name.
pub(crate) fn as_part<D: Driver>(
    driver: &D,
    run: &mut Run,
    measuring: Measuring,
    part: &Part,
    console: &mut Console,
) -> Result<i32, Error> {
    let settings = measuring.settings;
    let settings = Settings {
        device: DeviceChoice::One(part.device),
        shard: part.shard,
        split: false,
        ..settings.clone()
    };
    let whole = part.shard.is_none();
    let plan = Outputs::new(&settings, Some(part.device));
    let measured =
        measure(driver, part.device, run, Measuring { settings: &settings, ..measuring }, &mut |head| {
            if whole && plan.streams {
                console.out(head);
            }
        })?;
    for warning in &measured.warnings {
        console.err(warning);
    }
    let record = SweepRecord::of(&measured.sweep, measured.provenance.clone());
    let json = serde_json::to_string(&record).map_err(|error| failed(error.into()))?;
    files::write_whole(&part.result, json.as_bytes())
        .map_err(|error| Error::new(exit::FAILED, format!("writing the worker's result: {error}")))?;
    if whole {
        plan.deliver(&measured.sweep, &measured.head, || measured.provenance.clone())
            .map_err(failed)?
            .printed()
            .perform(console)?;
    }
    Ok(measured.exit_status())
}

/// What one worker left: its exit status, what it printed, its result.
struct Finished {
    status: i32,
    stdout: String,
    stderr: String,
    result: Option<(Sweep, Provenance)>,
}

/// Sweeps every one of `count` devices at once, a supervised worker each (`--split`: a shard
/// each, merged), journaling to `journal` where given; the status is the worst of them.
pub(crate) fn on_every_device(
    settings: &Settings,
    count: u32,
    journal: Option<&Path>,
    console: &mut Console,
) -> Result<i32, Error> {
    let folder =
        std::env::temp_dir().join(format!("block-size-parts-{}-{}", std::process::id(), supervise::nanos()));
    std::fs::create_dir_all(&folder)
        .map_err(|error| Error::new(exit::FAILED, format!("creating {}: {error}", folder.display())))?;
    let result = run_workers(settings, count, journal, &folder, console);
    let _ = std::fs::remove_dir_all(&folder);
    result
}

fn run_workers(
    settings: &Settings,
    count: u32,
    journal: Option<&Path>,
    folder: &Path,
    console: &mut Console,
) -> Result<i32, Error> {
    let mut target = match journal {
        Some(path) => {
            Some(std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|error| {
                Error::new(exit::FAILED, format!("opening the journal {}: {error}", path.display()))
            })?)
        }
        None => None,
    };
    let mut workers = start_workers(settings, count, folder)?;
    interrupt::install();
    let mut forwarded = None;
    let mut printed = 0;
    let mut code = exit::SUCCESS;
    let mut summaries = String::new();
    let mut finished: Vec<Option<Finished>> = (0..count).map(|_| None).collect();
    loop {
        forward_signal(&workers, &mut forwarded);
        copy_journals(&mut workers, target.as_mut());
        for running in workers.iter_mut().filter(|running| running.done.is_none()) {
            running.done = running.worker.poll(forwarded).transpose();
        }
        // The tables in the GPUs' order, each once it and those before it are done.
        while (printed as usize) < workers.len() {
            let Running { part, stdout, stderr, done, .. } = &mut workers[printed as usize];
            let Some(done) = done.take() else { break };
            let (status, stderr_extra) = match done {
                Ok(status) => (status, String::new()),
                Err(error) => (error.exit_status(), format!("Error: {error}\n")),
            };
            let stdout = std::fs::read_to_string(stdout).unwrap_or_default();
            let stderr = std::fs::read_to_string(stderr).unwrap_or_default() + &stderr_extra;
            let result = SweepRecord::read(&part.result).ok().and_then(|record| sweep_of(&record).ok());
            let one = Finished { status, stdout, stderr, result };
            if !settings.split {
                if printed > 0 {
                    console.out("\n");
                }
                let name_for = (count > 1).then_some(printed);
                let (line, status) = print_device(settings, name_for, printed, &one, console)?;
                summaries += &line;
                code = code.max(status);
            }
            finished[printed as usize] = Some(one);
            printed += 1;
        }
        if printed == count {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    copy_journals(&mut workers, target.as_mut());
    if !settings.split {
        console.out(&format!("\n{summaries}"));
        return Ok(code);
    }
    let finished = finished.into_iter().map(|one| one.expect("every worker was collected")).collect();
    merge_split(finished, count, settings, console)
}

/// A worker of this program for each of `count` devices, each writing its table, its standard
/// error and its result into `folder`: its part, its output files, the worker, its status once
/// done, and how many bytes of its journal were copied.
fn start_workers(settings: &Settings, count: u32, folder: &Path) -> Result<Vec<Running>, Error> {
    let program = std::env::current_exe()
        .map_err(|error| Error::new(exit::FAILED, format!("cannot locate this program: {error}")))?;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut workers = Vec::with_capacity(count as usize);
    for device in 0..count {
        let part = Part {
            device,
            shard: settings.split.then(|| Shard { index: device + 1, count }),
            result: folder.join(format!("gpu{device}.json")),
        };
        let (stdout, stderr) =
            (folder.join(format!("gpu{device}.out")), folder.join(format!("gpu{device}.err")));
        let worker = Worker::start(
            &program,
            &args,
            folder.join(format!("gpu{device}.jsonl")),
            supervise::part_environment(&part),
            Some((stdout.clone(), stderr.clone())),
        )?;
        workers.push(Running { part, stdout, stderr, worker, done: None, copied: 0 });
    }
    Ok(workers)
}

/// A signal this process got, sent on to every worker still running, once (`forwarded`: the
/// signal sent, where one was).
fn forward_signal(workers: &[Running], forwarded: &mut Option<i32>) {
    if let Some(signal) = interrupt::requested()
        && forwarded.is_none()
    {
        let number = if signal.exit_status() == 130 { libc::SIGINT } else { libc::SIGTERM };
        for running in workers.iter().filter(|running| running.done.is_none()) {
            running.worker.signal(number);
        }
        *forwarded = Some(number);
    }
}

/// A worker of [`run_workers`].
struct Running {
    /// The device and shard it measures, and where it writes its result.
    part: Part,
    /// The files its standard output (its table) and standard error go to.
    stdout: PathBuf,
    stderr: PathBuf,
    worker: Worker,
    /// Its exit status (or why it could not be had) once it is done and not yet printed.
    done: Option<Result<i32, Error>>,
    /// How many bytes of its journal were copied into the run's.
    copied: u64,
}

/// Each worker's journal lines since the last copy, appended to the run's journal where it
/// keeps one.
fn copy_journals(workers: &mut [Running], target: Option<&mut std::fs::File>) {
    if let Some(file) = target {
        for running in workers {
            running.copied = copy_lines(running.worker.journal(), running.copied, file);
        }
    }
}

/// A split sweep's shards, each worker's standard error first: merged into one sweep and
/// delivered where every shard finished, else an error naming those that did not.
fn merge_split(
    finished: Vec<Finished>,
    count: u32,
    settings: &Settings,
    console: &mut Console,
) -> Result<i32, Error> {
    for (device, one) in finished.iter().enumerate() {
        console.err(&on_gpu(device as u32, &one.stderr));
    }
    let unfinished: Vec<String> = finished
        .iter()
        .enumerate()
        .filter(|(_, one)| {
            one.result.as_ref().is_none_or(|(sweep, _)| sweep.ended_early.is_some())
                || one.status > exit::FAILED
        })
        .map(|(device, one)| format!("GPU {device} (shard {}/{count}) exit {}", device + 1, one.status))
        .collect();
    if !unfinished.is_empty() {
        let worst = finished.iter().map(|one| one.status).max().unwrap_or(exit::FAILED).max(exit::FAILED);
        return Err(Error::new(
            worst,
            format!(
                "the split sweep is not whole, so nothing was merged: {}; a --journal keeps every finished configuration for --resume",
                unfinished.join(", ")
            ),
        ));
    }
    let (sweeps, provenances): (Vec<Sweep>, Vec<Provenance>) =
        finished.into_iter().map(|one| one.result.expect("checked above")).unzip();
    deliver_split(sweeps, provenances, settings, console)
}

/// One GPU's table as its worker printed it, its files written here (named for `name_for`, the
/// device, where there are several), and its closing line.
fn print_device(
    settings: &Settings,
    name_for: Option<u32>,
    device: u32,
    one: &Finished,
    console: &mut Console,
) -> Result<(String, i32), Error> {
    console.out(&one.stdout);
    console.err(&on_gpu(device, &one.stderr));
    let Some((sweep, provenance)) = &one.result else {
        let why = one
            .stderr
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("Error: "))
            .unwrap_or("its worker ended before its table")
            .to_string();
        return Ok((not_measured(device, one.status, &why), one.status.max(exit::FAILED)));
    };
    Outputs::new(settings, name_for)
        .deliver(sweep, "", || provenance.clone())
        .map_err(failed)?
        .written()
        .perform(console)?;
    Ok((table::device_summary(sweep), one.status))
}

/// A worker's standard error, its `Error:` lines naming its GPU as `--device all`'s do.
fn on_gpu(device: u32, stderr: &str) -> String {
    stderr
        .split_inclusive('\n')
        .map(|line| match line.strip_prefix("Error: ") {
            Some(rest) if !rest.starts_with("GPU ") => format!("Error: GPU {device}: {rest}"),
            _ => line.to_string(),
        })
        .collect()
}

/// Appends the complete lines of `journal` after byte `from` to `target`; the new offset.
fn copy_lines(journal: &Path, from: u64, target: &mut std::fs::File) -> u64 {
    let Ok(mut file) = std::fs::File::open(journal) else { return from };
    if file.seek(std::io::SeekFrom::Start(from)).is_err() {
        return from;
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return from;
    }
    let Some(end) = bytes.iter().rposition(|&byte| byte == b'\n') else { return from };
    // The run's journal is the user's `--journal`: synced, as a journal of one worker is
    // (the workers' own parts are not: journal::Durability).
    match target.write_all(&bytes[..=end]).and_then(|()| target.sync_data()) {
        Ok(()) => from + end as u64 + 1,
        Err(_) => from,
    }
}

/// `--split` in this process (no supervisor): each GPU's shard in turn, then merged.
pub(crate) fn split_here<D: Driver>(
    driver: &D,
    run: &mut Run,
    measuring: Measuring,
    count: u32,
    console: &mut Console,
) -> Result<i32, Error> {
    let settings = measuring.settings;
    let mut sweeps = Vec::with_capacity(count as usize);
    let mut provenances = Vec::with_capacity(count as usize);
    for device in 0..count {
        let shard = Settings {
            device: DeviceChoice::One(device),
            shard: Some(Shard { index: device + 1, count }),
            split: false,
            ..settings.clone()
        };
        let Measured { sweep, provenance, warnings, .. } =
            measure(driver, device, run, Measuring { settings: &shard, ..measuring }, &mut |_| {})?;
        for warning in &warnings {
            console.err(warning);
        }
        if let Some(EndedEarly::Interrupted(signal)) = sweep.ended_early {
            return Err(Error::new(
                signal.exit_status(),
                format!(
                    "interrupted by {} on GPU {device}: the split sweep is not whole, so nothing was merged",
                    signal.name()
                ),
            ));
        }
        sweeps.push(sweep);
        provenances.push(provenance);
    }
    deliver_split(sweeps, provenances, settings, console)
}

/// The shards of a split sweep as one, printed and written as the settings say.
fn deliver_split(
    sweeps: Vec<Sweep>,
    provenances: Vec<Provenance>,
    settings: &Settings,
    console: &mut Console,
) -> Result<i32, Error> {
    let count = sweeps.len();
    let configurations = sweeps.first().and_then(|sweep| sweep.shard).map_or(0, |of| of.configurations);
    let sweep = deal_back(sweeps, configurations).map_err(|why| failed(anyhow::anyhow!(why)))?;
    let provenance = provenances.into_iter().next().expect("one shard a GPU");
    let (major, minor) = sweep.limits.compute_capability;
    let mut head = table::header(&sweep.limits, &sweep.pass, sweep.timing) + &sweep.grid.header_line();
    head += &format!(
        "Split: the sweep's {configurations} configurations across {count} GPU{} of {} ({major}.{minor}), a shard each, merged\n",
        if count == 1 { "" } else { "s" },
        sweep.limits.name
    );
    let plan = Outputs::new(settings, None);
    if plan.streams {
        console.out(&head);
    }
    plan.deliver(&sweep, &head, || provenance.clone()).map_err(failed)?.perform(console)?;
    let measured = Measured { sweep, provenance, head, warnings: Vec::new() };
    Ok(measured.exit_status())
}
