//! Scaling charts, one per mode (strong, weak): per curve the time of a
//! run against ranks (solid, with markers), its communication part
//! (dashed) and, where the files hold a single-GPU run without MPI, the
//! ideal from it (dotted). Colour per curve; the line styles are keyed
//! once in the legend.

use super::svg::{self, Axis, Entry, esc};
use crate::Precision;
use crate::scale::Scaling;
use crate::scale::curves::{Curves, Point};

const WIDTH: f64 = 540.0;
const LEFT: f64 = 70.0;
const TOP: f64 = 30.0;
const PLOT_W: f64 = 440.0;
const PLOT_H: f64 = 250.0;

/// One SVG per scaling mode that has curves.
pub fn charts(curves: &Curves) -> Vec<String> {
    [Scaling::Strong, Scaling::Weak]
        .into_iter()
        .filter_map(|mode| {
            let mine: Vec<(&String, &Vec<Point>)> = curves
                .iter()
                .filter(|((m, _), _)| *m == mode)
                .map(|((_, k), v)| (k, v))
                .collect();
            (!mine.is_empty()).then(|| chart(mode, &mine))
        })
        .collect()
}

/// Its time, or the ideal from one GPU (strong: the base over the ranks;
/// weak: the base), in ms.
fn ideal(p: &Point, mode: Scaling) -> Option<f64> {
    let base = p.base.as_ref()?.run_s * 1e3;
    Some(match mode {
        Scaling::Strong => base / p.ranks as f64,
        Scaling::Weak => base,
    })
}

fn polyline(pts: &[(f64, f64)], x: &Axis, y: &Axis, colour: &str, style: &str) -> String {
    let pts: Vec<String> = pts
        .iter()
        .map(|(r, ms)| format!("{:.1},{:.1}", x.px(*r), y.px(*ms)))
        .collect();
    format!(
        r#"<polyline points="{}" fill="none" stroke="{colour}"{style}/>"#,
        pts.join(" ")
    )
}

fn chart(mode: Scaling, curves: &[(&String, &Vec<Point>)]) -> String {
    let max_ranks = curves
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.ranks))
        .max()
        .unwrap_or(1);
    let max_ms = curves
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.run_s * 1e3))
        .fold(1e-3, f64::max);
    let (x, y) = Axis::counts_against(max_ranks, max_ms * 1.1, (LEFT, TOP, PLOT_W, PLOT_H));
    let mut body = String::new();
    svg::frame(&mut body, &x, &y, "ranks", "ms per run");
    let mut entries = Vec::new();
    for (i, (key, points)) in curves.iter().enumerate() {
        let colour = svg::color(i);
        let at = |f: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
            points
                .iter()
                .filter_map(|p| f(p).map(|v| (p.ranks as f64, v)))
                .collect()
        };
        let run = at(&|p| Some(p.run_s * 1e3));
        body.push_str(&polyline(&run, &x, &y, colour, r#" stroke-width="2""#));
        let comm = at(&|p| Some(p.comm_s * 1e3));
        body.push_str(&polyline(
            &comm,
            &x,
            &y,
            colour,
            r#" stroke-dasharray="6 4""#,
        ));
        let ideal_line = at(&|p| ideal(p, mode));
        if !ideal_line.is_empty() {
            body.push_str(&polyline(
                &ideal_line,
                &x,
                &y,
                colour,
                r#" stroke-dasharray="2 3""#,
            ));
        }
        for p in points.iter() {
            let tip = format!(
                "{key}: {} ranks, {:.3} ms a run, {:.0}% efficiency against the fewest ranks",
                p.ranks,
                p.run_s * 1e3,
                100.0 * p.efficiency
            );
            body.push_str(&svg::marker(
                Precision::F32,
                x.px(p.ranks as f64),
                y.px(p.run_s * 1e3),
                colour,
                &tip,
            ));
        }
        entries.push(Entry {
            swatch: format!(
                r#"<rect x="-6" y="-6" width="12" height="12" rx="2" fill="{colour}"/>"#
            ),
            text: key.to_string(),
        });
    }
    for (style, text) in [
        (r#" stroke-width="2""#, "time of a run"),
        (r#" stroke-dasharray="6 4""#, "pack + transfer + exchange"),
        (
            r#" stroke-dasharray="2 3""#,
            "ideal from one GPU without MPI",
        ),
    ] {
        entries.push(Entry {
            swatch: format!(r##"<line x1="-10" y1="0" x2="10" y2="0" stroke="#444"{style}/>"##),
            text: text.into(),
        });
    }
    let (legend, h) = svg::legend(&entries, 10.0, TOP + PLOT_H + 44.0, WIDTH - 20.0);
    body.push_str(&legend);
    let height = TOP + PLOT_H + 52.0 + h;
    let name = format!("{} scaling", mode.name());
    let title = format!(
        r#"<text x="{:.1}" y="18" text-anchor="middle" class="title">{}</text>"#,
        LEFT + PLOT_W / 2.0,
        esc(&name)
    );
    svg::document("scaling", WIDTH, height, &name, &(title + &body))
}
