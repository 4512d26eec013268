//! The roofline chart as SVG or PNG: the report's chart, drawn from the
//! same [`plan`]. One marker per app, kernel and precision at its best
//! variant (colour per app, shape per precision), hollow markers at L1
//! joined to their points, every ceiling labelled outside the plot with
//! the labels spread apart, a legend below, and no text on the points
//! (their names are in the legend and the table the command prints).

use std::path::Path;

use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::HPos;
use skylight_core::report::{
    Axis, CeilingKind, Edge, Key, Mark, Plan, app_colour, marks, plan, roof_dash, spread,
};
use skylight_core::roofline::{MemoryLevel, Roofline};

use crate::chart::{
    self, Area, CAPTION, Figure, GREY, INK, ROW, SMALL, entry_text, hollow, marker, rgb, rule,
    text, text_width,
};

/// Image width, px.
const WIDTH: f64 = 1100.0;
/// The plot's left edge and height, px.
const LEFT: f64 = 84.0;
const PLOT_H: f64 = 540.0;

/// A ceiling's label at its place, with the leader that joins it to its
/// line (pixels; empty for none).
struct Label {
    text: String,
    at: (f64, f64),
    anchor: HPos,
    leader: Vec<(f64, f64)>,
}

/// The chart of one roofline, laid out: the axes in pixels, the
/// ceilings' labels and the legend's entries at their places.
struct Chart<'a> {
    caption: String,
    marks: &'a [Mark],
    apps: &'a [String],
    plan: &'a Plan,
    x: Axis,
    y: Axis,
    labels: Vec<Label>,
    /// (swatch's left edge, centre line) of each of the plan's legend keys.
    legend: Vec<(f64, f64)>,
    height: f64,
}

/// Writes the chart of `roof` to `path` (.svg or .png); `apps` (every
/// app of the records, in name order) picks the colours, as in the report.
pub fn draw(roof: &Roofline, apps: &[String], path: &Path) -> Result<()> {
    chart::register_font()?;
    let marks = marks(roof, false);
    let plan = plan(roof, &marks, apps);
    let caption = format!("Roofline of {}", roof.platform.label());
    chart::save(&Chart::new(caption, &marks, apps, &plan)?, path)
}

/// The widest of `labels` at the small size, px.
fn widest<'a>(labels: impl IntoIterator<Item = &'a str>) -> Result<f64> {
    labels
        .into_iter()
        .try_fold(0.0, |w, l| Ok(text_width(l, SMALL)?.max(w)))
}

impl<'a> Chart<'a> {
    /// The plot as wide as the column of ceiling labels right of it allows
    /// and as low as the rows of slope labels above it need; the legend
    /// flowing in rows below the axis title.
    fn new(caption: String, marks: &'a [Mark], apps: &'a [String], plan: &'a Plan) -> Result<Self> {
        let on = |edge: Edge| {
            plan.ceilings
                .iter()
                .filter(move |c| c.edge == edge)
                .map(|c| c.label.as_str())
        };
        let column = widest(on(Edge::Right))?;
        let right = WIDTH - column - 30.0;
        // Slope labels take turns over as many rows as keep them apart.
        let pitch = widest(on(Edge::Top))? + 14.0;
        let rows = plan.top_rows(right - LEFT, pitch);
        let top = 44.0 + ROW * rows as f64;
        let (x, y) = plan.axes((LEFT, right), (top + PLOT_H, top));
        let mut labels = top_labels(plan, &x, &y, rows, pitch);
        labels.extend(column_labels(plan, &x, &y));
        let texts: Vec<String> = plan.legend.iter().map(Key::text).collect();
        let first = top + PLOT_H + 56.0 + ROW / 2.0;
        let (legend, last) = chart::flow(&texts, LEFT, WIDTH - 10.0, first)?;
        Ok(Chart {
            caption,
            marks,
            apps,
            plan,
            x,
            y,
            labels,
            legend,
            height: last + ROW,
        })
    }

    /// Each ceiling's line, and its label at its place with its leader.
    fn ceilings<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let dark = RGBColor(0x33, 0x33, 0x33).stroke_width(2);
        for c in &self.plan.ceilings {
            let [(x0, y0), (x1, y1)] = c.ends;
            let (style, dash) = match c.kind {
                CeilingKind::Slope(MemoryLevel::Dram) => (dark, None),
                CeilingKind::Slope(_) => (RGBColor(0x88, 0x88, 0x88).stroke_width(1), None),
                CeilingKind::Roof(p) => (dark, roof_dash(p)),
            };
            let ends = [(x.px(x0), y.px(y0)), (x.px(x1), y.px(y1))];
            rule(area, &ends, style, dash)?;
        }
        let leader = RGBColor(0x99, 0x99, 0x99).stroke_width(1);
        for l in &self.labels {
            if !l.leader.is_empty() {
                rule(area, &l.leader, leader, None)?;
            }
            text(area, &l.text, (SMALL, &INK), l.anchor, l.at)?;
        }
        Ok(())
    }

    /// Each mark: its point at L1 joined to it where it has one, then its
    /// marker in its app's colour.
    fn points<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        for m in self.marks {
            let p = &m.point;
            let colour = rgb(app_colour(&p.app, self.apps));
            let py = y.px(p.gflops);
            if let Some(l1) = m.l1_ai() {
                let join = [(x.px(l1), py), (x.px(p.ai), py)];
                rule(area, &join, colour.stroke_width(1), Some((3, 2)))?;
                hollow(area, (x.px(l1), py), colour)?;
            }
            marker(area, p.precision, (x.px(p.ai), py), colour)?;
        }
        Ok(())
    }

    /// The legend: an app as a bar of its colour, the L1 markers as one
    /// joined to its point, a precision as its marker on its roof's dash.
    fn legend<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        for (key, &(cx, cy)) in self.plan.legend.iter().zip(&self.legend) {
            match key {
                Key::App(a) => {
                    let bar = [
                        chart::at(cx + 1.0, cy - 3.0),
                        chart::at(cx + 19.0, cy + 3.0),
                    ];
                    let fill = rgb(app_colour(a, self.apps)).filled();
                    area.draw(&Rectangle::new(bar, fill))
                        .map_err(chart::failed)?;
                }
                Key::L1 => {
                    rule(
                        area,
                        &[(cx, cy), (cx + 16.0, cy)],
                        GREY.into(),
                        Some((3, 2)),
                    )?;
                    hollow(area, (cx, cy), GREY)?;
                }
                Key::Precision(p) => {
                    let line = [(cx - 2.0, cy), (cx + 22.0, cy)];
                    rule(area, &line, INK.stroke_width(2), roof_dash(*p))?;
                    marker(area, *p, (cx + 10.0, cy), GREY)?;
                }
            }
            entry_text(area, &key.text(), (cx, cy))?;
        }
        Ok(())
    }
}

impl Figure for Chart<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH as u32, self.height as u32)
    }

    fn render<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()> {
        area.fill(&WHITE).map_err(chart::failed)?;
        text(
            area,
            &self.caption,
            (CAPTION, &INK),
            HPos::Center,
            (WIDTH / 2.0, 22.0),
        )?;
        let titles = ("arithmetic intensity (FLOP/byte)", "GFLOP/s");
        chart::frame(area, (&self.x, &self.y), titles.0, titles.1)?;
        self.ceilings(area)?;
        self.points(area)?;
        self.legend(area)?;
        area.present().map_err(chart::failed)
    }
}

/// The labels of slopes that leave through the top, above the plot over
/// where they leave (as the report has them, without leaders), placed by
/// [`Plan::top_labels`] over `rows` rows, the first nearest the plot.
fn top_labels(plan: &Plan, x: &Axis, y: &Axis, rows: usize, pitch: f64) -> Vec<Label> {
    plan.top_labels(x, rows, pitch)
        .into_iter()
        .map(|(text, cx, row)| Label {
            text: text.to_string(),
            at: (cx, y.to - 12.0 - ROW * row as f64),
            anchor: HPos::Center,
            leader: Vec::new(),
        })
        .collect()
}

/// The labels of ceilings that leave through the right, in the column
/// right of the plot, spread apart, each with a leader to its line.
fn column_labels(plan: &Plan, x: &Axis, y: &Axis) -> Vec<Label> {
    let right: Vec<(f64, &str)> = plan
        .ceilings
        .iter()
        .filter(|c| c.edge == Edge::Right)
        .map(|c| (y.px(c.ends[1].1), c.label.as_str()))
        .collect();
    let ys: Vec<f64> = right.iter().map(|(py, _)| *py).collect();
    let placed = spread(&ys, SMALL + 4.0, y.to + 6.0, y.from);
    right
        .into_iter()
        .zip(placed)
        .map(|((line_y, text), label_y)| Label {
            text: text.to_string(),
            at: (x.to + 16.0, label_y),
            anchor: HPos::Left,
            leader: vec![(x.to, line_y), (x.to + 6.0, line_y), (x.to + 12.0, label_y)],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use skylight_core::Precision;
    use skylight_core::report::CeilingLine;

    use super::*;

    fn ceiling(kind: CeilingKind, end: (f64, f64), label: &str, edge: Edge) -> CeilingLine {
        CeilingLine {
            kind,
            ends: [(0.01, 0.01), end],
            label: label.into(),
            title: String::new(),
            edge,
        }
    }

    /// Six slopes leaving the top together and three roofs of one height:
    /// every label is outside the plot, inside the image, on no other.
    #[test]
    fn crowded_ceiling_labels_stay_apart() {
        chart::register_font().expect("font");
        let mut ceilings: Vec<CeilingLine> = (0..6)
            .map(|i| {
                let label = format!("shared: {}.1 GB/s", 30556 + i);
                let kind = CeilingKind::Slope(MemoryLevel::L1);
                ceiling(kind, (1.0 + 0.01 * i as f64, 1e5), &label, Edge::Top)
            })
            .collect();
        for p in Precision::ALL {
            let label = format!("{p} FMA: 65243.3 GFLOP/s");
            ceilings.push(ceiling(
                CeilingKind::Roof(p),
                (1e3, 6e4),
                &label,
                Edge::Right,
            ));
        }
        let plan = Plan {
            ai: (0.01, 1e3),
            gflops: (1.0, 1e5),
            ceilings,
            legend: Vec::new(),
        };
        let chart = Chart::new(String::new(), &[], &[], &plan).expect("laid out");
        let boxes: Vec<[f64; 4]> = chart
            .labels
            .iter()
            .map(|l| {
                let w = text_width(&l.text, SMALL).expect("measured");
                let left = match l.anchor {
                    HPos::Center => l.at.0 - w / 2.0,
                    _ => l.at.0,
                };
                [left, left + w, l.at.1 - SMALL / 2.0, l.at.1 + SMALL / 2.0]
            })
            .collect();
        assert_eq!(boxes.len(), 9);
        // Too many for one row above the plot: they take turns over two.
        let rows: std::collections::BTreeSet<i64> = chart
            .labels
            .iter()
            .filter(|l| matches!(l.anchor, HPos::Center))
            .map(|l| l.at.1 as i64)
            .collect();
        assert_eq!(rows.len(), 2, "{rows:?}");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a[0] >= 0.0 && a[1] <= WIDTH && a[2] >= 34.0, "{a:?}");
            let inside = a[1] > chart.x.from && a[0] < chart.x.to && a[3] > chart.y.to;
            assert!(!inside, "label over the plot: {a:?}");
            for b in &boxes[i + 1..] {
                let apart = a[1] <= b[0] || b[1] <= a[0] || a[3] <= b[2] || b[3] <= a[2];
                assert!(apart, "{a:?} on {b:?}");
            }
        }
    }
}
