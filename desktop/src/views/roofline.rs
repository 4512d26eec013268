//! The roofline view: every source's ceilings and one point per result on
//! log-log axes ([`crate::plot`] says why the plot works in log10 space).
//!
//! What the plot shows is laid out once per results generation into a
//! [`Scene`]; each frame only hands egui_plot borrowed slices of it.

use std::collections::{BTreeMap, HashMap};

use eframe::egui::{self, Color32};
use egui_plot::{
    Legend, LegendGrouping, Line, LineStyle, MarkerShape, Plot, PlotPoint, Points, Text,
};
use skylight_core::Precision;
use skylight_core::roofline::Roofline;

use crate::palette::{app_color, ceiling_color, precision_marker};
use crate::plot;
use crate::state::Snapshot;
use crate::table::Row;

/// One roof line of one source, with the label of its ridge if it has one.
struct CeilingItem {
    label: String,
    color: Color32,
    /// Solid for this session, dashed for loaded files.
    style: LineStyle,
    points: Vec<PlotPoint>,
    /// Where the roof bends and its label.
    ridge: Option<(PlotPoint, String)>,
}

/// Points of one (source, app, precision, code): one colour and shape,
/// and a name the hover text is keyed by.
struct Series {
    name: String,
    /// Its legend entry: one per (source, app, code), whatever the
    /// precision (the legend names the shapes once).
    group: String,
    color: Color32,
    shape: MarkerShape,
    /// Hollow for native baselines, so they stand apart from Skylight's
    /// points of the same app, precision and device.
    filled: bool,
    points: Vec<PlotPoint>,
}

/// Everything the plot draws for one results generation.
#[derive(Default)]
struct Scene {
    ceilings: Vec<CeilingItem>,
    series: Vec<Series>,
    /// Each point with an intensity at L1: a dotted line from there to
    /// the point, on its rate (the hierarchical view), in its app's colour.
    l1_links: Vec<(Color32, [PlotPoint; 2])>,
    /// Hover text of each series' points, by series name, in point order.
    hover: HashMap<String, Vec<String>>,
    /// The legend line naming the precisions' marker shapes.
    shapes: String,
    /// The AI range to show, in log space.
    x_range: (f64, f64),
}

impl Scene {
    fn build(now: &Snapshot<'_>) -> Scene {
        let mut roofs: Vec<(usize, &Roofline)> = Vec::new();
        if let Some(r) = now.roofline {
            roofs.push((0, r));
        }
        for (i, f) in now.loaded.iter().enumerate() {
            if let Some(r) = &f.roofline {
                roofs.push((i + 1, r));
            }
        }
        let only_roofs: Vec<&Roofline> = roofs.iter().map(|(_, r)| *r).collect();
        let (ai_min, ai_max) = plot::ai_range(now.rows.iter().filter_map(|r| r.ai), &only_roofs);
        let ceilings = roofs
            .iter()
            .flat_map(|&(source, roof)| ceilings(source, roof, ai_min, ai_max))
            .collect();
        let (series, hover) = series(now.rows);
        let shapes = shapes_entry(now.rows);
        let l1_links = best_variants(now.rows)
            .filter_map(|r| {
                let (ai, l1, g) = (r.ai?, r.issued_ai?, r.gflops?);
                let from = plot::log_point(l1, g)?;
                let to = plot::log_point(ai, g)?;
                ((l1 / ai - 1.0).abs() > 1e-3)
                    .then(|| (app_color(&r.app, r.source), [from.into(), to.into()]))
            })
            .collect();
        Scene {
            ceilings,
            series,
            l1_links,
            hover,
            shapes,
            x_range: (
                plot::to_log(ai_min).unwrap_or(-1.0),
                plot::to_log(ai_max).unwrap_or(2.0),
            ),
        }
    }
}

/// The fastest row of each source, app, kernel and precision: the points
/// whose L1 intensity is drawn (a line for every variant of a suite, 232
/// on the H200's, hid the points).
fn best_variants(rows: &[Row]) -> impl Iterator<Item = &Row> {
    let mut best: BTreeMap<(usize, &str, &str, Precision), &Row> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.gflops.is_some()) {
        let key = (r.source, r.app.as_str(), r.kernel.as_str(), r.precision);
        let slot = best.entry(key).or_insert(r);
        if r.gflops > slot.gflops {
            *slot = r;
        }
    }
    best.into_values()
}

/// The roofs of one source over `ai_min..ai_max`.
fn ceilings(source: usize, roof: &Roofline, ai_min: f64, ai_max: f64) -> Vec<CeilingItem> {
    let (style, suffix) = if source == 0 {
        (LineStyle::Solid, String::new())
    } else {
        (
            LineStyle::dashed_dense(),
            format!(" @ {}", roof.platform.name),
        )
    };
    plot::ceiling_lines(roof, ai_min, ai_max)
        .into_iter()
        .map(|c| {
            let ridge = c.precision.and_then(|p| {
                let pt = plot::ridge_point(roof, p)?;
                let text = format!("ridge {p}: AI {:.2}", plot::from_log(pt[0]));
                Some((PlotPoint::from(pt), text))
            });
            CeilingItem {
                label: format!("{}{suffix}", c.label),
                color: ceiling_color(c.precision),
                style,
                points: c.points.into_iter().map(PlotPoint::from).collect(),
                ridge,
            }
        })
        .collect()
}

/// Groups the plottable rows into one series per (source, app, precision,
/// native code): colour by app, shape by precision, hollow for native
/// baselines, and a name (with the native code) the hover text can look up.
fn series(rows: &[Row]) -> (Vec<Series>, HashMap<String, Vec<String>>) {
    let mut series: Vec<Series> = Vec::new();
    let mut hover: HashMap<String, Vec<String>> = HashMap::new();
    for r in rows {
        let (Some(ai), Some(g)) = (r.ai, r.gflops) else {
            continue;
        };
        let Some(pt) = plot::log_point(ai, g) else {
            continue;
        };
        let code = r.native.as_ref().map_or(String::new(), |c| format!(" {c}"));
        let at = if r.source == 0 {
            String::new()
        } else {
            format!(" @ {}", r.device)
        };
        let name = format!("{} {}{code}{at}", r.app, r.precision);
        let group = format!("{}{code}{at}", r.app);
        hover
            .entry(name.clone())
            .or_default()
            .push(hover_text(r, ai, g));
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(pt.into()),
            None => series.push(Series {
                name,
                group,
                color: app_color(&r.app, r.source),
                shape: precision_marker(r.precision),
                filled: r.native.is_none(),
                points: vec![pt.into()],
            }),
        }
    }
    (series, hover)
}

/// A legend entry named `name` in `color`: the legend takes an entry's text
/// from the first item of its id and egui_plot drops items without points,
/// so it is a zero-radius, unhoverable copy of the first of `at`.
fn legend_entry<'a>(name: &'a str, at: &'a [PlotPoint], color: Color32) -> Points<'a> {
    Points::new(name, &at[..at.len().min(1)])
        .id(name)
        .color(color)
        .radius(0.0)
        .allow_hover(false)
}

/// The legend's line for the marker shapes of the precisions `rows` hold.
fn shapes_entry(rows: &[Row]) -> String {
    let mut shapes: Vec<String> = Vec::new();
    for p in Precision::ALL {
        if rows.iter().any(|r| r.precision == p) {
            shapes.push(format!("{p} {}", shape_name(precision_marker(p))));
        }
    }
    shapes.join(", ")
}

/// A marker shape in words (the legend's font has no symbols for them).
fn shape_name(shape: MarkerShape) -> &'static str {
    match shape {
        MarkerShape::Circle => "circle",
        MarkerShape::Square => "square",
        MarkerShape::Diamond => "diamond",
        _ => "marker",
    }
}

/// What hovering a point says about its result.
fn hover_text(r: &Row, ai: f64, gflops: f64) -> String {
    let roof = match &r.roof {
        None => "no roof for this precision".to_string(),
        Some(x) => {
            let of = format!("{:.1}% of the {} roof", x.fraction * 100.0, x.level);
            x.note
                .as_ref()
                .map_or(of.clone(), |n| format!("{of} ({n})"))
        }
    };
    format!(
        "{} / {} [{}] {}\n{gflops:.2} GFLOP/s, {:.2} GB/s\nAI {ai:.3} FLOP/B, {roof}\n{} (timed by {}){}",
        r.app,
        r.kernel,
        r.variant,
        r.precision,
        r.gbps.unwrap_or(0.0),
        r.device,
        r.timing,
        r.native
            .as_ref()
            .map_or(String::new(), |c| format!("\nnative baseline: {c}"))
    )
}

/// The roofline plot and the scene it was last laid out from.
#[derive(Default)]
pub struct RooflineView {
    scene: Scene,
    /// The results generation `scene` shows.
    built: Option<u64>,
}

impl RooflineView {
    /// Draws the plot of `now`, laying it out again only if the results changed.
    pub fn show(&mut self, ui: &mut egui::Ui, now: &Snapshot<'_>) {
        if self.built != Some(now.generation) {
            self.scene = Scene::build(now);
            self.built = Some(now.generation);
        }
        if now.roofline.is_none() && !now.records.is_empty() {
            ui.label("run stream (and peak) to measure the ceilings");
        }
        let scene = &self.scene;
        // One legend entry per ceiling and per app (and device), the
        // shapes named once: ById merges the precisions' series of an app.
        let legend = Legend::default()
            .grouping(LegendGrouping::ById)
            .follow_insertion_order(true);
        Plot::new("roofline")
            .legend(legend)
            .x_axis_label("arithmetic intensity (FLOP/byte)")
            .y_axis_label("GFLOP/s")
            .x_grid_spacer(|input| plot::decade_marks(input.bounds))
            .y_grid_spacer(|input| plot::decade_marks(input.bounds))
            .x_axis_formatter(|mark, _| plot::tick_label(mark.value))
            .y_axis_formatter(|mark, _| plot::tick_label(mark.value))
            .include_x(scene.x_range.0)
            .include_x(scene.x_range.1)
            .label_formatter(|pos| match pos {
                egui_plot::HoverPosition::NearDataPoint {
                    plot_name, index, ..
                } => scene
                    .hover
                    .get(*plot_name)
                    .and_then(|v| v.get(*index))
                    .cloned()
                    .or_else(|| Some(plot_name.to_string())),
                egui_plot::HoverPosition::Elsewhere { position } => Some(format!(
                    "AI {:.3}, {:.3} GFLOP/s",
                    plot::from_log(position.x),
                    plot::from_log(position.y)
                )),
            })
            .show(ui, |pui| {
                for c in &scene.ceilings {
                    pui.line(
                        Line::new(c.label.as_str(), c.points.as_slice())
                            .color(c.color)
                            .style(c.style)
                            .width(1.5),
                    );
                    if let Some((at, text)) = &c.ridge {
                        // No name: ridge labels need no legend entry.
                        pui.text(
                            Text::new("", *at, text.as_str())
                                .anchor(egui::Align2::LEFT_BOTTOM)
                                .color(c.color),
                        );
                    }
                }
                for (color, ends) in &scene.l1_links {
                    // No name: the legend keeps one entry per series.
                    pui.line(
                        Line::new("", ends.as_slice())
                            .color(*color)
                            .style(LineStyle::dotted_dense()),
                    );
                }
                let mut named: Vec<&str> = Vec::new();
                for s in &scene.series {
                    if !named.contains(&s.group.as_str()) {
                        named.push(&s.group);
                        pui.points(legend_entry(&s.group, &s.points, s.color));
                    }
                }
                if let Some(first) = scene.series.first() {
                    pui.points(legend_entry(&scene.shapes, &first.points, Color32::GRAY));
                }
                for s in &scene.series {
                    pui.points(
                        Points::new(s.name.as_str(), s.points.as_slice())
                            .id(s.group.as_str())
                            .color(s.color)
                            .shape(s.shape)
                            .filled(s.filled)
                            .radius(5.0),
                    );
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(app: &str, source: usize, ai: f64, gflops: f64) -> Row {
        Row::example(app, source, Some(gflops), Some(ai))
    }

    #[test]
    fn series_split_by_source_and_keep_hover_text_in_point_order() {
        let rows = [
            row("stream", 0, 0.1, 10.0),
            row("stream", 1, 0.1, 20.0),
            row("stream", 0, 0.2, 30.0),
            row("peak", 0, 0.0, 5.0), // AI 0 cannot sit on a log axis
            Row {
                native: Some("x/y (CUDA)".into()),
                ..row("stream", 1, 0.1, 40.0)
            },
        ];
        let (series, hover) = series(&rows);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "stream f32",
                "stream f32 @ dev1",
                "stream f32 x/y (CUDA) @ dev1"
            ]
        );
        let groups: Vec<&str> = series.iter().map(|s| s.group.as_str()).collect();
        assert_eq!(
            groups,
            ["stream", "stream @ dev1", "stream x/y (CUDA) @ dev1"]
        );
        assert_eq!(shapes_entry(&rows), "f32 circle");
        assert!(series[1].filled && !series[2].filled);
        assert!(hover["stream f32 x/y (CUDA) @ dev1"][0].contains("native baseline"));
        assert_eq!(series[0].points.len(), 2);
        let texts = &hover["stream f32"];
        assert!(texts[0].contains("10.00 GFLOP/s") && texts[1].contains("30.00 GFLOP/s"));
        assert_eq!(series[1].color, app_color("stream", 1));
    }

    /// The L1 joins are drawn for each source, app, kernel and precision's
    /// fastest row only.
    #[test]
    fn best_variants_keep_the_fastest_row_of_each_kernel() {
        let rows = [
            row("stream", 0, 0.1, 10.0),
            row("stream", 0, 0.1, 30.0),
            row("stream", 1, 0.1, 20.0),
            Row {
                kernel: "other".into(),
                ..row("stream", 0, 0.1, 5.0)
            },
            Row {
                gflops: None,
                ..row("stream", 0, 0.1, 0.0)
            },
        ];
        let best: Vec<(usize, &str, Option<f64>)> = best_variants(&rows)
            .map(|r| (r.source, r.kernel.as_str(), r.gflops))
            .collect();
        assert_eq!(best.len(), 3, "{best:?}");
        assert!(best.contains(&(0, rows[1].kernel.as_str(), Some(30.0))));
        assert!(best.contains(&(1, rows[2].kernel.as_str(), Some(20.0))));
        assert!(best.contains(&(0, "other", Some(5.0))));
    }
}
