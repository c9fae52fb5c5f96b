/*!
Nsight Compute as the [`CounterSource`] of the CUDA driver: this program run again under `ncu`
as a replay ([`super::REPLAY`]), every launch of the replay profiled, the report read back as
CSV and each profiled kernel matched to the configuration the replay launched in its place.

Why Nsight Compute and not CUPTI's profiling API in this process: `ncu` replays each kernel as
many times as its metrics need, saving and restoring the memory the kernel writes, and flushes
the caches before each pass, so every metric comes from the same launch of the same input; its
metric names are the ones users read in its reports; and the timed process never loads a
profiler, so `--counters` leaves every time the table shows as it was. The cost is a second
process that builds the sweep's inputs again.

`ncu` runs with `--clock-control none`, so that the counters are read at the clocks the
samples ran at, not at the base clock `ncu` locks by default, and with its default
`--cache-control all`.
*/

use super::{CounterReading, CounterRequest, CounterSource, Launched, REPLAY, ReplayOrder, read_launched};
use crate::model::block_shape::BlockShape;
use crate::model::counters::{Counters, METRICS, Metric};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Names the `ncu` to run, where it is neither on `PATH` nor at [`DEFAULT_NCU`].
pub const NCU: &str = "BLOCK_SIZE_NCU";
/// Where CUDA toolkits put `ncu`.
const DEFAULT_NCU: &str = "/usr/local/cuda/bin/ncu";

/// The metric names, comma-separated, as `ncu --metrics` takes them.
pub fn metric_list() -> String {
    METRICS.iter().map(|metric| metric.name).collect::<Vec<_>>().join(",")
}

/// Nsight Compute over a replay of a program: this one, with the arguments it was started with.
#[derive(Debug, Clone)]
pub struct Ncu {
    /// The program the replay runs.
    pub program: PathBuf,
    /// Its arguments: the same sweep's.
    pub args: Vec<OsString>,
}

impl Ncu {
    /// A replay of this process's program and arguments: the program must build the same
    /// sweep from the same arguments (`block-size` and a program of `block-size new` do).
    pub fn for_this_program() -> Self {
        let program = std::env::current_exe()
            .unwrap_or_else(|_| PathBuf::from(std::env::args_os().next().unwrap_or_default()));
        Self { program, args: std::env::args_os().skip(1).collect() }
    }
}

/// The `ncu` to run: [`NCU`], else `ncu` on `PATH`, else [`DEFAULT_NCU`].
fn find_ncu() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(NCU) {
        return Ok(PathBuf::from(path));
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("ncu"))
        .find(|candidate| candidate.is_file());
    on_path.or_else(|| Some(PathBuf::from(DEFAULT_NCU)).filter(|path| path.is_file())).ok_or_else(|| {
        format!("Nsight Compute's ncu is neither on PATH nor at {DEFAULT_NCU} ({NCU} names it)")
    })
}

impl CounterSource for Ncu {
    fn read(&self, request: &CounterRequest) -> Result<CounterReading, String> {
        let ncu = find_ncu()?;
        let version = run(Command::new(&ncu).arg("--version"))
            .map(|text| version_of(&text))
            .map_err(|why| format!("{}: {why}", ncu.display()))?;
        let dir = scratch_dir().map_err(|error| format!("a folder for the profiler's report: {error}"))?;
        let result = self.profile(&ncu, &dir, request.device);
        let _ = std::fs::remove_dir_all(&dir);
        let (launched, csv) = result?;
        let profiled = parse_raw_csv(&csv)?;
        let rows = match_launches(request, &launched, &profiled)?;
        Ok(CounterReading { profiler: format!("Nsight Compute {version}"), rows })
    }
}

impl Ncu {
    /// Runs the replay under `ncu` into a report in `dir`, then reads the report back as raw
    /// CSV: what the replay launched, and the CSV.
    fn profile(&self, ncu: &Path, dir: &Path, device: u32) -> Result<(Vec<Launched>, String), String> {
        let report = dir.join("counters.ncu-rep");
        let order = ReplayOrder { device, launched: dir.join("launched") };
        let mut command = Command::new(ncu);
        command
            .arg("--export")
            .arg(&report)
            .args(["--force-overwrite", "--clock-control", "none", "--cache-control", "all", "--metrics"])
            .arg(metric_list())
            .arg(&self.program)
            .args(&self.args)
            .env(REPLAY, order.value());
        crate::measure::supervision::supervise::clear_worker_environment(&mut command);
        run(&mut command).map_err(|why| format!("ncu over the replay: {why}"))?;
        let launched = read_launched(&order.launched)?;
        let csv = run(Command::new(ncu).arg("--import").arg(&report).args([
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base",
        ]))
        .map_err(|why| format!("ncu reading its report back: {why}"))?;
        Ok((launched, csv))
    }
}

/// A folder of this process's own under the temporary directory.
fn scratch_dir() -> std::io::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let dir = std::env::temp_dir().join(format!("block-size-counters-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Runs `command` to its end; its standard output where it succeeded, else the line that says
/// why (`==ERROR==` lines first, else its last line of output).
fn run(command: &mut Command) -> Result<String, String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("could not start {}: {error}", command.get_program().to_string_lossy()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines = || stdout.lines().chain(stderr.lines()).map(str::trim).filter(|line| !line.is_empty());
    let why = lines()
        .find(|line| line.starts_with("==ERROR=="))
        .or_else(|| lines().next_back())
        .unwrap_or("no output")
        .to_string();
    Err(format!("{} ({})", crate::error::cut_for_quoting(&why), output.status))
}

/// "2025.3.1.0" from `ncu --version`'s "Version 2025.3.1.0 (build 36398880) (public-release)".
fn version_of(text: &str) -> String {
    text.lines()
        .find_map(|line| line.trim().strip_prefix("Version ").and_then(|rest| rest.split_whitespace().next()))
        .unwrap_or("(version not read)")
        .to_string()
}

/// One kernel `ncu` profiled: its block, where the report says it, and its metrics' values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Profiled {
    pub block: Option<BlockShape>,
    pub counters: Counters,
}

/// The kernels of `ncu --import R --csv --page raw --print-units base`, in the report's order:
/// a header row of column names (`ID`, `Block Size`, the metrics), a row of units, then a row
/// a kernel. Values may carry thousands separators; `n/a` is no value.
pub(crate) fn parse_raw_csv(text: &str) -> Result<Vec<Profiled>, String> {
    // ncu's own lines (`==PROF==`, `==WARNING==`) may come before the CSV.
    let start = text.find("\"ID\"").ok_or("ncu's report holds no kernel (no CSV header)")?;
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(&text.as_bytes()[start..]);
    let headers = reader.headers().map_err(|error| format!("ncu's CSV: {error}"))?.clone();
    let column = |name: &str| headers.iter().position(|header| header == name);
    let metric_columns: Vec<(usize, &Metric)> =
        METRICS.iter().filter_map(|metric| column(metric.name).map(|index| (index, metric))).collect();
    if metric_columns.is_empty() {
        return Err("ncu's report has none of the metrics asked for".to_string());
    }
    let block_column = column("Block Size");
    let mut kernels = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| format!("ncu's CSV: {error}"))?;
        // The units row, and anything else that is not a kernel, has no numeric ID.
        if record.get(0).is_none_or(|id| id.trim().parse::<u64>().is_err()) {
            continue;
        }
        let mut counters = Counters::default();
        for &(index, metric) in &metric_columns {
            if let Some(value) = record.get(index).and_then(number) {
                (metric.fill)(&mut counters, value);
            }
        }
        let block = block_column.and_then(|index| record.get(index)).and_then(block_of);
        kernels.push(Profiled { block, counters });
    }
    Ok(kernels)
}

/// A value of ncu's CSV: `1,234.5` is 1234.5; `n/a` and empty are none.
fn number(text: &str) -> Option<f64> {
    text.trim().replace(',', "").parse::<f64>().ok().filter(|value| value.is_finite())
}

/// ncu's `(256, 1, 1)`.
fn block_of(text: &str) -> Option<BlockShape> {
    let sides: Vec<u32> = text
        .trim()
        .strip_prefix('(')?
        .strip_suffix(')')?
        .split(',')
        .map(|side| side.trim().parse().ok())
        .collect::<Option<_>>()?;
    match sides[..] {
        [x, y, z] => Some(BlockShape { x, y, z }),
        _ => None,
    }
}

/// Each asked row's counters: the `n`th profiled kernel is the `n`th configuration launched,
/// where as many were profiled as launched and their blocks agree; rows are found by label.
pub(crate) fn match_launches(
    request: &CounterRequest,
    launched: &[Launched],
    profiled: &[Profiled],
) -> Result<Vec<Option<Counters>>, String> {
    if launched.len() != profiled.len() {
        return Err(format!(
            "Nsight Compute profiled {} kernel(s) where the replay launched {} configuration(s)",
            profiled.len(),
            launched.len()
        ));
    }
    let mut by_label = HashMap::new();
    for (launch, kernel) in launched.iter().zip(profiled) {
        if let Some(block) = kernel.block
            && block != launch.block
        {
            return Err(format!(
                "the replay's {} profiled with blocks of {block}, not {}",
                launch.label, launch.block
            ));
        }
        by_label.insert(launch.label.as_str(), kernel.counters);
    }
    Ok(request.rows.iter().map(|row| by_label.get(row.label.as_str()).copied()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::block_shape::GridShape;

    /// The shape of `ncu --import --csv --page raw --print-units base` (Nsight Compute 2025.3),
    /// two kernels of made-up values, and ncu's own line before it.
    fn raw_csv() -> String {
        let names = METRICS.iter().map(|metric| format!("\"{}\"", metric.name)).collect::<Vec<_>>().join(",");
        let units = "\"byte/second\",\"%\",\"\",\"%\",\"%\",\"\",\"\",\"\",\"\"";
        format!(
            "==PROF== Disconnected\n\
             \"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",{names}\n\
             \"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",{units}\n\
             \"0\",\"3078\",\"block-size-cuda\",\"127.0.0.1\",\"grayscale\",\"1\",\"13\",\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\",\"3,712,000,000,000\",\"91.5\",\"32\",\"100\",\"12.25\",\"4\",\"6\",\"0.01\",\"7.5\"\n\
             \"1\",\"3078\",\"block-size-cuda\",\"127.0.0.1\",\"grayscale\",\"1\",\"13\",\"(16, 1, 1)\",\"(4224, 1, 1)\",\"0\",\"9.0\",\"1,000,000,000,000\",\"24\",\"16\",\"n/a\",\"12\",\"0\",\"0\",\"0\",\"2\"\n"
        )
    }

    fn launch(label: &str, threads: u32) -> Launched {
        Launched { label: label.into(), block: BlockShape::linear(threads), grid: GridShape::linear(1) }
    }

    #[test]
    fn the_raw_csv_reads_as_one_kernel_a_row_with_units_and_separators_dropped() {
        let kernels = parse_raw_csv(&raw_csv()).unwrap();
        assert_eq!(kernels.len(), 2);
        let first = kernels[0].counters;
        assert_eq!(kernels[0].block, Some(BlockShape::linear(256)));
        assert_eq!(first.dram_bytes_per_second, Some(3.712e12));
        assert_eq!(first.achieved_occupancy_percent, Some(91.5));
        assert_eq!(first.warp_efficiency_percent, Some(100.0));
        assert_eq!(first.branch_efficiency_percent, Some(100.0));
        assert_eq!(first.l2_hit_percent, Some(12.25));
        assert_eq!(first.shared_bank_conflicts, Some(10.0), "loads and stores add up");
        assert_eq!((first.barrier_stalls_per_issue, first.memory_stalls_per_issue), (Some(0.01), Some(7.5)));
        let second = kernels[1].counters;
        assert_eq!(second.warp_efficiency_percent, Some(50.0), "16 threads a warp is half its lanes");
        assert_eq!(second.branch_efficiency_percent, None, "n/a is no value");
    }

    #[test]
    fn a_report_without_kernels_or_metrics_is_one_line() {
        assert!(parse_raw_csv("==PROF== no kernels were profiled\n").unwrap_err().contains("no kernel"));
        assert!(
            parse_raw_csv("\"ID\",\"Block Size\"\n\"0\",\"(1, 1, 1)\"\n")
                .unwrap_err()
                .contains("none of the metrics")
        );
    }

    #[test]
    fn kernels_match_the_launches_in_order_and_rows_by_label() {
        let kernels = parse_raw_csv(&raw_csv()).unwrap();
        let launched = [launch("256 threads", 256), launch("16 threads", 16)];
        let request = CounterRequest {
            device: 0,
            rows: vec![launch("16 threads", 16), launch("32 threads", 32), launch("256 threads", 256)],
        };
        let rows = match_launches(&request, &launched, &kernels).unwrap();
        assert_eq!(rows[0].unwrap().achieved_occupancy_percent, Some(24.0));
        assert_eq!(rows[1], None, "a row the replay did not launch has none");
        assert_eq!(rows[2].unwrap().achieved_occupancy_percent, Some(91.5));
    }

    #[test]
    fn a_replay_that_does_not_match_the_report_is_refused() {
        let kernels = parse_raw_csv(&raw_csv()).unwrap();
        let request = CounterRequest { device: 0, rows: vec![] };
        let one = [launch("256 threads", 256)];
        assert!(
            match_launches(&request, &one, &kernels)
                .unwrap_err()
                .contains("profiled 2 kernel(s) where the replay launched 1")
        );
        let swapped = [launch("16 threads", 16), launch("256 threads", 256)];
        assert!(match_launches(&request, &swapped, &kernels).unwrap_err().contains("blocks of 256, not 16"));
    }

    #[test]
    fn the_version_and_the_reason_of_a_failure_are_read_from_ncus_output() {
        assert_eq!(
            version_of(
                "NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 36398880) (public-release)\n"
            ),
            "2025.3.1.0"
        );
        let failed = run(Command::new("sh").args(["-c", "echo '==PROF== Connected'; echo '==ERROR== ERR_NVGPUCTRPERM - no permission' >&2; echo 'last'; exit 1"]));
        assert!(failed.unwrap_err().starts_with("==ERROR== ERR_NVGPUCTRPERM - no permission"));
        assert!(
            run(&mut Command::new("/nonexistent/ncu"))
                .unwrap_err()
                .starts_with("could not start /nonexistent/ncu")
        );
    }

    #[test]
    fn a_missing_ncu_named_by_the_environment_fails_to_start_in_one_line() {
        let source = Ncu { program: PathBuf::from("/bin/true"), args: Vec::new() };
        // The variable is this test's alone: no other test reads it.
        unsafe { std::env::set_var(NCU, "/nonexistent/ncu") };
        let why = source.read(&CounterRequest { device: 0, rows: Vec::new() }).unwrap_err();
        unsafe { std::env::remove_var(NCU) };
        assert!(why.starts_with("/nonexistent/ncu: could not start"), "{why}");
    }
}
