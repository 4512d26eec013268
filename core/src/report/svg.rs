//! The few SVG pieces the report's charts share: escaping, axes mapped to
//! pixels, marker shapes, a palette and a legend that flows in rows. Text
//! widths are estimated (the page names no font file), with room to spare,
//! so that labels laid out apart stay apart in any sans-serif font.

use std::fmt::Write;

use crate::Precision;
use crate::roofline::axis;

/// Text safe inside XML and HTML, attribute values included.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A generous width of `text` at `size` px in a sans-serif font.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.62
}

/// Ten colours that stay apart for most colour vision (Tableau 10).
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// The `i`-th palette colour (repeating past ten).
pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// One axis: a value range mapped onto a pixel range, linear or log10.
#[derive(Clone, Copy, Debug)]
pub struct Axis {
    /// Lowest value shown.
    pub lo: f64,
    /// Highest value shown.
    pub hi: f64,
    /// Log10 scale (values must be > 0).
    pub log: bool,
    /// Pixel of `lo`.
    pub from: f64,
    /// Pixel of `hi`.
    pub to: f64,
    /// Counts (ranks, platforms): ticks at whole numbers only.
    pub whole: bool,
}

impl Axis {
    /// A chart of `count` things (ranks, platforms) along x against a
    /// linear value from 0 to `top` along y, in the plot box at
    /// (`left`, `top_px`) of `width` x `height` pixels: (x, y).
    pub fn counts_against(
        count: usize,
        top: f64,
        (left, top_px, width, height): (f64, f64, f64, f64),
    ) -> (Axis, Axis) {
        let x = Axis {
            lo: 0.5,
            hi: count as f64 + 0.5,
            log: false,
            from: left,
            to: left + width,
            whole: true,
        };
        let y = Axis {
            lo: 0.0,
            hi: top,
            log: false,
            from: top_px + height,
            to: top_px,
            whole: false,
        };
        (x, y)
    }

    /// The pixel of `v`.
    pub fn px(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.from + f * (self.to - self.from)
    }

    /// Tick values with their labels: decades on a log axis, about six
    /// round steps on a linear one.
    pub fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            // Under two decades, decades alone leave one tick or none.
            let steps: &[f64] = match self.hi / self.lo < 100.0 {
                true => &[1.0, 2.0, 5.0],
                false => &[1.0],
            };
            return axis::decades(self.lo, self.hi)
                .into_iter()
                .flat_map(|k| steps.iter().map(move |m| (k, *m)))
                .map(|(k, m)| match m == 1.0 {
                    true => (10f64.powi(k), axis::decade_label(k)),
                    false => (m * 10f64.powi(k), step_label(m, k)),
                })
                .filter(|(v, _)| *v >= self.lo * 0.999 && *v <= self.hi * 1.001)
                .collect();
        }
        let raw = (self.hi - self.lo) / 6.0;
        let mag = 10f64.powf(raw.log10().floor());
        let mut step = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(raw);
        if self.whole {
            step = step.max(1.0).round();
        }
        let mut v = (self.lo / step).ceil() * step;
        let mut out = Vec::new();
        while v <= self.hi + step * 1e-9 {
            out.push((v, format!("{}", (v * 1e6).round() / 1e6)));
            v += step;
        }
        out
    }
}

/// Tick label of `m` times ten to the `k` (`m` 2 or 5), as
/// [`axis::decade_label`] writes decades: `20`, `0.05`, `5e6`.
fn step_label(m: f64, k: i32) -> String {
    match k {
        -3..=4 => format!("{}", (m * 10f64.powi(k) * 1e3).round() / 1e3),
        _ => format!("{m}e{k}"),
    }
}

/// `text` broken at spaces into lines no wider than `width` px at `size`
/// px (a word longer than that keeps a line of its own).
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), size) <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A chart's frame: both axes, their grid and tick labels, the axis titles.
pub fn frame(out: &mut String, x: &Axis, y: &Axis, x_title: &str, y_title: &str) {
    let (l, r, t, b) = (x.from, x.to, y.to, y.from);
    for (v, label) in x.ticks() {
        let px = x.px(v);
        let _ = write!(
            out,
            r##"<line x1="{px:.1}" y1="{t:.1}" x2="{px:.1}" y2="{b:.1}" class="grid"/><text x="{px:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
            b + 15.0,
            esc(&label)
        );
    }
    for (v, label) in y.ticks() {
        let py = y.px(v);
        let _ = write!(
            out,
            r##"<line x1="{l:.1}" y1="{py:.1}" x2="{r:.1}" y2="{py:.1}" class="grid"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
            l - 6.0,
            py + 4.0,
            esc(&label)
        );
    }
    let _ = write!(
        out,
        r##"<rect x="{l:.1}" y="{t:.1}" width="{:.1}" height="{:.1}" class="frame"/><text x="{:.1}" y="{:.1}" text-anchor="middle" class="title">{}</text><text transform="translate({:.1},{:.1}) rotate(-90)" text-anchor="middle" class="title">{}</text>"##,
        r - l,
        b - t,
        (l + r) / 2.0,
        b + 34.0,
        esc(x_title),
        l - 48.0,
        (t + b) / 2.0,
        esc(y_title)
    );
}

/// The marker shape of a precision: f32 a circle, f64 a square, df64 a
/// triangle, so precision reads without colour.
pub fn marker(p: Precision, x: f64, y: f64, fill: &str, tip: &str) -> String {
    shape(p, x, y, &format!(r#"fill="{fill}" class="mark""#), tip)
}

/// [`marker`]'s shape drawn hollow: white inside, outlined in `colour`.
pub fn hollow(p: Precision, x: f64, y: f64, colour: &str, tip: &str) -> String {
    // An inline style, since the class's stroke would win over an attribute.
    let paint = format!(r##"fill="#fff" style="stroke:{colour};stroke-width:2""##);
    shape(p, x, y, &paint, tip)
}

/// The element of `p`'s shape at (`x`, `y`) with `paint`'s attributes and
/// a tooltip.
fn shape(p: Precision, x: f64, y: f64, paint: &str, tip: &str) -> String {
    let (tag, at) = match p {
        Precision::F32 => ("circle", format!(r#"cx="{x:.1}" cy="{y:.1}" r="5""#)),
        Precision::F64 => (
            "rect",
            format!(
                r#"x="{:.1}" y="{:.1}" width="9" height="9""#,
                x - 4.5,
                y - 4.5
            ),
        ),
        Precision::Df64 => (
            "polygon",
            format!(
                r#"points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}""#,
                x,
                y - 6.0,
                x - 5.5,
                y + 4.0,
                x + 5.5,
                y + 4.0
            ),
        ),
    };
    format!(r#"<{tag} {at} {paint}><title>{}</title></{tag}>"#, esc(tip))
}

/// One legend entry: its swatch (SVG drawn with its centre at 0,0) and text.
pub struct Entry {
    /// SVG of the swatch, about 20 px wide, centred on the origin.
    pub swatch: String,
    /// The label.
    pub text: String,
}

/// Lays `entries` out in rows from (`x`, `y`) no wider than `width`,
/// an entry too long for one row wrapped over rows of its own; returns the
/// SVG and the height used.
pub fn legend(entries: &[Entry], x: f64, y: f64, width: f64) -> (String, f64) {
    const ROW: f64 = 18.0;
    const SIZE: f64 = 12.0;
    let mut out = String::new();
    let (mut cx, mut cy) = (x, y + ROW / 2.0);
    // The rows below `cy` the last entry's wrapped lines took.
    let mut below = 0.0;
    for e in entries {
        let lines = wrap(&e.text, SIZE, width - 40.0);
        let widest = lines
            .iter()
            .map(|l| text_width(l, SIZE))
            .fold(0.0, f64::max);
        let w = 26.0 + widest + 14.0;
        if cx > x && (cx + w > x + width || lines.len() > 1 || below > 0.0) {
            cx = x;
            cy += ROW + below;
        }
        let _ = write!(
            out,
            r#"<g transform="translate({:.1},{cy:.1})">{}</g><text y="{:.1}" class="legend">"#,
            cx + 10.0,
            e.swatch,
            cy + 4.0,
        );
        for (i, line) in lines.iter().enumerate() {
            let dy = if i == 0 { 0.0 } else { ROW };
            let _ = write!(
                out,
                r#"<tspan x="{:.1}" dy="{dy:.0}">{}</tspan>"#,
                cx + 24.0,
                esc(line)
            );
        }
        out.push_str("</text>");
        below = ROW * lines.len().saturating_sub(1) as f64;
        cx += w;
    }
    let height = if entries.is_empty() {
        0.0
    } else {
        cy - y + ROW / 2.0 + below
    };
    (out, height)
}

/// Spreads label positions `ys` (pixels, any order) so that neighbours are
/// at least `gap` apart and all lie within `lo..=hi`, each moved as little
/// as it can; returns the new positions in the given order.
pub fn spread(ys: &[f64], gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by(|&a, &b| ys[a].total_cmp(&ys[b]));
    let mut placed: Vec<f64> = order.iter().map(|&i| ys[i].clamp(lo, hi)).collect();
    for i in 1..placed.len() {
        placed[i] = placed[i].max(placed[i - 1] + gap);
    }
    // Pushed past the bottom: slide the run back up.
    if let Some(&last) = placed.last()
        && last > hi
    {
        let shift = last - hi;
        for p in placed.iter_mut() {
            *p -= shift;
        }
        for i in (0..placed.len().saturating_sub(1)).rev() {
            placed[i] = placed[i].min(placed[i + 1] - gap);
        }
    }
    let mut out = vec![0.0; ys.len()];
    for (k, &i) in order.iter().enumerate() {
        out[i] = placed[k];
    }
    out
}

/// The style of a chart's own elements, inside each SVG so that a chart
/// saved as a file reads the same as in the page.
const SVG_CSS: &str = ".grid{stroke:#e6e6e6;stroke-width:1}.frame{fill:none;stroke:#888}\
.tick{font-size:11px;fill:#444}.title{font-size:13px;fill:#222}.legend{font-size:12px;fill:#222}\
.label{font-size:11px;fill:#222}.mark{stroke:#fff;stroke-width:1}text{font-family:sans-serif}";

/// A chart's SVG: `body` on a white `width` x `height` canvas, with its
/// style and an accessible name.
pub fn document(class: &str, width: f64, height: f64, name: &str, body: &str) -> String {
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="{class}" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{}"><style>{SVG_CSS}</style><rect width="100%" height="100%" fill="#fff"/>{body}</svg>"##,
        esc(name)
    )
}

/// The page's style sheet (the charts carry their own).
pub const PAGE_CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.fail{color:#b00020;font-weight:600}.note{color:#555;font-size:.9em}
.sw{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.3em;vertical-align:-.05em}
svg{display:block;margin:.6em 0;max-width:100%;height:auto}
.charts{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_log_axis_ticks_twos_and_fives_and_long_texts_wrap() {
        let y = Axis {
            lo: 15.0,
            hi: 120.0,
            log: true,
            from: 100.0,
            to: 0.0,
            whole: false,
        };
        let labels: Vec<String> = y.ticks().into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["20", "50", "100"]);
        let wide = Axis { hi: 1e5, ..y };
        let labels: Vec<String> = wide.ticks().into_iter().map(|(_, l)| l).collect();
        assert_eq!(labels, ["100", "1000", "10000", "1e5"]);
        assert_eq!(step_label(5.0, -2), "0.05");
        let lines = wrap("milc/cg aosoa-32/vvl1/wg512 f32 L=64 T=128", 12.0, 120.0);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|l| text_width(l, 12.0) <= 120.0 || !l.contains(' '))
        );
        assert_eq!(
            lines.join(" "),
            "milc/cg aosoa-32/vvl1/wg512 f32 L=64 T=128"
        );
    }

    #[test]
    fn spread_keeps_gaps_and_bounds() {
        let ys = spread(&[100.0, 101.0, 50.0, 200.0], 14.0, 0.0, 205.0);
        assert_eq!(ys[2], 50.0);
        assert!(ys[1] - ys[0] >= 14.0 - 1e-9, "{ys:?}");
        assert!(ys[3] - ys[1] >= 14.0 - 1e-9 && ys[3] <= 205.0, "{ys:?}");
        let crowded = spread(&[10.0, 10.0, 10.0], 14.0, 0.0, 20.0);
        assert!(crowded.iter().all(|y| *y <= 20.0));
    }

    #[test]
    fn axes_map_and_tick() {
        let a = Axis {
            lo: 0.1,
            hi: 100.0,
            log: true,
            from: 0.0,
            to: 300.0,
            whole: false,
        };
        assert!((a.px(1.0) - 100.0).abs() < 1e-9);
        assert_eq!(a.ticks().len(), 4);
        let l = Axis {
            lo: 0.0,
            hi: 1.0,
            log: false,
            from: 0.0,
            to: 10.0,
            whole: false,
        };
        assert_eq!(l.ticks().first().map(|t| t.1.as_str()), Some("0"));
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
