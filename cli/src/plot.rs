//! The roofline chart as SVG or PNG (plotters, log-log axes).

use std::path::Path;

use anyhow::{Context, Result, bail};
use plotters::prelude::*;
use skylight_core::Precision;
use skylight_core::roofline::{MemoryLevel, Roofline, axis, size_label};

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

fn precision_color(p: Precision) -> RGBColor {
    match p {
        Precision::F32 => RGBColor(31, 119, 180),
        Precision::F64 => RGBColor(214, 39, 40),
        Precision::Df64 => RGBColor(44, 160, 44),
    }
}

/// Each measured level's bandwidth slope: its level, GB/s and legend
/// text (the level, its bandwidth, and the working sets of its plateau).
fn level_slopes(roof: &Roofline) -> Vec<(MemoryLevel, f64, String)> {
    roof.levels()
        .into_iter()
        .filter_map(|level| {
            let bw = roof.level_bandwidth(level)?;
            let range = roof
                .bandwidth
                .iter()
                .filter(|c| c.memory_level() == level)
                .find_map(|c| c.working_set)
                .map(|[lo, hi]| format!(", {}-{}", size_label(lo), size_label(hi)))
                .unwrap_or_default();
            Some((level, bw, format!("{level} {bw:.0} GB/s{range}")))
        })
        .collect()
}

/// Darker for slower levels, so device memory's slope reads as the floor.
fn level_shade(level: MemoryLevel) -> f64 {
    match level {
        MemoryLevel::Shared => 0.25,
        MemoryLevel::L1 => 0.3,
        MemoryLevel::L2 => 0.4,
        MemoryLevel::L3 => 0.5,
        MemoryLevel::Dram => 0.7,
    }
}

/// Writes the chart of `roof` to `path` (.svg, else a bitmap format by extension).
pub fn draw(roof: &Roofline, path: &Path) -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow::anyhow!("embedded font is invalid"))?;
    let size = (1100, 750);
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => render(roof, SVGBackend::new(path, size).into_drawing_area()),
        Some("png") => render(roof, BitMapBackend::new(path, size).into_drawing_area()),
        _ => bail!("plot file must end in .svg or .png"),
    }
    .with_context(|| format!("drawing {}", path.display()))
}

fn render<DB: DrawingBackend>(
    roof: &Roofline,
    area: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let bw = roof.bandwidth_peak();
    let peak_max = roof.compute.iter().map(|c| c.value).fold(0.0, f64::max);
    let ai_min = roof.points.iter().map(|p| p.ai).fold(0.01f64, f64::min) / 2.0;
    let ai_max = roof
        .compute
        .iter()
        .filter_map(|c| c.precision.and_then(|p| roof.ridge(p)))
        .chain(roof.points.iter().map(|p| p.ai))
        .fold(10.0f64, f64::max)
        * 4.0;
    let y_min = roof
        .points
        .iter()
        .map(|p| p.gflops)
        .chain([ai_min * bw])
        .fold(f64::INFINITY, f64::min)
        / 2.0;
    let y_max = peak_max.max(ai_max * bw.min(1.0)).max(1.0) * 3.0;
    let (lx, hx, ly, hy) = (
        ai_min.log10(),
        ai_max.log10(),
        y_min.max(1e-6).log10(),
        y_max.log10(),
    );
    let mut chart = ChartBuilder::on(&area)
        .caption(
            format!("Roofline: {}", roof.platform.label()),
            ("sans-serif", 24),
        )
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(lx..hx, ly..hy)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let decade_x = axis::decades(ai_min, ai_max);
    let decade_y = axis::decades(y_min.max(1e-6), y_max);
    chart
        .configure_mesh()
        .x_desc("arithmetic intensity (FLOP/byte)")
        .y_desc("GFLOP/s")
        .x_labels(decade_x.len())
        .y_labels(decade_y.len())
        .x_label_formatter(&|v: &f64| axis::decade_label(v.round() as i32))
        .y_label_formatter(&|v: &f64| axis::decade_label(v.round() as i32))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let log = |(x, y): (f64, f64)| (x.log10(), y.log10());
    for c in &roof.compute {
        let Some(p) = c.precision else { continue };
        let color = precision_color(p);
        let line: Vec<(f64, f64)> = roof
            .roof_line(p, ai_min, ai_max)
            .into_iter()
            .map(log)
            .collect();
        chart
            .draw_series(LineSeries::new(line, color.stroke_width(2)))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label(format!(
                "{} {:.0} GFLOP/s, ridge {:.2}",
                c.label,
                c.value,
                roof.ridge(p).unwrap_or(0.0)
            ))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    for (level, bw, label) in level_slopes(roof) {
        // Plotters does not clip series to the chart, so end the slope at the top edge.
        let slope_end = ai_max.min(y_max / bw);
        let slope: Vec<(f64, f64)> = [ai_min, slope_end]
            .iter()
            .map(|&a| log((a, a * bw)))
            .collect();
        let shade = BLACK.mix(level_shade(level));
        chart
            .draw_series(LineSeries::new(slope, shade.stroke_width(1)))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], shade));
    }
    for p in &roof.points {
        let (x, y) = log((p.ai, p.gflops));
        let color = precision_color(p.precision);
        // Its intensity at L1 (every load counted), joined on the same rate.
        if let Some(l1) = p
            .issued_ai
            .filter(|&a| a > 0.0 && (a / p.ai - 1.0).abs() > 1e-3)
        {
            let lx = l1.log10();
            chart
                .draw_series(LineSeries::new([(lx, y), (x, y)], color.mix(0.5)))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            chart
                .draw_series(std::iter::once(Circle::new(
                    (lx, y),
                    4,
                    color.stroke_width(1),
                )))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        chart
            .draw_series(std::iter::once(Circle::new((x, y), 4, color.filled())))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{} {}", p.app, p.kernel),
                (x, y),
                ("sans-serif", 11).into_font().color(&BLACK.mix(0.7)),
            )))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    area.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}
