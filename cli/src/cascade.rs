//! The cascade plot of Sewall et al. (2020), as the report draws it: per
//! app, the platforms sorted from most to least efficient; markers give
//! the k-th platform's efficiency (shape per precision), the line the PP
//! over the first k, colour per kernel, keyed in a legend below each
//! panel. Where a line falls steeply, adding that platform costs the app
//! its portability. Which platform is k-th is in the table the command
//! prints, not on the chart, so no text lies over another.

use std::path::Path;

use anyhow::{Result, bail};
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use skylight_core::portability::{PpRow, PpTable};
use skylight_core::report::{Axis, cascade_series, color};

use crate::chart::{self, Area, Figure, HEADING, INK, ROW, SMALL, entry_text, marker, rgb, rule};

/// A panel's width, its plot's left edge, top edge and size, px.
const PANEL_W: f64 = 440.0;
const LEFT: f64 = 84.0;
const TOP: f64 = 36.0;
const PLOT_W: f64 = PANEL_W - LEFT - 16.0;
const PLOT_H: f64 = 240.0;

/// One app's panel: its rows drawn and where their legend entries go.
struct Panel<'a> {
    app: &'a str,
    rows: Vec<&'a PpRow>,
    /// (swatch's left edge, centre line) of each row's entry, in the panel.
    legend: Vec<(f64, f64)>,
}

/// The panels of one table, laid out.
struct Sheet<'a> {
    table: &'a PpTable,
    panels: Vec<Panel<'a>>,
    cols: usize,
    panel_h: f64,
}

/// Writes one panel per app to `path` (.svg or .png).
pub fn draw(table: &PpTable, path: &Path) -> Result<()> {
    chart::register_font()?;
    let mut panels = Vec::new();
    let mut bottom = 0.0f64;
    for (app, rows) in cascade_series(table) {
        let texts: Vec<String> = rows.iter().map(|r| entry(r)).collect();
        let first = TOP + PLOT_H + 56.0 + ROW / 2.0;
        let (places, last) = chart::flow(&texts, 16.0, PANEL_W - 10.0, first)?;
        bottom = bottom.max(last);
        panels.push(Panel {
            app,
            rows,
            legend: places,
        });
    }
    if panels.is_empty() {
        bail!("nothing to plot");
    }
    let sheet = Sheet {
        table,
        cols: panels.len().min(3),
        panels,
        panel_h: bottom + ROW,
    };
    chart::save(&sheet, path)
}

/// A row's legend text.
fn entry(row: &PpRow) -> String {
    format!("{} {}", row.kernel, row.precision)
}

impl Sheet<'_> {
    /// The panel of `app` at (`ox`, `oy`): its frame, each row's cascade
    /// and markers, and the legend.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        Panel { app, rows, legend }: &Panel,
        (ox, oy): (f64, f64),
    ) -> Result<()> {
        let n = self.table.platforms.len().max(1);
        let top = rows
            .iter()
            .flat_map(|r| r.efficiency.iter().flatten())
            .fold(1.0f64, |a, b| a.max(*b))
            * 1.05;
        let (x, y) = Axis::counts_against(n, top, (ox + LEFT, oy + TOP, PLOT_W, PLOT_H));
        let title = (ox + LEFT + PLOT_W / 2.0, oy + 16.0);
        chart::text(area, app, (HEADING, &INK), HPos::Center, title)?;
        chart::frame(
            area,
            (&x, &y),
            "platforms, most efficient first",
            "efficiency, PP",
        )?;
        for (i, row) in rows.iter().enumerate() {
            let colour = rgb(color(i));
            let line: Vec<(f64, f64)> = (1..)
                .zip(row.cascade(n))
                .map(|(k, pp)| (x.px(f64::from(k)), y.px(pp)))
                .collect();
            rule(area, &line, colour.stroke_width(2), None)?;
            for (k, (_, e)) in (1..).zip(row.ranked()) {
                marker(area, row.precision, (x.px(f64::from(k)), y.px(e)), colour)?;
            }
            let (cx, cy) = legend[i];
            let (cx, cy) = (ox + cx, oy + cy);
            rule(
                area,
                &[(cx, cy), (cx + 20.0, cy)],
                colour.stroke_width(2),
                None,
            )?;
            marker(area, row.precision, (cx + 10.0, cy), colour)?;
            entry_text(area, &entry(row), (cx, cy))?;
        }
        Ok(())
    }
}

impl Figure for Sheet<'_> {
    fn size(&self) -> (u32, u32) {
        let rows = self.panels.len().div_ceil(self.cols);
        let footer = 16.0 + ROW * self.table.platforms.len() as f64;
        (
            (PANEL_W * self.cols as f64) as u32,
            (self.panel_h * rows as f64 + footer) as u32,
        )
    }

    /// The panels, `cols` to a row, and the platforms under them, named
    /// as in the table's columns.
    fn render<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        area.fill(&WHITE).map_err(chart::failed)?;
        for (i, panel) in self.panels.iter().enumerate() {
            let at = (
                PANEL_W * (i % self.cols) as f64,
                self.panel_h * (i / self.cols) as f64,
            );
            self.panel(area, panel, at)?;
        }
        let below = self.panel_h * self.panels.len().div_ceil(self.cols) as f64;
        for (i, p) in self.table.platforms.iter().enumerate() {
            let at = (16.0, below + ROW * (i as f64 + 0.5));
            chart::text(
                area,
                &format!("P{} = {p}", i + 1),
                (SMALL, &INK),
                HPos::Left,
                at,
            )?;
        }
        area.present().map_err(chart::failed)
    }
}
