//! The cascade plot of Sewall et al. (2020): per app, the platforms sorted
//! from most to least efficient; markers give the k-th platform's
//! efficiency (labelled with its number in the table), the line the PP over
//! the first k. Where a line falls steeply, adding that platform costs the
//! app its portability.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use plotters::prelude::*;
use skylight_core::portability::{BEST, PpRow, PpTable, pp};

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// Series drawn per app panel: the kernels that ran on most platforms.
const SERIES: usize = 6;

/// Writes one panel per app to `path` (.svg or .png).
pub fn draw(table: &PpTable, path: &Path) -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow!("embedded font is invalid"))?;
    let mut apps: BTreeMap<&str, Vec<&PpRow>> = BTreeMap::new();
    for r in table.rows.iter().filter(|r| r.variant == BEST) {
        apps.entry(r.app.as_str()).or_default().push(r);
    }
    if apps.is_empty() {
        bail!("nothing to plot");
    }
    let cols = apps.len().min(3);
    let rows = apps.len().div_ceil(cols);
    let size = (
        480 * cols as u32,
        360 * rows as u32 + 30 + 16 * table.platforms.len() as u32,
    );
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => render(
            table,
            &apps,
            (rows, cols),
            SVGBackend::new(path, size).into_drawing_area(),
        ),
        Some("png") => render(
            table,
            &apps,
            (rows, cols),
            BitMapBackend::new(path, size).into_drawing_area(),
        ),
        _ => bail!("plot file must end in .svg or .png"),
    }
    .with_context(|| format!("drawing {}", path.display()))
}

fn render<DB: DrawingBackend>(
    table: &PpTable,
    apps: &BTreeMap<&str, Vec<&PpRow>>,
    (rows, cols): (usize, usize),
    area: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    area.fill(&WHITE).map_err(e)?;
    let footer = 30 + 16 * table.platforms.len() as u32;
    let (plots, legend) = area.split_vertically(area.dim_in_pixel().1 - footer);
    for (i, p) in table.platforms.iter().enumerate() {
        legend
            .draw_text(
                &format!("P{} = {p}", i + 1),
                &("sans-serif", 13).into_font().color(&BLACK),
                (10, 10 + 16 * i as i32),
            )
            .map_err(e)?;
    }
    for ((app, series), panel) in apps.iter().zip(plots.split_evenly((rows, cols))) {
        draw_panel(table, app, series, &panel)?;
    }
    area.present().map_err(e)?;
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(
    table: &PpTable,
    app: &str,
    series: &[&PpRow],
    panel: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("{e}");
    let n = table.platforms.len();
    let mut chosen: Vec<&&PpRow> = series.iter().collect();
    chosen.sort_by_key(|r| std::cmp::Reverse(r.efficiency.iter().flatten().count()));
    chosen.truncate(SERIES);
    let y_max = chosen
        .iter()
        .flat_map(|r| r.efficiency.iter().flatten())
        .fold(1.0f64, |a, b| a.max(*b))
        * 1.1;
    let mut chart = ChartBuilder::on(panel)
        .caption(app, ("sans-serif", 18))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0.0f64..y_max)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("platforms, most efficient first")
        .y_desc("efficiency / PP")
        .x_labels(n.min(10))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(e)?;
    for (i, row) in chosen.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // Sorted platforms that ran; those that did not end the cascade at 0.
        let ran = row.ranked();
        let cascade: Vec<(f64, f64)> = (1..=n)
            .map(|k| {
                let prefix: Vec<Option<f64>> = (0..k).map(|j| ran.get(j).map(|r| r.1)).collect();
                (k as f64, pp(&prefix))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(cascade, color.stroke_width(2)))
            .map_err(e)?
            .label(format!("{} {}", row.kernel, row.precision))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        for (k, (p, x)) in ran.iter().enumerate() {
            let at = (k as f64 + 1.0, *x);
            chart
                .draw_series([Circle::new(at, 4, color.filled())])
                .map_err(e)?;
            chart
                .draw_series([Text::new(
                    format!("P{}", p + 1),
                    at,
                    ("sans-serif", 11).into_font(),
                )])
                .map_err(e)?;
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(e)?;
    Ok(())
}
