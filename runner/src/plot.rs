/*!
`--plot FILE.svg`: effective bandwidth against block size, with each row's min-max range as a
whisker, occupancy on a second axis, and the fastest row marked.
*/

use crate::report::{self, Summary};
use crate::sweep::Sweep;
use anyhow::{Result, anyhow};
use plotters::prelude::*;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 560;

/// Renders the sweep as an SVG document.
pub fn svg(sweep: &Sweep) -> Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        draw(sweep, &root).map_err(|error| anyhow!("drawing the plot: {error}"))?;
        root.present().map_err(|error| anyhow!("drawing the plot: {error}"))?;
    }
    Ok(text)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw(sweep: &Sweep, root: &Area<'_>) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    // A configuration that failed has no time to plot.
    let rows: Vec<&crate::sweep::Row> = sweep.measured_rows().collect();
    // Rows are placed at their index, labelled with their block size: the sizes are not
    // evenly spaced, and a log axis would crowd 96, 100 and 128 together.
    let positions = 0..rows.len();
    let gbps = |ms: f64| sweep.gigabytes_per_second_at(ms);
    let top = rows.iter().map(|row| gbps(row.stats.min)).fold(0.0, f64::max) * 1.1;
    let title = format!(
        "{}: {}, {}, {}",
        sweep.limits.name,
        sweep.pass.kernel,
        if sweep.pass.items.is_some() { sweep.pass.extent() } else { sweep.pass.frame.to_string() },
        report::timing_title(sweep.timing)
    );
    // With a tunable, each row is labelled "block size:value".
    let label = |row: &crate::sweep::Row| match &row.tunable {
        Some(value) => format!("{}:{value}", row.threads_per_block),
        None => row.threads_per_block.to_string(),
    };
    let x_desc = match &sweep.tunable {
        Some(name) => format!("threads per block:{name}"),
        None => "threads per block".to_string(),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
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
            let index = x.round();
            if (x - index).abs() < 1e-6 && index >= 0.0 {
                rows.get(index as usize).map_or(String::new(), |row| label(row))
            } else {
                String::new()
            }
        })
        .x_desc(x_desc)
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
                gbps(row.stats.max),
                gbps(row.stats.median),
                gbps(row.stats.min),
                blue.filled(),
                8,
            )
        }))?
        .label("GB/s")
        .legend(move |(x, y)| Circle::new((x, y), 4, blue.filled()));
    chart.draw_series(LineSeries::new(
        positions.clone().map(|i| (i as f64, gbps(rows[i].stats.median))),
        blue,
    ))?;
    chart
        .draw_secondary_series(LineSeries::new(
            positions.clone().map(|i| (i as f64, sweep.occupancy_percent(rows[i]))),
            orange.stroke_width(2),
        ))?
        .label("occupancy %")
        .legend(move |(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], orange.stroke_width(2)));
    if let (Some(best), Some(label)) = (sweep.best(), Summary::of(sweep).fastest_label()) {
        let index = rows
            .iter()
            .position(|row| row.threads_per_block == best.threads_per_block)
            .expect("best is a row");
        let at = (index as f64, gbps(best.stats.median));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Timing;
    use crate::mock::MockGpu;
    use crate::workload::{Params, grayscale};

    #[test]
    fn svg_has_axes_labels_and_the_fastest_row() {
        let mut gpu = MockGpu::h200_with(&[grayscale::KERNEL.rust_kernel()]);
        gpu.milliseconds = vec![(32, 0.08), (128, 0.04), (1024, 0.05)];
        gpu.run_spread = 0.05;
        let mut workload = (grayscale::KERNEL.create)(&Params::frame(64, 64)).unwrap();
        workload.upload(&mut gpu).unwrap();
        let timing = Timing::launch(1, 5);
        let result = crate::sweep::run(&mut gpu, workload.as_mut(), &[32, 128, 1024], timing, None).unwrap();
        let svg = svg(&result).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..100]);
        for label in [
            "threads per block",
            "occupancy, %",
            "fastest: 128 threads, 0.040 ms",
            "\n1024\n",
            ": grayscale, 64 x 64",
        ] {
            assert!(svg.contains(label), "missing {label:?}");
        }
    }
}
