/*!
`--plot FILE.svg`: effective bandwidth against block size, with each row's min-max range as a
whisker, occupancy on a second axis, and the fastest row marked; and the HTML report's chart of
the hardware counters (`--counters`), each row's readings as percentages of their ceilings.
*/

use crate::measure::sampling::timing::Timing;
use crate::model::axis_values::AxisValues;
use crate::model::block_shape::BlockShape;
use crate::model::frame_size;
use crate::results::schema::{PassRecord, RowRecord, SweepRecord};
use crate::results::table;
use crate::search::sweep::Sweep;
use anyhow::{Result, anyhow};
use plotters::prelude::*;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 560;

/// Renders the sweep as an SVG document: the chart of its rows' records, as the HTML page
/// draws a record read back.
pub fn svg(sweep: &Sweep) -> Result<String> {
    let rows: Vec<RowRecord> = sweep.rows.iter().map(|row| RowRecord::of(sweep, row)).collect();
    let fastest = sweep.best().and_then(|best| {
        rows.iter().find(|row| row.measured() && (row.shape(), &row.axes) == (best.block, &best.axes))
    });
    let frame = sweep.pass.items.is_none().then_some((sweep.pass.frame.width, sweep.pass.frame.height));
    let workload = PassRecord::of(&sweep.pass);
    let title = title(&sweep.limits.name, &workload, frame, sweep.pixels(), sweep.timing);
    render(&Chart::new(title, &sweep.axes, &rows, fastest, workload.bytes_per_pass))
}

/// What the plot draws.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// The caption: GPU, kernel, work, timing.
    pub title: String,
    /// The x axis' description.
    pub x_desc: String,
    /// One point per measured row, in the sweep's order.
    pub rows: Vec<PlotPoint>,
    /// The fastest row's index and its legend label.
    pub best: Option<(usize, String)>,
}

/// One row of the plot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlotPoint {
    /// Its x label: the block size, or "block size:value" with an axis.
    pub label: String,
    /// GB/s at the median.
    pub median_gbps: f64,
    /// GB/s at the slowest sample (the bottom whisker).
    pub slowest_gbps: f64,
    /// GB/s at the fastest sample (the top whisker).
    pub fastest_gbps: f64,
    /// Occupancy, in percent.
    pub occupancy_percent: f64,
}

/// The caption: "NVIDIA H200: grayscale, 3840 x 2160, batch, median of 10 samples".
fn title(
    device: &str,
    workload: &PassRecord,
    frame: Option<(u32, u32)>,
    pixels: u64,
    timing: Timing,
) -> String {
    let work = match (&workload.items, frame) {
        (Some(items), _) => format!("{} {}", items.count, items.noun),
        (None, Some((width, height))) => format!("{width} x {height}"),
        (None, None) => format!("{pixels} pixels"),
    };
    format!("{device}: {}, {work}, {}", workload.kernel, table::timing_title(timing))
}

impl Chart {
    /// The chart of a sweep's record, as written or read back from its JSON.
    pub fn of(record: &SweepRecord) -> Self {
        let frame = record.width.zip(record.height);
        let title = title(&record.device.name, &record.workload, frame, record.pixels, record.timing);
        Self::new(title, &record.axes, &record.rows, record.fastest(), record.workload.bytes_per_pass)
    }

    /// The chart of `rows`, the measured ones drawn (a configuration that failed or was
    /// pruned has no time to plot, nor has one whose figures are not finite numbers), with
    /// `fastest`, one of `rows`, marked.
    fn new(
        title: String,
        axes: &[String],
        rows: &[RowRecord],
        fastest: Option<&RowRecord>,
        bytes_per_pass: f64,
    ) -> Self {
        let gbps = |ms: f64| frame_size::gigabytes_per_second(bytes_per_pass, ms);
        let drawn: Vec<(&RowRecord, PlotPoint)> = rows
            .iter()
            .filter(|row| row.measured())
            .map(|row| {
                let point = PlotPoint {
                    label: label(row.shape(), &row.axes),
                    median_gbps: gbps(row.median_ms),
                    slowest_gbps: gbps(row.max_ms),
                    fastest_gbps: gbps(row.min_ms),
                    occupancy_percent: row.occupancy_percent,
                };
                (row, point)
            })
            .filter(|(_, point)| {
                [point.median_gbps, point.slowest_gbps, point.fastest_gbps, point.occupancy_percent]
                    .iter()
                    .all(|value| value.is_finite())
            })
            .collect();
        let best = fastest.and_then(|fastest| {
            // `fastest` is one of `rows`: found by identity, not by its (possibly repeated) values.
            let index = drawn.iter().position(|(row, _)| std::ptr::eq(*row, fastest))?;
            let axes = if fastest.axes.is_empty() { String::new() } else { format!(", {}", fastest.axes) };
            let block = match fastest.block {
                Some(shape) => format!("block {shape}"),
                None => format!("{} threads", fastest.threads_per_block),
            };
            let label = format!("fastest: {block}{axes}, {:.3} ms", fastest.median_ms);
            Some((index, label))
        });
        Self { title, x_desc: x_desc(axes), rows: drawn.into_iter().map(|(_, point)| point).collect(), best }
    }
}

/// A row's x label: "256" (a block shape: "32x8"), or "256:4" with one axis, "256:4,waves:2"
/// with two.
fn label(block: BlockShape, axes: &AxisValues) -> String {
    if axes.is_empty() {
        block.to_string()
    } else {
        format!("{block}:{}", axes.values().collect::<Vec<_>>().join(","))
    }
}

/// The x axis: "threads per block", or "threads per block:NAME,..." with axes.
fn x_desc(axes: &[String]) -> String {
    if axes.is_empty() {
        "threads per block".to_string()
    } else {
        format!("threads per block:{}", axes.join(","))
    }
}

/// The row a tick at `x` labels (rows are placed at their index): none between rows.
fn row_at(x: f64) -> Option<usize> {
    let index = x.round();
    ((x - index).abs() < 1e-6 && index >= 0.0).then_some(index as usize)
}

/// Renders a chart as an SVG document.
pub(crate) fn render(chart: &Chart) -> Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        draw(chart, &root).map_err(|error| anyhow!("drawing the plot: {error}"))?;
        root.present().map_err(|error| anyhow!("drawing the plot: {error}"))?;
    }
    Ok(text)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw(chart_data: &Chart, root: &Area<'_>) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let rows = &chart_data.rows;
    // Rows are placed at their index, labelled with their block size: the sizes are not
    // evenly spaced, and a log axis would crowd 96, 100 and 128 together.
    let positions = 0..rows.len();
    let top = rows.iter().map(|row| row.fastest_gbps).fold(0.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(&chart_data.title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .right_y_label_area_size(64)
        .build_cartesian_2d(-0.5..(rows.len() as f64 - 0.5), 0.0..top.max(1.0))?
        .set_secondary_coord(-0.5..(rows.len() as f64 - 0.5), 0.0..110.0);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(rows.len())
        .x_label_formatter(&|x| {
            row_at(*x).and_then(|index| rows.get(index)).map_or(String::new(), |row| row.label.clone())
        })
        .x_desc(&chart_data.x_desc)
        .y_desc("effective bandwidth, GB/s (median; whisker: min-max)")
        .draw()?;
    chart.configure_secondary_axes().y_desc("occupancy, %").draw()?;

    let blue = RGBColor(31, 119, 180);
    let orange = RGBColor(255, 127, 14);
    chart
        .draw_series(positions.clone().map(|i| {
            let row = &rows[i];
            // The fastest launch gives the highest bandwidth: min time is the top whisker.
            ErrorBar::new_vertical(
                i as f64,
                row.slowest_gbps,
                row.median_gbps,
                row.fastest_gbps,
                blue.filled(),
                8,
            )
        }))?
        .label("GB/s")
        .legend(move |(x, y)| Circle::new((x, y), 4, blue.filled()));
    chart.draw_series(LineSeries::new(positions.clone().map(|i| (i as f64, rows[i].median_gbps)), blue))?;
    chart
        .draw_secondary_series(LineSeries::new(
            positions.clone().map(|i| (i as f64, rows[i].occupancy_percent)),
            orange.stroke_width(2),
        ))?
        .label("occupancy %")
        .legend(move |(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], orange.stroke_width(2)));
    if let Some((index, label)) = &chart_data.best {
        let at = (*index as f64, rows[*index].median_gbps);
        chart
            .draw_series(std::iter::once(TriangleMarker::new(at, 10, RED.filled())))?
            .label(label)
            .legend(|(x, y)| TriangleMarker::new((x, y), 6, RED.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// The counters' chart: one point per measured row that has counters, its readings in percent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CountersChart {
    /// The caption: GPU, kernel, the copy the DRAM rates are a percentage of.
    pub title: String,
    /// The x axis' description.
    pub x_desc: String,
    /// Each drawn row's x label.
    pub labels: Vec<String>,
    /// Each series' name and its value at each drawn row (`None`: not read there).
    pub series: Vec<(&'static str, Vec<Option<f64>>)>,
    /// The fastest row's index among the drawn, where it has counters.
    pub best: Option<usize>,
}

impl CountersChart {
    /// The chart of a record's counters: DRAM as a percentage of the copy measured in the same
    /// run (the measured ceiling), achieved and theoretical occupancy, warp execution
    /// efficiency and the L2 hit rate, against block size. `None` where no row has counters.
    pub fn of(record: &SweepRecord) -> Option<Self> {
        let run = record.counters.as_ref()?;
        let drawn: Vec<&RowRecord> = record.measured_rows().filter(|row| row.counters.is_some()).collect();
        if drawn.is_empty() {
            return None;
        }
        let finite = |value: Option<f64>| value.filter(|value| value.is_finite());
        let series_of = |read: &dyn Fn(&RowRecord) -> Option<f64>| {
            drawn.iter().map(|row| finite(read(row))).collect::<Vec<_>>()
        };
        let counters = |row: &RowRecord| row.counters.unwrap_or_default();
        let series = vec![
            ("DRAM, % of the copy", series_of(&|row| run.percent_of_copy(&counters(row)))),
            ("achieved occupancy, %", series_of(&|row| counters(row).achieved_occupancy_percent)),
            ("theoretical occupancy, %", series_of(&|row| Some(row.occupancy_percent))),
            ("warp execution efficiency, %", series_of(&|row| counters(row).warp_efficiency_percent)),
            ("L2 hit rate, %", series_of(&|row| counters(row).l2_hit_percent)),
        ];
        let fastest = record.fastest();
        let best = fastest.and_then(|fastest| drawn.iter().position(|row| std::ptr::eq(*row, fastest)));
        let copy = run.copy_bytes_per_second.map_or_else(
            || "no copy measured".to_string(),
            |copy| format!("the copy at {:.0} GB/s", copy / 1e9),
        );
        Some(Self {
            title: format!("{}: {}, hardware counters ({copy})", record.device.name, record.workload.kernel),
            x_desc: x_desc(&record.axes),
            labels: drawn.iter().map(|row| label(row.shape(), &row.axes)).collect(),
            series,
            best,
        })
    }

    /// Renders the chart as an SVG document.
    pub fn render(&self) -> Result<String> {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
            self.draw(&root).map_err(|error| anyhow!("drawing the counters' chart: {error}"))?;
            root.present().map_err(|error| anyhow!("drawing the counters' chart: {error}"))?;
        }
        Ok(text)
    }

    fn draw(&self, root: &Area<'_>) -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let labels = &self.labels;
        let count = labels.len();
        // A reading can pass 100 (DRAM above the copy): the axis grows to show it, with room
        // above the lines for the legend.
        let top = self
            .series
            .iter()
            .flat_map(|(_, values)| values.iter().flatten())
            .fold(100.0, |a: f64, &b| a.max(b));
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..(count as f64 - 0.5), 0.0..top * 1.4)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(count)
            .x_label_formatter(&|x| {
                row_at(*x).and_then(|index| labels.get(index)).cloned().unwrap_or_default()
            })
            .x_desc(&self.x_desc)
            .y_desc("percent")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        let colors = [
            RGBColor(31, 119, 180),
            RGBColor(255, 127, 14),
            RGBColor(255, 187, 120),
            RGBColor(44, 160, 44),
            RGBColor(148, 103, 189),
        ];
        for ((name, values), color) in self.series.iter().zip(colors) {
            let points: Vec<(f64, f64)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, value)| value.map(|value| (i as f64, value)))
                .collect();
            // The theoretical occupancy is the model's, drawn thin: the others are readings.
            let width = if name.starts_with("theoretical") { 1 } else { 2 };
            chart
                .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(width)))?
                .label(*name)
                .legend(move |(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&at| Circle::new(at, 3, color.filled())))?;
        }
        if let Some(index) = self.best {
            let at = (index as f64, self.series[0].1[index].unwrap_or(0.0));
            chart
                .draw_series(std::iter::once(TriangleMarker::new(at, 10, RED.filled())))?
                .label(format!("fastest: {}", labels[index]))
                .legend(|(x, y)| TriangleMarker::new((x, y), 6, RED.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::gpu::backend::Timing;
    use crate::tests::fixture;

    #[test]
    fn svg_has_axes_labels_and_the_fastest_row() {
        let mut gpu = fixture::gpu();
        gpu.milliseconds = vec![(32, 0.08), (128, 0.04), (1024, 0.05)];
        gpu.run_spread = 0.05;
        let mut workload = fixture::workload(&mut gpu, fixture::kernel(4096));
        let timing = Timing::launch(1, 5);
        let result =
            crate::search::sweep::run(&mut gpu, workload.as_mut(), &[32, 128, 1024], timing, None).unwrap();
        let svg = svg(&result).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..100]);
        for label in [
            "threads per block",
            "occupancy, %",
            "fastest: 128 threads, 0.040 ms",
            "\n1024\n",
            ": scale, 4096 values",
        ] {
            assert!(svg.contains(label), "missing {label:?}");
        }
    }
}
