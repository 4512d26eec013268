//! The cascade plot of Sewall et al. (2020), one small chart per app: each
//! kernel's platforms sorted from most to least efficient; a marker gives
//! the k-th platform's efficiency and the line the PP over the first k.
//! Where the line falls steeply, adding that platform costs the app its
//! portability. Platforms are named in each marker's tooltip and in the
//! PP table beside the charts, not on the chart.

use std::collections::BTreeMap;

use super::svg::{self, Axis, Entry, esc};
use crate::portability::{BEST, PpRow, PpTable};

/// Rows drawn per app: those that ran on the most platforms.
const SERIES: usize = 6;
const WIDTH: f64 = 380.0;
const LEFT: f64 = 60.0;
const TOP: f64 = 30.0;
const PLOT_W: f64 = 300.0;
const PLOT_H: f64 = 190.0;

/// The rows each app's cascade chart draws, app by app in name order:
/// its best-per-platform rows, those that ran on the most platforms
/// first, at most six.
pub fn series(table: &PpTable) -> Vec<(&str, Vec<&PpRow>)> {
    let mut apps: BTreeMap<&str, Vec<&PpRow>> = BTreeMap::new();
    for r in table.rows.iter().filter(|r| r.variant == BEST) {
        apps.entry(r.app.as_str()).or_default().push(r);
    }
    apps.into_iter()
        .map(|(app, mut rows)| {
            rows.sort_by_key(|r| std::cmp::Reverse(r.efficiency.iter().flatten().count()));
            rows.truncate(SERIES);
            (app, rows)
        })
        .collect()
}

/// (app, SVG) for each app with a best-per-platform row in `table`.
pub fn charts(table: &PpTable) -> Vec<(String, String)> {
    series(table)
        .into_iter()
        .map(|(app, rows)| (app.to_string(), panel(table, app, &rows)))
        .collect()
}

/// Every app's chart on one sheet, `cols` to a row (for a page that links
/// one picture per study).
pub fn sheet(table: &PpTable, cols: usize) -> String {
    let charts = charts(table);
    let cols = cols.max(1);
    let (mut body, mut y, mut row_h) = (String::new(), 0.0f64, 0.0f64);
    for (i, (_, chart)) in charts.iter().enumerate() {
        if i > 0 && i % cols == 0 {
            y += row_h;
            row_h = 0.0;
        }
        let x = WIDTH * (i % cols) as f64;
        row_h = row_h.max(height_of(chart));
        body.push_str(&chart.replacen("<svg ", &format!(r#"<svg x="{x:.0}" y="{y:.0}" "#), 1));
    }
    let width = WIDTH * cols.min(charts.len()).max(1) as f64;
    svg::document("cascade-sheet", width, y + row_h, "Cascade plots", &body)
}

/// The height a chart of [`panel`] declares.
fn height_of(chart: &str) -> f64 {
    chart
        .split("height=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .and_then(|h| h.parse().ok())
        .unwrap_or(0.0)
}

fn panel(table: &PpTable, app: &str, rows: &[&PpRow]) -> String {
    let n = table.platforms.len().max(1);
    let top = rows
        .iter()
        .flat_map(|r| r.efficiency.iter().flatten())
        .fold(1.0f64, |a, b| a.max(*b))
        * 1.05;
    let (x, y) = Axis::counts_against(n, top, (LEFT, TOP, PLOT_W, PLOT_H));
    let mut body = String::new();
    svg::frame(
        &mut body,
        &x,
        &y,
        "platforms, most efficient first",
        "efficiency, PP",
    );
    let mut entries = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let colour = svg::color(i);
        let ran = row.ranked();
        let line: Vec<String> = (1..)
            .zip(row.cascade(n))
            .map(|(k, pp)| format!("{:.1},{:.1}", x.px(f64::from(k)), y.px(pp)))
            .collect();
        body.push_str(&format!(
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            line.join(" ")
        ));
        for (k, (p, e)) in ran.iter().enumerate() {
            let tip = format!(
                "{} {} on {}: {:.1}%",
                row.kernel,
                row.precision,
                table.platforms[*p],
                100.0 * e
            );
            body.push_str(&svg::marker(
                row.precision,
                x.px(k as f64 + 1.0),
                y.px(*e),
                colour,
                &tip,
            ));
        }
        entries.push(Entry {
            swatch: format!(
                r#"<line x1="-9" y1="0" x2="9" y2="0" stroke="{colour}" stroke-width="2"/>{}"#,
                svg::marker(row.precision, 0.0, 0.0, colour, "")
            ),
            text: format!("{} {}", row.kernel, row.precision),
        });
    }
    let (legend, h) = svg::legend(&entries, 10.0, TOP + PLOT_H + 44.0, WIDTH - 20.0);
    body.push_str(&legend);
    let height = TOP + PLOT_H + 52.0 + h;
    let title = format!(
        r#"<text x="{:.1}" y="18" text-anchor="middle" class="title">{}</text>"#,
        LEFT + PLOT_W / 2.0,
        esc(app)
    );
    svg::document(
        "cascade",
        WIDTH,
        height,
        &format!("Cascade plot of {app}"),
        &(title + &body),
    )
}
