//! What the CLI's charts share (plotters, to SVG or PNG alike): the
//! embedded font and text measured in it, pixel helpers, the report's
//! marker shapes, a frame of axes, legend entries that flow in rows, and
//! writing a figure by its file's extension.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use skylight_core::Precision;
use skylight_core::report::Axis;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Font sizes (plotters' sizes: about 1.24 times the em).
pub const SMALL: f64 = 14.0;
/// Axis titles and panel titles.
pub const TITLE: f64 = 16.0;
/// A panel's title.
pub const HEADING: f64 = 19.0;
/// A figure's caption.
pub const CAPTION: f64 = 22.0;
/// The height of a row of text (legend, labels), px.
pub const ROW: f64 = 22.0;
/// Text and dark lines.
pub const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
/// Legend swatches that stand for no one colour.
pub const GREY: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// A drawing area in pixels.
pub type Area<DB> = DrawingArea<DB, Shift>;

/// A chart that knows its size and draws itself on any backend.
pub trait Figure {
    /// Width and height, px.
    fn size(&self) -> (u32, u32);
    /// Draws the whole figure on `area` (of [`size`](Self::size)).
    fn render<DB: DrawingBackend>(&self, area: &Area<DB>) -> Result<()>;
}

/// Writes `fig` to `path`: SVG for `.svg`, PNG for `.png`.
pub fn save(fig: &impl Figure, path: &Path) -> Result<()> {
    let size = fig.size();
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => fig.render(&SVGBackend::new(path, size).into_drawing_area()),
        Some("png") => fig.render(&BitMapBackend::new(path, size).into_drawing_area()),
        _ => bail!("plot file must end in .svg or .png"),
    }
    .with_context(|| format!("drawing {}", path.display()))
}

/// Makes the embedded font plotters' sans-serif: before measuring text.
pub fn register_font() -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| anyhow!("embedded font is invalid"))
}

/// The width of `text` at `size` in the embedded font, px.
pub fn text_width(text: &str, size: f64) -> Result<f64> {
    let (w, _) = ("sans-serif", size)
        .into_font()
        .box_size(text)
        .map_err(|e| anyhow!("measuring text: {e:?}"))?;
    Ok(f64::from(w))
}

/// `#rrggbb` (the report's palette) as a colour.
pub fn rgb(hex: &str) -> RGBColor {
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0);
    RGBColor(byte(1), byte(3), byte(5))
}

/// The drawing area's error as ours.
pub fn failed<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> anyhow::Error {
    anyhow!("{e}")
}

/// A pixel position.
pub fn at(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// `text` of `size` in `colour`, its `h` edge (and its middle) at `pos`.
pub fn text<DB: DrawingBackend>(
    area: &Area<DB>,
    text: &str,
    (size, colour): (f64, &RGBColor),
    h: HPos,
    (x, y): (f64, f64),
) -> Result<()> {
    let style = TextStyle::from(("sans-serif", size).into_font())
        .color(colour)
        .pos(Pos::new(h, VPos::Center));
    area.draw_text(text, &style, at(x, y)).map_err(failed)
}

/// A line through `points`, solid or of `dash` (dash, gap, px).
pub fn rule<DB: DrawingBackend>(
    area: &Area<DB>,
    points: &[(f64, f64)],
    style: ShapeStyle,
    dash: Option<(u32, u32)>,
) -> Result<()> {
    let points: Vec<(i32, i32)> = points.iter().map(|&(x, y)| at(x, y)).collect();
    match dash {
        Some((d, g)) => area.draw(&DashedPathElement::new(points, d as i32, g as i32, style)),
        None => area.draw(&PathElement::new(points, style)),
    }
    .map_err(failed)
}

/// The marker of precision `p` centred on (`x`, `y`), as the report
/// draws it: f32 a circle, f64 a square, df64 a triangle, filled with
/// `fill` and edged in white.
pub fn marker<DB: DrawingBackend>(
    area: &Area<DB>,
    p: Precision,
    at: (f64, f64),
    fill: RGBColor,
) -> Result<()> {
    shape(area, p, at, (fill.filled(), WHITE.stroke_width(1)))
}

/// [`marker`]'s shape drawn hollow: white inside, outlined in `colour`.
pub fn hollow_marker<DB: DrawingBackend>(
    area: &Area<DB>,
    p: Precision,
    at: (f64, f64),
    colour: RGBColor,
) -> Result<()> {
    shape(area, p, at, (WHITE.filled(), colour.stroke_width(2)))
}

/// The shape of precision `p` centred on (`x`, `y`), filled and edged.
fn shape<DB: DrawingBackend>(
    area: &Area<DB>,
    p: Precision,
    (x, y): (f64, f64),
    (fill, edge): (ShapeStyle, ShapeStyle),
) -> Result<()> {
    match p {
        Precision::F32 => {
            area.draw(&Circle::new(at(x, y), 6, fill)).map_err(failed)?;
            area.draw(&Circle::new(at(x, y), 6, edge)).map_err(failed)
        }
        Precision::F64 => {
            let corners = [at(x - 5.5, y - 5.5), at(x + 5.5, y + 5.5)];
            area.draw(&Rectangle::new(corners, fill)).map_err(failed)?;
            area.draw(&Rectangle::new(corners, edge)).map_err(failed)
        }
        Precision::Df64 => {
            let tip = [at(x, y - 7.0), at(x - 6.5, y + 5.0), at(x + 6.5, y + 5.0)];
            area.draw(&Polygon::new(tip.to_vec(), fill))
                .map_err(failed)?;
            area.draw(&PathElement::new([&tip[..], &tip[..1]].concat(), edge))
                .map_err(failed)
        }
    }
}

/// A hollow marker at (`x`, `y`) edged in `colour`.
pub fn hollow<DB: DrawingBackend>(
    area: &Area<DB>,
    (x, y): (f64, f64),
    colour: RGBColor,
) -> Result<()> {
    area.draw(&Circle::new(at(x, y), 4, WHITE.filled()))
        .map_err(failed)?;
    area.draw(&Circle::new(at(x, y), 4, colour.stroke_width(2)))
        .map_err(failed)
}

/// A plot's frame: grid lines at the ticks of both axes, the tick labels,
/// the frame and the axis titles (the y title 60 px left of the plot).
pub fn frame<DB: DrawingBackend>(
    area: &Area<DB>,
    (x, y): (&Axis, &Axis),
    x_title: &str,
    y_title: &str,
) -> Result<()> {
    let (l, r, t, b) = (x.from, x.to, y.to, y.from);
    let grid = RGBColor(0xe6, 0xe6, 0xe6).stroke_width(1);
    let tick = (SMALL, &RGBColor(0x44, 0x44, 0x44));
    for (v, label) in x.ticks() {
        rule(area, &[(x.px(v), t), (x.px(v), b)], grid, None)?;
        text(area, &label, tick, HPos::Center, (x.px(v), b + 14.0))?;
    }
    for (v, label) in y.ticks() {
        rule(area, &[(l, y.px(v)), (r, y.px(v))], grid, None)?;
        text(area, &label, tick, HPos::Right, (l - 6.0, y.px(v)))?;
    }
    let edge = RGBColor(0x88, 0x88, 0x88).stroke_width(1);
    area.draw(&Rectangle::new([at(l, t), at(r, b)], edge))
        .map_err(failed)?;
    text(
        area,
        x_title,
        (TITLE, &INK),
        HPos::Center,
        ((l + r) / 2.0, b + 38.0),
    )?;
    let up = TextStyle::from(("sans-serif", TITLE).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Center))
        .transform(FontTransform::Rotate270);
    area.draw_text(y_title, &up, at(l - 60.0, (t + b) / 2.0))
        .map_err(failed)
}

/// Legend entries of `texts` (a 20 px swatch, then the text) flowing in
/// rows from `left` to `right`, the first row centred on `top`: the
/// swatch's left edge and centre line of each, and the last row's centre.
/// A text of several lines (`\n`, as [`wrap`] breaks it) takes rows of
/// its own.
pub fn flow(texts: &[String], left: f64, right: f64, top: f64) -> Result<(Vec<(f64, f64)>, f64)> {
    let (mut cx, mut cy) = (left, top);
    // The rows below `cy` the last text's further lines took.
    let mut below = 0.0;
    let mut places = Vec::new();
    for t in texts {
        let lines = t.lines().count().max(1);
        let mut widest: f64 = 0.0;
        for line in t.lines() {
            widest = widest.max(text_width(line, SMALL)?);
        }
        let w = 26.0 + widest + 18.0;
        if cx > left && (cx + w > right || lines > 1 || below > 0.0) {
            cx = left;
            cy += ROW + below;
        }
        places.push((cx, cy));
        below = ROW * (lines - 1) as f64;
        cx += w;
    }
    Ok((places, cy + below))
}

/// `text` broken at spaces into lines (joined by `\n`) no wider than
/// `width` px in the legend's size; a word longer keeps a line of its own.
pub fn wrap(text: &str, width: f64) -> Result<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), SMALL)? <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    Ok(lines.join("\n"))
}

/// A legend entry's text, beside its swatch at (`x`, `y`) from [`flow`].
pub fn entry_text<DB: DrawingBackend>(area: &Area<DB>, t: &str, (x, y): (f64, f64)) -> Result<()> {
    for (i, line) in t.lines().enumerate() {
        let row = (x + 26.0, y + ROW * i as f64);
        text(area, line, (SMALL, &INK), HPos::Left, row)?;
    }
    Ok(())
}
