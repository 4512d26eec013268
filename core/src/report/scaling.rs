//! Scaling charts, one per mode (strong, weak): per curve the time of a
//! run against ranks (solid, with markers), its communication part
//! (dashed) and, where the files hold a single-GPU run without MPI, that
//! run at one rank (a hollow marker) and the ideal from it (dotted). The
//! time axis is logarithmic, so curves of milliseconds and of seconds read
//! on one chart. Colour per curve, marker shape per precision; the legend
//! names each curve by what tells it apart (the words all curves share are
//! said once) and keys the line styles once.

use super::svg::{self, Axis, Entry, esc};
use crate::Precision;
use crate::scale::Scaling;
use crate::scale::curves::{Curves, Point, short_names};

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

/// The lines of one curve, in ms against ranks: its runs, their
/// communication part (where above zero) and, with a base, the ideal from
/// the base (from one rank, where the base sits, to the curve's last).
pub struct Lines {
    /// (ranks, ms) of each run.
    pub run: Vec<(f64, f64)>,
    /// (ranks, ms) of each run's communication part.
    pub comm: Vec<(f64, f64)>,
    /// (ranks, ms) of the ideal, its first point the base itself.
    pub ideal: Vec<(f64, f64)>,
}

impl Lines {
    /// The lines of `points` (one curve) in `mode`.
    pub fn of(points: &[Point], mode: Scaling) -> Lines {
        let ms = |f: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
            points
                .iter()
                .filter_map(|p| f(p).filter(|s| *s > 0.0).map(|s| (p.ranks as f64, s * 1e3)))
                .collect()
        };
        let mut ideal = ms(&|p| p.ideal_s(mode));
        if let Some(base) = points.iter().find_map(|p| p.base.as_ref())
            && points.first().is_some_and(|p| p.ranks > 1)
        {
            ideal.insert(0, (1.0, base.run_s * 1e3));
        }
        Lines {
            run: ms(&|p| Some(p.run_s)),
            comm: ms(&|p| Some(p.comm_s)),
            ideal,
        }
    }

    /// Every value the lines hold, ms.
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.run
            .iter()
            .chain(&self.comm)
            .chain(&self.ideal)
            .map(|p| p.1)
    }
}

/// The log time axis that holds `lines`, with some room above and below,
/// and the ranks axis up to the most ranks, in the plot box `plot`.
pub fn axes(lines: &[Lines], plot: (f64, f64, f64, f64)) -> (Axis, Axis) {
    let (lo, hi) = lines
        .iter()
        .flat_map(Lines::values)
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = match lo <= hi {
        true => (lo / 1.6, hi * 1.6),
        false => (0.1, 10.0),
    };
    let ranks = lines
        .iter()
        .flat_map(|l| l.run.iter().chain(&l.ideal).map(|p| p.0 as usize))
        .max()
        .unwrap_or(1);
    let (x, linear) = Axis::counts_against(ranks, 1.0, plot);
    let y = Axis {
        lo,
        hi,
        log: true,
        ..linear
    };
    (x, y)
}

/// What each of a curve's lines shows, as a legend keys them once: the
/// runs (solid), their communication (dashed), the base and ideal (dotted).
pub const STYLE_TEXTS: [&str; 3] = [
    "time of a run over MPI ranks",
    "its pack + transfer + exchange",
    "one GPU without MPI (hollow) and the ideal from it",
];

/// The SVG attributes of [`STYLE_TEXTS`]' lines.
const STYLES: [&str; 3] = [
    r#" stroke-width="2""#,
    r#" stroke-dasharray="6 4""#,
    r#" stroke-dasharray="2 3""#,
];

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
    let lines: Vec<Lines> = curves.iter().map(|(_, v)| Lines::of(v, mode)).collect();
    let (x, y) = axes(&lines, (LEFT, TOP, PLOT_W, PLOT_H));
    let mut body = String::new();
    svg::frame(&mut body, &x, &y, "ranks", "ms per run (log)");
    let keys: Vec<String> = curves.iter().map(|(k, _)| k.to_string()).collect();
    let (names, common) = short_names(&keys);
    let mut entries = Vec::new();
    for (i, (((key, points), l), name)) in curves.iter().zip(&lines).zip(names).enumerate() {
        let colour = svg::color(i);
        // A line of one point draws nothing: its marker shows it.
        for (pts, style) in [&l.run, &l.comm, &l.ideal].into_iter().zip(STYLES) {
            if pts.len() >= 2 {
                body.push_str(&polyline(pts, &x, &y, colour, style));
            }
        }
        let precision = points.first().map_or(Precision::F32, |p| p.precision);
        if l.ideal.first().is_some_and(|p| p.0 == 1.0) {
            let (r, ms) = l.ideal[0];
            let tip = format!("{key}: one GPU without MPI, {ms:.3} ms a run");
            body.push_str(&svg::hollow(precision, x.px(r), y.px(ms), colour, &tip));
        }
        for (p, &(r, ms)) in points.iter().zip(&l.run) {
            let against = match p.speedup(mode) {
                Some(s) => format!("{s:.2}x one GPU without MPI"),
                None => format!(
                    "{:.0}% efficiency against the fewest ranks",
                    100.0 * p.efficiency
                ),
            };
            let tip = format!("{key}: {} ranks, {ms:.3} ms a run, {against}", p.ranks);
            body.push_str(&svg::marker(precision, x.px(r), y.px(ms), colour, &tip));
        }
        entries.push(Entry {
            swatch: svg::marker(precision, 0.0, 0.0, colour, &name),
            text: name,
        });
    }
    let based = lines.iter().any(|l| !l.ideal.is_empty());
    let styles = if based { 3 } else { 2 };
    for (style, text) in STYLES.into_iter().zip(STYLE_TEXTS).take(styles) {
        entries.push(Entry {
            swatch: format!(r##"<line x1="-10" y1="0" x2="10" y2="0" stroke="#444"{style}/>"##),
            text: text.into(),
        });
    }
    if !common.is_empty() {
        entries.push(Entry {
            swatch: String::new(),
            text: format!("all: {common}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::PhaseTimes;
    use crate::scale::curves::Base;

    fn point(ranks: usize, run_s: f64, base_s: Option<f64>) -> Point {
        Point {
            ranks,
            precision: Precision::F64,
            run_s,
            comm_s: run_s / 10.0,
            exchange_s: 0.0,
            efficiency: 1.0,
            base: base_s.map(|run_s| Base {
                label: "fused".into(),
                run_s,
            }),
            split: PhaseTimes::default(),
        }
    }

    #[test]
    fn a_curve_starts_its_ideal_at_its_one_gpu_base() {
        let strong = Lines::of(
            &[point(2, 0.6, Some(1.0)), point(4, 0.3, Some(1.0))],
            Scaling::Strong,
        );
        assert_eq!(strong.ideal, [(1.0, 1000.0), (2.0, 500.0), (4.0, 250.0)]);
        assert_eq!(strong.run, [(2.0, 600.0), (4.0, 300.0)]);
        let weak = Lines::of(
            &[point(1, 1.1, Some(1.0)), point(2, 1.2, Some(1.0))],
            Scaling::Weak,
        );
        assert_eq!(weak.ideal, [(1.0, 1000.0), (2.0, 1000.0)]);
        let alone = Lines::of(&[point(2, 0.6, None)], Scaling::Strong);
        assert!(alone.ideal.is_empty());
        // Milliseconds and seconds on one log axis, with room around both.
        let (_, y) = axes(&[strong, alone], (0.0, 0.0, 100.0, 100.0));
        assert!(y.log && y.lo < 30.0 && y.hi > 1000.0, "{y:?}");
    }

    #[test]
    fn the_chart_keys_precision_by_shape_and_the_base_only_where_one_is() {
        let mut curves = Curves::new();
        let key = |k: &str| (Scaling::Strong, k.to_string());
        curves.insert(
            key("milc/cg aosoa f64 L=64 shared halos"),
            vec![point(2, 1.0, Some(1.9))],
        );
        curves.insert(
            key("lbm/fused soa f64 L=512 shared halos"),
            vec![point(2, 0.03, None)],
        );
        let svg = &charts(&curves)[0];
        assert!(svg.contains("ms per run (log)"), "{svg}");
        // f64 is a square, the base hollow, the shared words said once.
        assert!(
            svg.contains("width=\"9\" height=\"9\"") && svg.contains("style=\"stroke:"),
            "{svg}"
        );
        assert!(svg.contains("one GPU without MPI (hollow)"), "{svg}");
        assert!(svg.contains("all: f64 shared halos"), "{svg}");
        assert!(svg.contains(">milc/cg aosoa L=64<"), "{svg}");
        curves.remove(&key("milc/cg aosoa f64 L=64 shared halos"));
        let svg = &charts(&curves)[0];
        assert!(
            !svg.contains("one GPU without MPI") && !svg.contains("style=\"stroke:"),
            "{svg}"
        );
    }
}
