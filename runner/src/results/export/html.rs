/*!
HTML: one self-contained page of a sweep (nothing fetched from the network: its CSS, script
and SVG are inline): the summary, the table, the plot, an occupancy explorer and the
provenance.

The page is rendered from the sweep's record ([`SweepRecord`]), the one a sweep writes as JSON
and [`SweepRecord::parse`] reads back, so `--html FILE` and `block-size report RESULT.json
--html FILE` write the same page for the same sweep. A record of an older file says on the page
what that file did not record ([`SweepRecord::lacking`]) and shows what can be said without it.

The explorer is the lesson's one-SM widget: sliders for threads per block, registers per
thread and shared memory per block, presets (T4, RTX 5090, H100, H200) and the GPU measured,
the SM's warp slots drawn and each of the four limits with the blocks it allows, the binding
one named. Its numbers are the occupancy model's own answers ([`crate::model::sm::SmModel::limits`]),
embedded as tables ([`Explorer`]): for each limit, the blocks it allows as a step function of
the one input it depends on, evaluated by the model at every value and written down where the
answer changes. The page's script looks answers up and takes their minimum; it computes no
limit of its own, so it cannot drift from `block-size occupancy`.
*/

use super::{Exporter, sentences};
use crate::error::is_bidi_control;
use crate::model::limits::DeviceLimits;
use crate::model::occupancy::warps_per_block;
use crate::model::sm::{Limiter, PRESETS, Preset, SmModel};
use crate::results::plot::{self, Chart, CountersChart};
use crate::results::schema::{RowRecord, SweepRecord};
use crate::results::table;
use anyhow::{Result, anyhow};
use serde::Serialize;
use std::fmt::Write as _;

/// HTML: the whole report as one page.
pub struct HtmlExporter;

impl Exporter for HtmlExporter {
    fn render(&self, record: &SweepRecord) -> Result<String> {
        render(record).map_err(|why| anyhow!("{why}"))
    }
}

/// The presets the explorer offers, besides the GPU measured: the lesson's three and the H200.
const EXPLORER_PRESETS: [&str; 4] = ["t4", "rtx5090", "h100", "h200"];

/// The most threads a block may have on every GPU modelled.
const MAX_THREADS: u32 = 1024;

/// The most registers a thread may use.
const MAX_REGISTERS: u32 = 255;

/// What the explorer knows: the model's answers for each GPU it offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Explorer {
    /// The limits' names, in the order of each GPU's tables.
    pub limiter_names: [String; 4],
    /// What a limit that does not bind at all (no registers, no shared memory) is written as.
    pub unlimited: u32,
    /// Warps a block of `index + 1` threads takes: the model's rounding up to whole warps.
    pub warps_per_block: Vec<u32>,
    /// The GPUs: the presets, then the one measured where the model knows it.
    pub gpus: Vec<ExplorerGpu>,
    /// Where the sliders start.
    pub start: Start,
}

/// One GPU of the explorer: its limits and the model's answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ExplorerGpu {
    /// `t4`, ..., or `measured`.
    pub key: String,
    /// What the menu says.
    pub name: String,
    /// `9.0`.
    pub compute_capability: String,
    /// Resident warps per SM.
    pub max_warps: u32,
    /// Resident blocks per SM.
    pub max_blocks: u32,
    /// Registers per SM.
    pub registers_per_sm: u32,
    /// Shared memory per SM, bytes.
    pub shared_memory_per_sm: u32,
    /// Shared memory one block may use, bytes: the slider's end.
    pub max_shared_memory_per_block: u32,
    /// Shared memory the driver reserves per block, bytes.
    pub reserved_shared_memory_per_block: u32,
    /// Blocks the warp limit allows, for a block of `index + 1` warps.
    pub by_warps: Vec<u32>,
    /// Blocks the register limit allows, for a block of `index + 1` warps: a step function of
    /// registers per thread, as `[from, blocks]` pairs (from that count up to the next pair's).
    pub by_registers: Vec<Vec<[u32; 2]>>,
    /// Blocks the shared-memory limit allows: a step function of bytes per block, as
    /// `[from, blocks]` pairs.
    pub by_shared_memory: Vec<[u32; 2]>,
}

/// The explorer's first configuration: the measured GPU (or the H200), the fastest row's block
/// size, the kernel's registers and shared memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Start {
    /// A GPU's key.
    pub gpu: String,
    /// Threads per block.
    pub threads: u32,
    /// Registers per thread.
    pub registers: u32,
    /// Shared memory per block, bytes.
    pub shared: u32,
}

/// `[from, value]` wherever `value_at` changes over `0..=last`.
fn steps(last: u32, value_at: impl Fn(u32) -> u32) -> Vec<[u32; 2]> {
    let mut steps: Vec<[u32; 2]> = Vec::new();
    for input in 0..=last {
        let value = value_at(input);
        if steps.last().is_none_or(|&[_, previous]| previous != value) {
            steps.push([input, value]);
        }
    }
    steps
}

/// The blocks `limiter` allows by the model.
fn limit(model: &SmModel, limiter: Limiter, threads: u32, registers: u32, shared: u32) -> u32 {
    let limits = model.limits(threads, registers, shared);
    limits.iter().find(|(which, _)| *which == limiter).expect("four limits").1
}

impl ExplorerGpu {
    fn of(key: &str, name: String, model: &SmModel) -> Self {
        let warps = 1..=MAX_THREADS / crate::model::occupancy::WARP_SIZE;
        Self {
            key: key.to_string(),
            name,
            compute_capability: format!("{}.{}", model.compute_capability.0, model.compute_capability.1),
            max_warps: model.max_warps_per_sm,
            max_blocks: model.max_blocks_per_sm,
            registers_per_sm: model.registers_per_sm,
            shared_memory_per_sm: model.shared_memory_per_sm,
            max_shared_memory_per_block: model.max_shared_memory_per_block,
            reserved_shared_memory_per_block: model.reserved_shared_memory_per_block,
            by_warps: warps.clone().map(|warps| limit(model, Limiter::Warps, warps * 32, 0, 0)).collect(),
            by_registers: warps
                .map(|warps| {
                    steps(MAX_REGISTERS, |registers| {
                        limit(model, Limiter::Registers, warps * 32, registers, 0)
                    })
                })
                .collect(),
            by_shared_memory: steps(model.max_shared_memory_per_block, |bytes| {
                limit(model, Limiter::SharedMemory, 32, 0, bytes)
            }),
        }
    }
}

impl Explorer {
    /// The explorer for a sweep on `device`: the presets, and `device` where the model knows
    /// its architecture.
    pub fn new(device: &DeviceLimits, start: Start) -> Self {
        let presets: Vec<&Preset> = EXPLORER_PRESETS
            .iter()
            .filter_map(|key| PRESETS.iter().find(|preset| preset.key == *key))
            .collect();
        let mut gpus: Vec<ExplorerGpu> = presets
            .iter()
            .map(|preset| {
                let name = format!("{} (preset)", preset.name);
                ExplorerGpu::of(preset.key, name, &preset.model())
            })
            .collect();
        if let Some(model) = explorable(device) {
            gpus.push(ExplorerGpu::of(
                "measured",
                format!("{} (measured: this run's device)", neutral(&device.name)),
                &model,
            ));
        }
        Self {
            limiter_names: [Limiter::Warps, Limiter::Blocks, Limiter::Registers, Limiter::SharedMemory]
                .map(|limiter| limiter.to_string()),
            unlimited: u32::MAX,
            warps_per_block: (1..=MAX_THREADS).map(warps_per_block).collect(),
            gpus,
            start,
        }
    }
}

/// The occupancy model of `device` where the model knows its architecture and its limits are
/// ones a GPU could report: the explorer evaluates the model at every byte of shared memory a
/// block may have, so a file's limits bound its work (and a hostile file's must not overflow
/// the model's arithmetic).
fn explorable(device: &DeviceLimits) -> Option<SmModel> {
    let plausible = device.warp_size == 32
        && (1..=1 << 16).contains(&device.max_threads_per_sm)
        && (1..=1024).contains(&device.max_blocks_per_sm)
        && device.registers_per_sm <= 1 << 20
        && device.max_registers_per_block <= 1 << 20
        && device.shared_memory_per_sm <= 1 << 22
        && device.max_shared_memory_per_block <= device.shared_memory_per_sm
        && device.reserved_shared_memory_per_block <= 1 << 16;
    SmModel::from_device(device).filter(|_| plausible)
}

/// Escapes text for HTML, its bidirectional controls shown ([`neutral`]).
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in neutral(text).chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// `text` with each bidirectional control written as its escape (`\u{202e}`): a GPU name or
/// a file's field cannot reverse the title, a heading or a cell around it, and the page shows
/// that the name held one.
fn neutral(text: &str) -> String {
    text.chars()
        .map(|c| if is_bidi_control(c) { c.escape_unicode().to_string() } else { c.to_string() })
        .collect()
}

/// `json` as it may stand inside a `<script>` element: no `<` (neither `</script>` nor
/// `<!--` can end the element or change how it is read), no `>` or `&`, and no U+2028 or
/// U+2029 (line ends to older JavaScript); each as its `\u` escape, which JSON reads back as
/// the same character. They can stand only inside JSON's strings, so nothing else changes.
fn script_safe(json: &str) -> String {
    let mut safe = String::with_capacity(json.len());
    for character in json.chars() {
        match character {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(safe, "\\u{:04x}", u32::from(character));
            }
            other => safe.push(other),
        }
    }
    safe
}

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// The page of `record`; `Err` says why it cannot be drawn (the plot could not be).
pub(crate) fn render(record: &SweepRecord) -> Result<String, String> {
    if record.origin.kernel_tuner.is_some() {
        return Ok(t4_page(record));
    }
    let title = format!("block-size: {} on {}", record.workload.kernel, record.device.name);
    let mut page = page_start(&title);
    let date = record
        .provenance
        .as_ref()
        .map_or_else(|| "date not recorded".to_string(), |provenance| provenance.date.clone());
    let _ = writeln!(
        page,
        "<p class=\"byline\">{} &middot; {} &middot; PTX sha256 <code>{}</code> &middot; block-size JSON schema {}</p>",
        escape(&record.extent()),
        escape(&date),
        escape(&record.ptx_sha256.chars().take(16).collect::<String>()),
        record.origin.schema_version
    );
    if let Some(lacking) = record.lacking("This file") {
        let _ = writeln!(page, "<p class=\"note schema\">{}</p>", escape(&lacking));
    }
    page += &verdict(record);
    page += "</header>\n<main>\n";
    page += &sections(record, "")?;
    page += EXPLORER_HTML;
    page += &provenance_section(record, "provenance", "Provenance")?;
    page += "</main>\n";
    page += &page_end(record)?;
    Ok(page)
}

/// One page of several GPU models' results of one sweep (`block-size merge`): a line per model
/// with its best configuration, then each model's summary, table, plot and provenance; the
/// occupancy explorer starts at the first model's device.
pub(crate) fn render_many(records: &[SweepRecord]) -> Result<String, String> {
    let first = records.first().ok_or("no result to render")?;
    let title = format!("block-size: {} on {} GPU models", first.workload.kernel, records.len());
    let mut page = page_start(&title);
    let _ = writeln!(
        page,
        "<p class=\"byline\">{} &middot; PTX sha256 <code>{}</code> &middot; block-size JSON schema {}</p>",
        escape(&first.extent()),
        escape(&first.ptx_sha256.chars().take(16).collect::<String>()),
        first.origin.schema_version
    );
    page += "<table class=\"provenance\">\n<tr><th>GPU</th><th>best</th><th>ms</th><th>GB/s</th><th>rows</th><th>checks</th></tr>\n";
    for record in records {
        let (major, minor) = record.device.compute_capability;
        let best = record.rows.iter().find(|row| row.measured() && row.fraction_of_best == 1.0);
        let (label, ms, rate) = best.map_or(("-".to_string(), "-".to_string(), "-".to_string()), |row| {
            (row.label(), format!("{:.3}", row.median_ms), format!("{:.1}", row.gigabytes_per_second))
        });
        let checks = if record.failures.is_empty() {
            "all held".to_string()
        } else {
            format!("{} failed", record.failures.len())
        };
        let _ = writeln!(
            page,
            "<tr><td>{} ({major}.{minor})</td><td>{}</td><td>{ms}</td><td>{rate}</td><td>{}</td><td>{checks}</td></tr>",
            escape(&record.device.name),
            escape(&label),
            record.rows.len()
        );
    }
    page += "</table>\n</header>\n<main>\n";
    for (index, record) in records.iter().enumerate() {
        let (major, minor) = record.device.compute_capability;
        let _ = writeln!(
            page,
            "<section id=\"gpu-{index}\">\n<h2>{} ({major}.{minor})</h2>",
            escape(&record.device.name)
        );
        page += &verdict(record);
        page += "</section>\n";
        page += &sections(record, &format!("-{index}"))?;
        page += &provenance_section(record, &format!("provenance-{index}"), "Provenance")?;
    }
    page += EXPLORER_HTML;
    page += "</main>\n";
    page += &page_end(first)?;
    Ok(page)
}

/// The document's start, up to the open header and its title.
fn page_start(title: &str) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
    let _ = writeln!(page, "<header>\n<h1>{}</h1>", escape(title));
    page
}

/// The occupancy explorer's data (starting at `record`'s device and fastest row) and script,
/// and the document's end.
fn page_end(record: &SweepRecord) -> Result<String, String> {
    let registers = record
        .provenance
        .as_ref()
        .and_then(|provenance| provenance.registers_per_thread)
        .map_or(crate::model::sm::DEFAULT_REGISTERS, |registers| registers.min(255));
    let start = Start {
        gpu: if explorable(&record.device).is_some() { "measured" } else { "h200" }.to_string(),
        threads: record.fastest().map_or(256, |fastest| fastest.threads_per_block.clamp(1, MAX_THREADS)),
        registers,
        shared: record.shared_memory_per_block.flatten().unwrap_or(0),
    };
    let explorer = Explorer::new(&record.device, start);
    let model = script_safe(&serde_json::to_string(&explorer).map_err(|error| error.to_string())?);
    // The explorer takes a thread count; a shaped winner's shape is said beside it.
    let shape = match record.fastest().and_then(|fastest| fastest.block) {
        Some(block) => format!(
            "<p class=\"explorer-shape\">The explorer starts at the fastest row's {} threads, a {block} block: residency depends on x * y * z alone, the shape on which elements a warp touches.</p>\n",
            block.threads()
        ),
        None => String::new(),
    };
    Ok(format!(
        "{shape}<script type=\"application/json\" id=\"occupancy-model\">{model}</script>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n"
    ))
}

/// Every check held, or the failed ones.
fn verdict(record: &SweepRecord) -> String {
    if record.failures.is_empty() {
        return "<p class=\"verdict ok\">Every check held: each row's output matched the CPU reference.</p>\n".to_string();
    }
    let mut text = format!(
        "<p class=\"verdict failed\">{} check(s) failed: this table is not a measurement.</p>\n<ul class=\"failures\">\n",
        record.failures.len()
    );
    for failure in &record.failures {
        let _ = writeln!(text, "<li>{}</li>", escape(failure));
    }
    text + "</ul>\n"
}

/// The summary, the sweep's head and table, and the plot of `record`, their ids ending in
/// `suffix`.
fn sections(record: &SweepRecord, suffix: &str) -> Result<String, String> {
    let mut chart = Chart::of(record);
    chart.title = neutral(&chart.title);
    let svg = plot::render(&chart).map_err(|error| format!("{error:#}"))?;
    let mut page = format!("<section id=\"summary{suffix}\">\n<h2>Summary</h2>\n");
    let summary = match &record.summary {
        Some(lines) => lines.clone(),
        None => {
            page += "<p class=\"note\">This file did not record the lines below its table; from its fields:</p>\n";
            let mut lines = vec![sentences::suggestion(record)];
            lines.extend(sentences::fastest(record));
            lines.extend(sentences::near_best(record));
            lines.extend(sentences::stop(record));
            lines.extend(sentences::pruned(record));
            lines.push(format!("Occupancy: {}.", record.model_check));
            lines
        }
    };
    page += "<ul>\n";
    for line in &summary {
        let _ = writeln!(page, "<li>{}</li>", escape(line));
    }
    page += "</ul>\n</section>\n";

    let _ = writeln!(page, "<section id=\"sweep{suffix}\">\n<h2>The sweep</h2>");
    let head = match &record.head {
        Some(lines) => lines.join("\n"),
        None => {
            page += "<p class=\"note\">This file did not record the lines above its table; its timing:</p>\n";
            table::timing_line(record.timing).trim_end().to_string()
        }
    };
    page += "<pre class=\"head\">";
    page += &escape(&head);
    page += "</pre>\n";
    page += &rows_table(record);
    page += "<p class=\"note\">ms: the median sample; GB/s: the bytes one pass moves over it; of best: the fastest \
             row's median over this row's (* within the two rows' MADs of it); limiter: the limits that bind \
             blk/SM by the occupancy model.</p>\n</section>\n";

    let _ = writeln!(page, "<section id=\"plot{suffix}\">\n<h2>Plot</h2>\n<figure>");
    page += &svg;
    page += "\n<figcaption>GB/s at each row's median (whiskers: its fastest and slowest sample) and occupancy, \
             against block size; the triangle marks the fastest row.</figcaption>\n</figure>\n</section>\n";
    if let Some(mut chart) = CountersChart::of(record) {
        chart.title = neutral(&chart.title);
        chart.labels = chart.labels.iter().map(|label| neutral(label)).collect();
        let svg = chart.render().map_err(|error| format!("{error:#}"))?;
        let _ = writeln!(page, "<section id=\"counters{suffix}\">\n<h2>Counters</h2>\n<figure>");
        page += &svg;
        page += "\n<figcaption>Each row's hardware counters, read on a replay from flushed caches: DRAM bytes a \
                 second as a percentage of the device-to-device copy measured in the same run (the measured \
                 ceiling), achieved occupancy beside the model's theoretical one, warp execution efficiency and \
                 the L2 hit rate, against block size; the triangle marks the fastest row.</figcaption>\n\
                 </figure>\n</section>\n";
    }
    Ok(page)
}

/// The provenance's fields by name, and the device's limits.
fn provenance_section(record: &SweepRecord, id: &str, title: &str) -> Result<String, String> {
    let provenance = record.provenance.as_ref();
    let mut page = format!("<section id=\"{id}\">\n<h2>{title}</h2>\n");
    if provenance.is_none() {
        page += "<p class=\"note\">This file did not record its provenance (command, date, driver, compilers).</p>\n";
    }
    page += "<table class=\"provenance\">\n";
    if let Some(provenance) = provenance {
        // Its fields by name, as the JSON has them.
        let fields = serde_json::to_value(provenance).map_err(|error| error.to_string())?;
        for (key, value) in fields.as_object().into_iter().flatten() {
            let value = match value {
                serde_json::Value::String(text) => text.clone(),
                serde_json::Value::Null => "-".to_string(),
                other => other.to_string(),
            };
            let _ = writeln!(page, "<tr><th>{}</th><td>{}</td></tr>", escape(key), escape(&value));
        }
    }
    for part in &record.merged_from {
        let shard = part.shard.map_or_else(|| "whole sweep".to_string(), |shard| format!("shard {shard}"));
        let _ = writeln!(
            page,
            "<tr><th>{}</th><td>{} &middot; {} &middot; {}</td></tr>",
            escape(&shard),
            escape(&part.gpu),
            escape(&part.date),
            escape(&part.command)
        );
    }
    let device = &record.device;
    let _ = writeln!(
        page,
        "<tr><th>device</th><td>{} SMs; per SM {} threads, {} blocks, {} registers, {} B shared memory ({} B reserved a block); L2 {} B</td></tr>",
        device.multiprocessors,
        device.max_threads_per_sm,
        device.max_blocks_per_sm,
        device.registers_per_sm,
        device.shared_memory_per_sm,
        device.reserved_shared_memory_per_block,
        device.l2_cache_bytes
    );
    page += "</table>\n</section>\n";
    Ok(page)
}

/// The sweep's table, every column of the Markdown export; with `--counters`, their columns
/// and a checkbox before the table that shows or hides them (`#counters=off` in the address
/// starts with them hidden).
fn rows_table(record: &SweepRecord) -> String {
    let shown = Shown {
        // The block's shape where a row's is not in x alone.
        shaped: record.rows.iter().any(|row| row.block.is_some()),
        clocks: record.rows.iter().any(|row| row.sm_clock.is_some()),
        energy: record.rows.iter().any(|row| row.energy.is_some()),
        runs: record.rows.windows(2).any(|pair| pair[0].run_ms.len() != pair[1].run_ms.len()),
    };
    let mut text = String::from("<div class=\"rows\">\n");
    if record.counters.is_some() {
        text +=
            "<label><input type=\"checkbox\" class=\"counters-toggle\" checked> hardware counters</label>\n";
    }
    text += &rows_heading(record, shown);
    for row in &record.rows {
        text += &row_line(record, row, shown);
    }
    text += "</tbody>\n</table>\n</div>\n";
    text
}

/// Which of the optional columns [`rows_table`] shows.
#[derive(Clone, Copy)]
struct Shown {
    shaped: bool,
    clocks: bool,
    energy: bool,
    runs: bool,
}

/// The table's start and its heading.
fn rows_heading(record: &SweepRecord, shown: Shown) -> String {
    let mut text = String::new();
    text += "<table class=\"rows\">\n<thead><tr>";
    for name in &record.axes {
        let _ = write!(text, "<th>{}</th>", escape(name));
    }
    if shown.shaped {
        text += "<th>block</th>";
    }
    for heading in [
        "thr/blk", "warps", "idle", "blk/SM", "warps/SM", "occ", "grid", "ms", "GB/s", "of best", "min ms",
        "max ms", "MAD ms",
    ] {
        let _ = write!(text, "<th>{heading}</th>");
    }
    if shown.clocks {
        text += "<th>SM MHz</th>";
    }
    if shown.energy {
        text += "<th>mJ/pass</th><th>W</th>";
    }
    for column in record.counters.iter().flat_map(|_| &table::COUNTER_COLUMNS) {
        let _ = write!(text, "<th class=\"counter\">{}</th>", column.heading);
    }
    if shown.runs {
        text += "<th>runs</th>";
    }
    text += "<th>limiter</th></tr></thead>\n<tbody>\n";
    text
}

/// One row of the table.
fn row_line(record: &SweepRecord, row: &RowRecord, shown: Shown) -> String {
    let mut text = String::new();
    let best = row.fraction_of_best >= 1.0;
    let _ = write!(text, "<tr{}>", if best { " class=\"best\"" } else { "" });
    for name in &record.axes {
        let _ = write!(text, "<td>{}</td>", escape(row.axes.get(name).unwrap_or("")));
    }
    if shown.shaped {
        let _ = write!(text, "<td>{}</td>", row.shape());
    }
    let cells = [
        row.threads_per_block.to_string(),
        row.warps_per_block.to_string(),
        row.idle_lanes.to_string(),
        row.blocks_per_sm.to_string(),
        row.warps_per_sm.to_string(),
        format!("{:.0}%", row.occupancy_percent),
        row.grid_shape().to_string(),
        format!("{:.3}", row.median_ms),
        format!("{:.1}", row.gigabytes_per_second),
        format!("{:.2}{}", row.fraction_of_best, if row.within_noise_of_best { "*" } else { "" }),
        format!("{:.4}", row.min_ms),
        format!("{:.4}", row.max_ms),
        format!("{:.4}", row.mad_ms),
    ]
    .map(|cell| match (&row.failed, &row.pruned) {
        // No measurement: say what happened where the times would be.
        (Some(reason), _) if cell == "NaN" || cell.starts_with("NaN") => {
            if reason.starts_with("hung") {
                "hung".to_string()
            } else {
                "failed".to_string()
            }
        }
        (None, Some(_)) if cell == "NaN" || cell.starts_with("NaN") => "pruned".to_string(),
        _ => cell,
    });
    for cell in cells {
        let _ = write!(text, "<td>{cell}</td>");
    }
    if shown.clocks {
        let _ = write!(text, "<td>{}</td>", table::clock_cell(row.sm_clock.as_ref()));
    }
    if shown.energy {
        for cell in table::energy_cells(row.energy.as_ref()) {
            let _ = write!(text, "<td>{cell}</td>");
        }
    }
    if let Some(run) = &record.counters {
        let cells = match row.failed.is_some() || row.pruned.is_some() {
            true => vec!["-".to_string(); table::COUNTER_COLUMNS.len()],
            false => table::counter_cells(run, row.counters.as_ref()),
        };
        for cell in cells {
            let _ = write!(text, "<td class=\"counter\">{cell}</td>");
        }
    }
    if shown.runs {
        let _ = write!(text, "<td>{}</td>", row.run_ms.len());
    }
    let limiter = match (&row.pruned, &row.limiter) {
        (Some(reason), _) => format!("cannot launch: {reason}"),
        (None, Some(limiter)) => limiter.clone(),
        (None, None) => "not recorded".to_string(),
    };
    let _ = writeln!(text, "<td class=\"limiter\">{}</td></tr>", escape(&limiter));
    text
}

/// The explorer's controls, drawing and note; the script fills them in.
const EXPLORER_HTML: &str = r#"<section id="explorer">
<h2>Occupancy explorer</h2>
<p class="note">One SM, by the same occupancy model as <code>block-size occupancy</code> (and the check of every
sweep against the driver): how many blocks of this shape fit, and which of the four limits binds. Move the sliders,
or pick another GPU.</p>
<div class="controls">
<label>GPU <select id="ex-gpu"></select></label>
<label>threads per block <input type="range" id="ex-threads" min="1" max="1024" step="1"> <output id="ex-threads-value"></output></label>
<label>registers per thread <input type="range" id="ex-registers" min="0" max="255" step="1"> <output id="ex-registers-value"></output></label>
<label>shared memory per block (bytes) <input type="range" id="ex-shared" min="0" max="1024" step="1"> <output id="ex-shared-value"></output></label>
</div>
<p class="readout"><span id="ex-blocks"></span> blocks/SM &middot; <span id="ex-warps"></span> warps/SM &middot;
occupancy <span id="ex-occupancy"></span> &middot; binding: <strong id="ex-binding"></strong></p>
<p class="gpu-limits" id="ex-gpu-limits"></p>
<svg id="ex-drawing" viewBox="0 0 720 330" role="img" aria-label="warp slots of one SM and the four limits"></svg>
<details open>
<summary>What this does not show</summary>
<ul>
<li>Run time. The explorer counts resident blocks; the sweep above measures time. Past the occupancy that hides the
kernel's latency, more warps buy nothing: compare the <em>occ</em> and <em>of best</em> columns.</li>
<li>Memory bandwidth, caches, the instruction mix and the compiler's choices: a register count you set here is not
one ptxas would give the kernel at that block size.</li>
<li>The grid: how many waves of these blocks a launch makes and how full the last one is (<code>block-size tail</code>).</li>
<li>The shared-memory carve-out the driver picks: the model assumes the largest one, so a smaller carve-out fits
fewer blocks than shown.</li>
<li>A preset is its architecture's published limits, not a card: the sweep's own check (the <em>limiter</em> column
and the model line of the summary) is where the model meets a real driver.</li>
</ul>
</details>
<pre id="explorer-check" hidden></pre>
</section>
"#;

/// The page of a record read from a T4 file: its configurations, their samples' statistics and
/// their validity, and what the file did not record; no occupancy, plot or explorer (the file
/// names no device).
fn t4_page(record: &SweepRecord) -> String {
    let title =
        format!("block-size: a T4 results file ({} on {})", record.workload.kernel, record.device.name);
    let mut page = page_start(&title);
    if let Some(lacking) = record.lacking("This file") {
        let _ = writeln!(page, "<p class=\"note schema\">{}</p>", escape(&lacking));
    }
    page += "</header>\n<main>\n<section id=\"summary\">\n<h2>Summary</h2>\n";
    let measured = record.measured_rows().count();
    let _ = writeln!(
        page,
        "<p>{} configuration(s), {measured} with runtimes, {} failed, {} ruled out.</p>",
        record.rows.len(),
        record.rows.iter().filter(|row| row.failed.is_some()).count(),
        record.rows.iter().filter(|row| row.pruned.is_some()).count(),
    );
    if let Some(fastest) = record.fastest() {
        let _ = writeln!(
            page,
            "<p>Fastest by median runtime: {} at {:.4} ms.</p>",
            escape(&fastest.label()),
            fastest.median_ms
        );
    }
    page += "</section>\n<section id=\"table\">\n<h2>Configurations</h2>\n<table>\n<tr>";
    for name in &record.axes {
        let _ = write!(page, "<th>{}</th>", escape(name));
    }
    page += "<th>block</th><th>thr/blk</th><th>samples</th><th>median ms</th><th>min ms</th><th>max ms</th><th>MAD ms</th><th>of best</th><th>validity</th></tr>\n";
    for row in &record.rows {
        page += "<tr>";
        for name in &record.axes {
            let _ = write!(page, "<td>{}</td>", escape(row.axes.get(name).unwrap_or_default()));
        }
        let _ = write!(
            page,
            "<td>{}</td><td>{}</td><td>{}</td>",
            row.shape(),
            row.threads_per_block,
            row.samples
        );
        if row.measured() {
            let _ = write!(
                page,
                "<td>{:.4}</td><td>{:.4}</td><td>{:.4}</td><td>{:.4}</td><td>{:.2}</td><td>correct</td>",
                row.median_ms, row.min_ms, row.max_ms, row.mad_ms, row.fraction_of_best
            );
        } else {
            let why = row.failed.as_deref().or(row.pruned.as_deref()).unwrap_or_default();
            let _ = write!(page, "{}<td>{}</td>", "<td>n/a</td>".repeat(5), escape(why));
        }
        page += "</tr>\n";
    }
    page += "</table>\n</section>\n</main>\n</body>\n</html>\n";
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of a step function at `input`.
    fn at(steps: &[[u32; 2]], input: u32) -> u32 {
        steps[steps.partition_point(|[from, _]| *from <= input) - 1][1]
    }

    #[test]
    fn the_embedded_tables_are_the_models_answers_everywhere() {
        let device = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        let start = Start { gpu: "measured".into(), threads: 256, registers: 16, shared: 0 };
        let explorer = Explorer::new(&device, start);
        let keys: Vec<&str> = explorer.gpus.iter().map(|gpu| gpu.key.as_str()).collect();
        assert_eq!(keys, ["t4", "rtx5090", "h100", "h200", "measured"]);
        for gpu in &explorer.gpus {
            let model = match gpu.key.as_str() {
                "measured" => SmModel::from_device(&device).unwrap(),
                key => crate::model::sm::preset(key).unwrap().model(),
            };
            // The warp, block and register limits at every block size and register count...
            for threads in 1..=MAX_THREADS {
                let warps = explorer.warps_per_block[threads as usize - 1];
                for registers in (0..=MAX_REGISTERS).step_by(if threads % 32 == 0 { 1 } else { 17 }) {
                    let table = [
                        gpu.by_warps[warps as usize - 1],
                        gpu.max_blocks,
                        at(&gpu.by_registers[warps as usize - 1], registers),
                    ];
                    let limits = model.limits(threads, registers, 0);
                    assert_eq!(
                        table,
                        [limits[0].1, limits[1].1, limits[2].1],
                        "{} {threads} {registers}",
                        gpu.key
                    );
                }
            }
            // ...and the shared-memory limit at every byte, whatever the block.
            for shared in 0..=gpu.max_shared_memory_per_block {
                let threads = [32, 100, 1024][shared as usize % 3];
                assert_eq!(
                    at(&gpu.by_shared_memory, shared),
                    model.limits(threads, 16, shared)[3].1,
                    "{} {shared}",
                    gpu.key
                );
            }
        }
    }

    #[test]
    fn an_architecture_the_model_does_not_know_gets_the_presets_only() {
        let mut device = crate::measure::gpu::mock::MockGpu::h200_like().limits;
        device.compute_capability = (10, 0);
        let start = Start { gpu: "h200".into(), threads: 256, registers: 16, shared: 0 };
        assert_eq!(Explorer::new(&device, start).gpus.len(), 4);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("<b>\"R&D\"</b> 'x'"), "&lt;b&gt;&quot;R&amp;D&quot;&lt;/b&gt; &#39;x&#39;");
    }
}
