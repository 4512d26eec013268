//! The roofline chart of one device, drawn to be read: by default one
//! marker per app, kernel and precision at its best variant (colour per
//! app, shape per precision), every ceiling drawn and labelled in a column
//! beside the plot with the labels spread apart, and no text on the points
//! (their names are in the legend, the table below the chart and each
//! marker's tooltip).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::svg::{self, Axis, Entry, esc};
use crate::Precision;
use crate::roofline::{MemoryLevel, Point, Roofline, size_label};

/// Chart width, px.
const WIDTH: f64 = 820.0;
/// Plot area: left edge, top edge, width and height, px.
const LEFT: f64 = 72.0;
const TOP: f64 = 34.0;
const PLOT_W: f64 = 560.0;
const PLOT_H: f64 = 380.0;
/// The height of a row of slope labels above the plot, px.
const LABEL_ROW: f64 = 15.0;

/// A point as the chart and its table show it: the best variant of its
/// app, kernel and precision, with how many variants it was chosen from.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// The point (its variant is the best one).
    pub point: Point,
    /// Variants of the app, kernel and precision on the device.
    pub variants: usize,
}

/// The points to draw: each app, kernel and precision at its highest
/// GFLOP/s (every point instead when `all`), in app, kernel, precision
/// order.
pub fn marks(roof: &Roofline, all: bool) -> Vec<Mark> {
    if all {
        return roof
            .points
            .iter()
            .map(|p| Mark {
                point: p.clone(),
                variants: 1,
            })
            .collect();
    }
    let mut best: BTreeMap<(String, String, Precision), Mark> = BTreeMap::new();
    for p in &roof.points {
        let key = (p.app.clone(), p.kernel.clone(), p.precision);
        match best.get_mut(&key) {
            Some(m) => {
                m.variants += 1;
                if p.gflops > m.point.gflops {
                    m.point = p.clone();
                }
            }
            None => {
                best.insert(
                    key,
                    Mark {
                        point: p.clone(),
                        variants: 1,
                    },
                );
            }
        }
    }
    best.into_values().collect()
}

impl Mark {
    /// The kernel's intensity at L1 (every load and store counted), where
    /// its records carry issued bytes that differ from its device-memory
    /// bytes: the hollow marker joined to its point.
    pub fn l1_ai(&self) -> Option<f64> {
        let p = &self.point;
        p.issued_ai
            .filter(|&a| a > 0.0 && (a / p.ai - 1.0).abs() > 1e-3)
    }
}

/// What a ceiling line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeilingKind {
    /// A memory level's bandwidth slope.
    Slope(MemoryLevel),
    /// A precision's FMA roof.
    Roof(Precision),
}

/// Where a ceiling's label goes, outside the plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Above the plot, over where the line leaves through the top.
    Top,
    /// In the column right of the plot, level with where the line leaves.
    Right,
}

/// A ceiling as a chart draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct CeilingLine {
    /// A slope or a roof.
    pub kind: CeilingKind,
    /// The line's ends (FLOP/byte, GFLOP/s) within the chart's ranges; its
    /// label belongs to the second.
    pub ends: [(f64, f64); 2],
    /// The label: "DRAM: 4402.6 GB/s", "f32 FMA: 65243.3 GFLOP/s".
    pub label: String,
    /// What measured it (the report's tooltip).
    pub title: String,
    /// Where the label goes.
    pub edge: Edge,
}

/// An entry of the chart's legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// An app drawn: its colour.
    App(String),
    /// The hollow L1 markers joined to their points.
    L1,
    /// A precision drawn: its marker shape and its roof's dash.
    Precision(Precision),
}

impl Key {
    /// The entry's text.
    pub fn text(&self) -> String {
        match self {
            Key::App(a) => a.clone(),
            Key::L1 => "at L1 (every load counted)".into(),
            Key::Precision(p) => p.to_string(),
        }
    }
}

/// A roofline chart before any pixel: the ranges of its log axes, its
/// ceilings and its legend. The report's SVG and the CLI's plot both draw
/// from it, so they show the same chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Arithmetic intensity shown, FLOP/byte: lowest and highest.
    pub ai: (f64, f64),
    /// GFLOP/s shown: lowest and highest.
    pub gflops: (f64, f64),
    /// Each memory level's slope, then each precision's roof.
    pub ceilings: Vec<CeilingLine>,
    /// Apps drawn in `apps` order, the L1 entry, precisions drawn.
    pub legend: Vec<Key>,
}

impl Plan {
    /// The log axes of the plan's ranges in pixels: intensity from `x.0`
    /// to `x.1`, GFLOP/s from `y.0` (the lowest) to `y.1`.
    pub fn axes(&self, x: (f64, f64), y: (f64, f64)) -> (Axis, Axis) {
        let axis = |(lo, hi): (f64, f64), (from, to): (f64, f64)| Axis {
            lo,
            hi,
            log: true,
            from,
            to,
            whole: false,
        };
        (axis(self.ai, x), axis(self.gflops, y))
    }

    /// The rows the labels of slopes leaving through the top need so that
    /// labels `pitch` px apart fit a plot `span` px wide.
    pub fn top_rows(&self, span: f64, pitch: f64) -> usize {
        let count = self.ceilings.iter().filter(|c| c.edge == Edge::Top).count();
        ((pitch * count as f64) / span).ceil().max(1.0) as usize
    }

    /// The labels of slopes leaving through the top, each over where its
    /// line leaves on `x`: in left-to-right order they take turns over
    /// `rows` rows (row 0 nearest the plot), each row spread `pitch` apart
    /// and kept within the plot's width. Returns (label, centre px, row).
    pub fn top_labels(&self, x: &Axis, rows: usize, pitch: f64) -> Vec<(&str, f64, usize)> {
        let mut exits: Vec<(f64, &str)> = self
            .ceilings
            .iter()
            .filter(|c| c.edge == Edge::Top)
            .map(|c| (x.px(c.ends[1].0), c.label.as_str()))
            .collect();
        exits.sort_by(|a, b| a.0.total_cmp(&b.0));
        let rows = rows.max(1);
        let half = pitch / 2.0;
        let mut out = Vec::new();
        for row in 0..rows {
            let mine: Vec<&(f64, &str)> = exits.iter().skip(row).step_by(rows).collect();
            let xs: Vec<f64> = mine.iter().map(|(px, _)| *px).collect();
            let placed = svg::spread(&xs, pitch, x.from + half, x.to - half);
            out.extend(mine.iter().zip(placed).map(|((_, l), cx)| (*l, cx, row)));
        }
        out
    }
}

/// The plan of the chart of `roof` with `marks`; `apps` orders the legend.
pub fn plan(roof: &Roofline, marks: &[Mark], apps: &[String]) -> Plan {
    let (ai, gflops) = ranges(roof, marks);
    Plan {
        ai,
        gflops,
        ceilings: ceiling_lines(roof, ai, gflops),
        legend: keys(marks, apps),
    }
}

/// The ranges that hold every point, the slope and every ceiling's ridge.
fn ranges(roof: &Roofline, marks: &[Mark]) -> ((f64, f64), (f64, f64)) {
    let bw = roof.bandwidth_peak();
    let ridges = roof
        .compute
        .iter()
        .filter_map(|c| c.precision.and_then(|p| roof.ridge(p)));
    let ais: Vec<f64> = marks
        .iter()
        .flat_map(|m| [Some(m.point.ai), m.point.issued_ai])
        .flatten()
        .chain(ridges)
        .collect();
    let ai_lo = ais.iter().copied().fold(0.1, f64::min) / 3.0;
    let ai_hi = ais.iter().copied().fold(10.0, f64::max) * 3.0;
    let peak = roof.compute.iter().map(|c| c.value).fold(0.0, f64::max);
    let top = marks.iter().map(|m| m.point.gflops).fold(peak, f64::max);
    let y_hi = if peak > 0.0 {
        top * 2.5
    } else {
        (ai_hi * bw).max(top) * 1.5
    };
    let y_lo = marks
        .iter()
        .map(|m| m.point.gflops)
        .fold(ai_lo * bw, f64::min)
        / 2.0;
    let y_lo = y_lo.max(1e-9);
    ((ai_lo, ai_hi), (y_lo, y_hi.max(y_lo * 10.0).max(1e-8)))
}

/// Each measured level's slope and each precision's roof, clipped to the
/// ranges `ai` and `gflops`.
fn ceiling_lines(roof: &Roofline, ai: (f64, f64), gflops: (f64, f64)) -> Vec<CeilingLine> {
    let mut lines = Vec::new();
    for level in roof.levels() {
        let Some(bw) = roof.level_bandwidth(level) else {
            continue;
        };
        let label = format!("{level}: {bw:.1} GB/s");
        let exit = (gflops.1 / bw).min(ai.1);
        let start = ai.0.max(gflops.0 / bw);
        lines.push(CeilingLine {
            kind: CeilingKind::Slope(level),
            ends: [(start, start * bw), (exit, exit * bw)],
            title: level_title(roof, level, &label),
            label,
            edge: if exit < ai.1 { Edge::Top } else { Edge::Right },
        });
    }
    for c in &roof.compute {
        let (Some(p), Some(ridge)) = (c.precision, c.precision.and_then(|p| roof.ridge(p))) else {
            continue;
        };
        lines.push(CeilingLine {
            kind: CeilingKind::Roof(p),
            ends: [(ridge.max(ai.0), c.value), (ai.1, c.value)],
            label: format!("{p} FMA: {:.1} GFLOP/s", c.value),
            title: c.label.clone(),
            edge: Edge::Right,
        });
    }
    lines
}

/// The legend's entries: the apps of `marks` in `apps` order, the L1
/// markers where any is drawn, the precisions drawn.
fn keys(marks: &[Mark], apps: &[String]) -> Vec<Key> {
    let mut keys: Vec<Key> = apps
        .iter()
        .filter(|a| marks.iter().any(|m| &m.point.app == *a))
        .map(|a| Key::App(a.clone()))
        .collect();
    if marks.iter().any(|m| m.l1_ai().is_some()) {
        keys.push(Key::L1);
    }
    keys.extend(
        Precision::ALL
            .into_iter()
            .filter(|p| marks.iter().any(|m| m.point.precision == *p))
            .map(Key::Precision),
    );
    keys
}

/// The dash of a precision's compute ceiling (dash and gap, px; none
/// for a solid line), so ceilings that coincide still show as two lines
/// of different patterns.
pub fn roof_dash(p: Precision) -> Option<(u32, u32)> {
    match p {
        Precision::F32 => None,
        Precision::F64 => Some((8, 4)),
        Precision::Df64 => Some((2, 3)),
    }
}

/// [`roof_dash`] as an SVG attribute.
fn dash(p: Precision) -> String {
    roof_dash(p)
        .map(|(d, g)| format!(r#" stroke-dasharray="{d} {g}""#))
        .unwrap_or_default()
}

/// The SVG of `roof` with `marks`; `apps` orders the page's apps, whose
/// position picks each app's colour.
pub fn chart(roof: &Roofline, marks: &[Mark], apps: &[String]) -> String {
    let plan = plan(roof, marks, apps);
    let widest = plan
        .ceilings
        .iter()
        .filter(|c| c.edge == Edge::Top)
        .map(|c| svg::text_width(&c.label, 11.0))
        .fold(0.0, f64::max);
    let pitch = widest + 8.0;
    let rows = plan.top_rows(PLOT_W, pitch);
    // The plot moves down a label row for each row of slope labels past one.
    let top = TOP + LABEL_ROW * (rows - 1) as f64;
    let (x, y) = plan.axes((LEFT, LEFT + PLOT_W), (top + PLOT_H, top));
    let mut body = String::new();
    svg::frame(
        &mut body,
        &x,
        &y,
        "arithmetic intensity (FLOP/byte)",
        "GFLOP/s",
    );
    ceilings(&mut body, &plan, &x, &y, rows, pitch);
    for m in marks {
        let p = &m.point;
        let colour = app_colour(&p.app, apps);
        // The kernel's intensity at L1 (every load counted) on the same
        // rate, joined to its device-memory point: the hierarchical view.
        if let Some(l1) = m.l1_ai() {
            let _ = write!(
                body,
                r#"<line x1="{:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="{colour}" stroke-width="1" stroke-dasharray="3 2"/><circle cx="{:.1}" cy="{py:.1}" r="3.5" fill="white" stroke="{colour}" stroke-width="1.5"><title>{}</title></circle>"#,
                x.px(l1),
                x.px(p.ai),
                x.px(l1),
                esc(&format!(
                    "{}/{} {} at L1: {l1:.3} FLOP/byte (every load and store counted)",
                    p.app, p.kernel, p.precision
                )),
                py = y.px(p.gflops),
            );
        }
        let roof_pct = p
            .fraction_of_roof
            .map(|f| format!(", {:.0}% of roof", 100.0 * f))
            .unwrap_or_default();
        let tip = format!(
            "{}/{} {} {}: {:.3} GFLOP/s, {:.3} GB/s at {:.3} FLOP/byte{roof_pct}",
            p.app, p.kernel, p.precision, p.variant, p.gflops, p.gbps, p.ai
        );
        body.push_str(&svg::marker(
            p.precision,
            x.px(p.ai),
            y.px(p.gflops),
            colour,
            &tip,
        ));
    }
    let (legend, h) = svg::legend(
        &legend_entries(&plan.legend, apps),
        LEFT,
        top + PLOT_H + 48.0,
        WIDTH - LEFT - 10.0,
    );
    body.push_str(&legend);
    let height = top + PLOT_H + 56.0 + h;
    svg::document(
        "roofline",
        WIDTH,
        height,
        &format!("Roofline of {}", roof.platform.label()),
        &body,
    )
}

/// The colour of `app`: its place among the page's apps.
pub fn app_colour(app: &str, apps: &[String]) -> &'static str {
    svg::color(apps.iter().position(|a| a == app).unwrap_or(apps.len()))
}

/// `plan`'s ceilings, labelled: compute ceilings in the column right of
/// the plot (spread apart where they coincide, with a leader to their
/// line), the slopes where they leave the plot (above it, over `rows` rows
/// of labels `pitch` apart, or in the column when they leave through the
/// right).
fn ceilings(out: &mut String, plan: &Plan, x: &Axis, y: &Axis, rows: usize, pitch: f64) {
    // (pixel y of the line at the right edge, label) for the column.
    let mut column: Vec<(f64, &str)> = Vec::new();
    for c in &plan.ceilings {
        let [(x0, y0), (x1, y1)] = c.ends;
        let (colour, width, dash) = match c.kind {
            CeilingKind::Slope(MemoryLevel::Dram) => ("#333", 1.5, String::new()),
            CeilingKind::Slope(_) => ("#888", 1.0, String::new()),
            CeilingKind::Roof(p) => ("#333", 1.5, dash(p)),
        };
        let _ = write!(
            out,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="{width}"{dash} class="ceiling"><title>{}</title></line>"##,
            x.px(x0),
            y.px(y0),
            x.px(x1),
            y.px(y1),
            esc(&c.title)
        );
        if c.edge == Edge::Right {
            column.push((y.px(y1), &c.label));
        }
    }
    for (label, cx, row) in plan.top_labels(x, rows, pitch) {
        let _ = write!(
            out,
            r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle" class="label">{}</text>"#,
            y.to - 8.0 - LABEL_ROW * row as f64,
            esc(label)
        );
    }
    let ys: Vec<f64> = column.iter().map(|(py, _)| *py).collect();
    let placed = svg::spread(&ys, 15.0, y.to + 4.0, y.from);
    for ((line_y, label), label_y) in column.iter().zip(placed) {
        let _ = write!(
            out,
            r##"<polyline points="{:.1},{line_y:.1} {:.1},{line_y:.1} {:.1},{label_y:.1}" fill="none" stroke="#999"/><text x="{:.1}" y="{:.1}" class="label">{}</text>"##,
            x.to,
            x.to + 6.0,
            x.to + 12.0,
            x.to + 15.0,
            label_y + 4.0,
            esc(label)
        );
    }
}

/// A slope's tooltip: its label, what measured it and the working sets
/// of its plateau.
fn level_title(roof: &Roofline, level: MemoryLevel, label: &str) -> String {
    let best = roof
        .bandwidth
        .iter()
        .filter(|c| c.memory_level() == level)
        .max_by(|a, b| a.value.total_cmp(&b.value));
    let Some(c) = best else {
        return label.to_string();
    };
    let range = c
        .working_set
        .map(|[lo, hi]| format!(", working sets {} to {}", size_label(lo), size_label(hi)))
        .unwrap_or_default();
    format!("{label} ({}{range})", c.label)
}

/// The legend's `keys` drawn: an app as a bar of its colour, the L1
/// markers as one joined to its point, a precision as its marker on the
/// dash of its compute ceiling.
fn legend_entries(keys: &[Key], apps: &[String]) -> Vec<Entry> {
    keys.iter()
        .map(|k| match k {
            Key::App(a) => Entry {
                swatch: format!(
                    r#"<rect x="-9" y="-3" width="18" height="6" rx="1" fill="{}"/>"#,
                    app_colour(a, apps)
                ),
                text: k.text(),
            },
            Key::L1 => Entry {
                swatch: r##"<line x1="-10" y1="0" x2="6" y2="0" stroke="#666" stroke-dasharray="3 2"/><circle cx="-10" cy="0" r="3.5" fill="white" stroke="#666" stroke-width="1.5"/>"##.to_string(),
                text: k.text(),
            },
            Key::Precision(p) => Entry {
                swatch: format!(
                    r##"<line x1="-10" y1="0" x2="10" y2="0" stroke="#333" stroke-width="1.5"{}/>{}"##,
                    dash(*p),
                    svg::marker(*p, 0.0, 0.0, "#666", p.name())
                ),
                text: k.text(),
            },
        })
        .collect()
}
