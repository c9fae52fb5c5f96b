/*!
`compare`'s JSON (`--json FILE`): what the table and its lines say, as data. The device, the
pass, the rounds, each build with its registers, local memory and PTX facts, every row with each
build's blocks per SM, grid, round times and median, each build's ratios to the baseline, and the
lines that name the likeliest cause of a gap (`gaps`, as printed). Versioned on its own
(`"schema": "block-size compare"`); `diff` and `report` read the sweep's JSON, not this one.
*/

use crate::model::counters::{Counters, CountersRun};
use crate::model::limits::{DeviceLimits, KernelResources};
use crate::model::pass::Pass;
use crate::model::ptx_facts::PtxFacts;
use crate::model::stats::{median, quantile};
use crate::search::interleaved::{Comparison, round_ratios};
use serde::Serialize;

/// The name the document gives its own kind.
const SCHEMA: &str = "block-size compare";
/// Its layout's version: a reader of a later one refuses it.
const VERSION: u32 = 1;

/// The whole document.
#[derive(Serialize)]
struct Record<'a> {
    schema: &'static str,
    version: u32,
    /// The command line, where the settings recorded one.
    command: &'a str,
    device: &'a DeviceLimits,
    pass: &'a Pass,
    warmups: u32,
    rounds: u32,
    /// The build the ratios divide by.
    baseline: &'a str,
    builds: Vec<Build<'a>>,
    rows: Vec<Row<'a>>,
    /// `compare`'s lines on the rows where one build is more than 2 percent slower than another.
    gaps: Vec<String>,
    /// What `--counters` read for the comparison as a whole (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    counters: Option<&'a CountersRun>,
}

/// One build: its label, entry, what the driver says of it and what its PTX says.
#[derive(Serialize)]
struct Build<'a> {
    label: &'a str,
    entry: &'a str,
    resources: KernelResources,
    ptx_facts: Option<PtxFacts>,
}

/// One block size.
#[derive(Serialize)]
struct Row<'a> {
    threads_per_block: u32,
    block: String,
    cells: Vec<Cell<'a>>,
    /// Each build but the baseline: the median and quartiles of its rounds' time ratios to it.
    ratios: Vec<Ratio<'a>>,
}

/// One build at one block size.
#[derive(Serialize)]
struct Cell<'a> {
    build: &'a str,
    blocks_per_sm: u32,
    grid_blocks: u32,
    median_ms: f64,
    gigabytes_per_second: f64,
    round_ms: &'a [f32],
    /// Its hardware counters (`--counters`; absent without, or where not read).
    #[serde(skip_serializing_if = "Option::is_none")]
    counters: Option<Counters>,
}

/// One build's ratios to the baseline at one block size.
#[derive(Serialize)]
struct Ratio<'a> {
    build: &'a str,
    median: f64,
    p25: f64,
    p75: f64,
}

/// `result` as `compare`'s JSON, with `gaps` the lines that explain its gaps and `command` the
/// command line.
pub(crate) fn json(result: &Comparison, gaps: &str, command: &str) -> serde_json::Result<String> {
    let record = Record {
        schema: SCHEMA,
        version: VERSION,
        command,
        device: &result.limits,
        pass: &result.pass,
        warmups: result.warmups,
        rounds: result.rounds,
        baseline: result.baseline.module.label,
        builds: result
            .kernels
            .iter()
            .map(|compared| Build {
                label: compared.kernel.module.label,
                entry: compared.kernel.entry,
                resources: compared.resources,
                ptx_facts: compared.ptx_facts,
            })
            .collect(),
        rows: result
            .rows
            .iter()
            .map(|row| Row {
                threads_per_block: row.threads_per_block,
                block: row.block.to_string(),
                cells: row
                    .cells
                    .iter()
                    .map(|cell| Cell {
                        build: cell.kernel.module.label,
                        blocks_per_sm: cell.blocks_per_sm,
                        grid_blocks: cell.grid_blocks(),
                        median_ms: cell.median_ms(),
                        gigabytes_per_second: result.gigabytes_per_second(cell.median_ms()),
                        round_ms: &cell.round_ms,
                        counters: cell.counters,
                    })
                    .collect(),
                ratios: result
                    .others()
                    .map(|kernel| {
                        let ratios = round_ratios(row, kernel, result.baseline);
                        Ratio {
                            build: kernel.module.label,
                            median: median(&ratios),
                            p25: quantile(&ratios, 0.25),
                            p75: quantile(&ratios, 0.75),
                        }
                    })
                    .collect(),
            })
            .collect(),
        gaps: gaps.lines().map(String::from).collect(),
        counters: result.counters.as_ref(),
    };
    serde_json::to_string_pretty(&record).map(|mut text| {
        text.push('\n');
        text
    })
}
