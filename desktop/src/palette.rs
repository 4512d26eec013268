//! The window's colours and marker shapes, shared by the roofline, the
//! results table and the file list so one app looks the same everywhere.

use eframe::egui::{self, Color32};
use egui_plot::MarkerShape;
use skylight_core::Precision;
use skylight_core::registry;

/// Marker colours of the apps, in registry order: saturated and far apart so
/// points stay distinguishable on both themes (and findable in screenshots).
const PALETTE: [Color32; 8] = [
    Color32::from_rgb(230, 25, 75),
    Color32::from_rgb(60, 180, 75),
    Color32::from_rgb(0, 130, 200),
    Color32::from_rgb(245, 130, 48),
    Color32::from_rgb(145, 30, 180),
    Color32::from_rgb(70, 200, 220),
    Color32::from_rgb(240, 50, 230),
    Color32::from_rgb(170, 110, 40),
];

/// Colour of the portability cascade's efficiency markers.
pub const CASCADE_EFFICIENCY: Color32 = Color32::from_rgb(0, 130, 200);
/// Colour of the portability cascade's PP line.
pub const CASCADE_PP: Color32 = Color32::from_rgb(230, 25, 75);

/// Text colour of failures and errors: a softer red than [`Color32::RED`],
/// readable on both themes.
pub const FAILURE: Color32 = Color32::from_rgb(220, 60, 60);

/// Colour of `app`'s points from result source `source` (0 = this session's
/// runs, 1.. = loaded files). Each loaded device gets its own darker,
/// hue-shifted set so overlaid machines stay apart.
pub fn app_color(app: &str, source: usize) -> Color32 {
    let idx = registry::apps()
        .iter()
        .position(|a| a.name() == app)
        .unwrap_or_else(|| app.bytes().map(usize::from).sum::<usize>());
    let base = PALETTE[idx % PALETTE.len()];
    if source == 0 {
        return base;
    }
    let mut hsva = egui::ecolor::Hsva::from(base);
    hsva.h = (hsva.h + 0.09 * source as f32).fract();
    hsva.v *= 0.6;
    Color32::from(hsva)
}

/// Colour of the `i`th of several curves in one plot (the scaling view's,
/// where curves of one app must still differ): the app palette in turn.
pub fn series_color(i: usize) -> Color32 {
    PALETTE[i % PALETTE.len()]
}

/// Marker shape of a precision: the same across sources so f64 always looks like f64.
pub fn precision_marker(p: Precision) -> MarkerShape {
    match p {
        Precision::F32 => MarkerShape::Circle,
        Precision::F64 => MarkerShape::Square,
        Precision::Df64 => MarkerShape::Diamond,
    }
}

/// Colour of a roofline ceiling: grey for the memory roof (`None`), muted
/// per-precision tints for the compute roofs so they recede behind the points.
pub fn ceiling_color(p: Option<Precision>) -> Color32 {
    match p {
        None => Color32::from_gray(150),
        Some(Precision::F32) => Color32::from_rgb(110, 110, 180),
        Some(Precision::F64) => Color32::from_rgb(180, 110, 110),
        Some(Precision::Df64) => Color32::from_rgb(110, 170, 110),
    }
}
