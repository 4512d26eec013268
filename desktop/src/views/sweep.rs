//! The sweep view: one app's results as a heat map over two parameters that
//! vary ([`crate::sweep`] computes it). Loaded files' records are offered
//! too, as "app @ device".

use eframe::egui::{self, Color32};
use skylight_core::record::ResultRecord;

use crate::state::Snapshot;
use crate::sweep::{self, HeatMap, Metric};

/// The records of one menu entry, as (source, index): source 0 is this
/// session's records, source `i + 1` the `i`th loaded file's.
struct Group {
    label: String,
    members: Vec<(usize, usize)>,
}

/// What the menus choose.
#[derive(Clone, Debug, PartialEq)]
struct Choice {
    /// Menu label of the app ("app" or "app @ device").
    app: String,
    x: String,
    y: String,
    metric: Metric,
}

/// The view's choices and what was derived from the results for them; the
/// derived parts are recomputed only when the results or a choice change.
pub struct SweepView {
    choice: Choice,
    /// The results generation `groups`, `axes` and `map` come from.
    built: Option<u64>,
    groups: Vec<Group>,
    /// An app label and the names that vary among its records.
    axes: Option<(String, Vec<String>)>,
    /// The last map drawn and the choices it shows.
    map: Option<(Choice, HeatMap)>,
}

impl Default for SweepView {
    fn default() -> Self {
        SweepView {
            choice: Choice {
                app: String::new(),
                x: String::new(),
                y: String::new(),
                metric: Metric::Gflops,
            },
            built: None,
            groups: Vec::new(),
            axes: None,
            map: None,
        }
    }
}

impl SweepView {
    /// Draws the menus and the heat map of the chosen app in `now`.
    pub fn show(&mut self, ui: &mut egui::Ui, now: &Snapshot<'_>) {
        if self.built != Some(now.generation) {
            self.groups = groups(now);
            self.axes = None;
            self.map = None;
            self.built = Some(now.generation);
        }
        if self.groups.is_empty() {
            ui.label("run an app with comma lists (e.g. wg = 32,64,128,256 and several variants) to see its sweep");
            return;
        }
        self.update_axes(now);
        let axes = self.axes.as_ref().map_or(&[][..], |(_, a)| a.as_slice());
        menus(ui, &mut self.choice, &self.groups, axes);
        // The menus may have picked another app.
        self.update_axes(now);
        let Some((_, axes)) = &self.axes else {
            return;
        };
        let c = &mut self.choice;
        if axes.len() < 2 {
            ui.label(format!(
                "{}: only {} of its parameters vary ({}); sweep two to get a heat map",
                c.app,
                axes.len(),
                axes.join(", ")
            ));
            return;
        }
        if !axes.contains(&c.x) {
            c.x = axes.iter().find(|a| *a == "wg").unwrap_or(&axes[0]).clone();
        }
        if !axes.contains(&c.y) || c.y == c.x {
            c.y = axes
                .iter()
                .find(|a| **a != c.x)
                .cloned()
                .unwrap_or_default();
        }
        if self
            .map
            .as_ref()
            .is_none_or(|(built, _)| *built != self.choice)
        {
            let c = &self.choice;
            let map = sweep::heat_map(&self.records(now), &c.x, &c.y, c.metric);
            self.map = Some((self.choice.clone(), map));
        }
        if let Some((c, map)) = &self.map {
            draw_heat_map(ui, map, &c.x, &c.y, c.metric.name());
        }
    }

    /// Makes the chosen app one that exists and `axes` the names that vary
    /// among its records.
    fn update_axes(&mut self, now: &Snapshot<'_>) {
        if !self.groups.iter().any(|g| g.label == self.choice.app) {
            self.choice.app = self.groups[0].label.clone();
        }
        if self
            .axes
            .as_ref()
            .is_none_or(|(app, _)| *app != self.choice.app)
        {
            let varying = sweep::varying(&self.records(now));
            self.axes = Some((self.choice.app.clone(), varying));
        }
    }

    /// The chosen app's records.
    fn records<'a>(&self, now: &Snapshot<'a>) -> Vec<&'a ResultRecord> {
        let Some(g) = self.groups.iter().find(|g| g.label == self.choice.app) else {
            return Vec::new();
        };
        g.members
            .iter()
            .filter_map(|&(source, i)| match source {
                0 => now.records.get(i),
                s => now.loaded.get(s - 1)?.records.get(i),
            })
            .collect()
    }
}

/// The app, axis and metric menus.
fn menus(ui: &mut egui::Ui, c: &mut Choice, groups: &[Group], axes: &[String]) {
    ui.horizontal(|ui| {
        ui.label("app");
        egui::ComboBox::from_id_salt("sweep-app")
            .selected_text(c.app.as_str())
            .show_ui(ui, |ui| {
                for g in groups {
                    ui.selectable_value(&mut c.app, g.label.clone(), &g.label);
                }
            });
        for (label, axis) in [("x", &mut c.x), ("y", &mut c.y)] {
            ui.label(label);
            egui::ComboBox::from_id_salt(("sweep-axis", label))
                .selected_text(axis.as_str())
                .show_ui(ui, |ui| {
                    for a in axes {
                        ui.selectable_value(axis, a.clone(), a);
                    }
                });
        }
        ui.label("value");
        egui::ComboBox::from_id_salt("sweep-value")
            .selected_text(c.metric.name())
            .show_ui(ui, |ui| {
                for m in Metric::ALL {
                    ui.selectable_value(&mut c.metric, m, m.name());
                }
            });
    });
}

/// This session's records, then each loaded file's, grouped by menu label in
/// order of first appearance.
fn groups(now: &Snapshot<'_>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let local = now
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| (0, i, r.case.app.clone()));
    let loaded = now.loaded.iter().enumerate().flat_map(|(s, f)| {
        f.records
            .iter()
            .enumerate()
            .map(move |(i, r)| (s + 1, i, format!("{} @ {}", r.case.app, f.device)))
    });
    for (source, i, label) in local.chain(loaded) {
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => g.members.push((source, i)),
            None => groups.push(Group {
                label,
                members: vec![(source, i)],
            }),
        }
    }
    groups
}

/// Paints `map` as labelled coloured cells filling the available space.
fn draw_heat_map(ui: &mut egui::Ui, map: &HeatMap, x: &str, y: &str, unit: &str) {
    let font = egui::FontId::proportional(13.0);
    let text_color = ui.visuals().text_color();
    let avail = ui.available_size();
    let (rect, _) = ui.allocate_exact_size(avail, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let label_w = map
        .ys
        .iter()
        .map(|l| l.len())
        .max()
        .unwrap_or(1)
        .max(y.len()) as f32
        * 7.5
        + 16.0;
    let (label_h, legend_h) = (22.0, 24.0);
    let grid = egui::Rect::from_min_max(
        rect.min + egui::vec2(label_w, label_h),
        rect.max - egui::vec2(8.0, legend_h),
    );
    let (nx, ny) = (map.xs.len().max(1) as f32, map.ys.len().max(1) as f32);
    let cell = egui::vec2(grid.width() / nx, (grid.height() / ny).min(60.0));
    painter.text(
        rect.min,
        egui::Align2::LEFT_TOP,
        format!("{y} \\ {x}"),
        font.clone(),
        text_color,
    );
    for (i, xl) in map.xs.iter().enumerate() {
        let c = egui::pos2(
            grid.min.x + (i as f32 + 0.5) * cell.x,
            rect.min.y + label_h / 2.0,
        );
        painter.text(c, egui::Align2::CENTER_CENTER, xl, font.clone(), text_color);
    }
    for (j, (yl, row)) in map.ys.iter().zip(&map.cells).enumerate() {
        let top = grid.min.y + j as f32 * cell.y;
        painter.text(
            egui::pos2(rect.min.x, top + cell.y / 2.0),
            egui::Align2::LEFT_CENTER,
            yl,
            font.clone(),
            text_color,
        );
        for (i, v) in row.iter().enumerate() {
            let r =
                egui::Rect::from_min_size(egui::pos2(grid.min.x + i as f32 * cell.x, top), cell)
                    .shrink(1.0);
            draw_cell(&painter, r, *v, map.max, &font);
        }
    }
    painter.text(
        egui::pos2(grid.min.x, grid.min.y + ny * cell.y + 6.0),
        egui::Align2::LEFT_TOP,
        format!("{unit}, best over the other parameters; max {:.1}", map.max),
        font,
        text_color,
    );
}

/// One cell: filled and labelled with its value, or outlined when empty.
fn draw_cell(
    painter: &egui::Painter,
    r: egui::Rect,
    v: Option<f64>,
    max: f64,
    font: &egui::FontId,
) {
    let Some(v) = v else {
        painter.rect_stroke(
            r,
            2.0,
            egui::Stroke::new(1.0, Color32::from_gray(90)),
            egui::StrokeKind::Inside,
        );
        return;
    };
    let fill = sweep::ramp(if max > 0.0 { v / max } else { 0.0 });
    painter.rect_filled(r, 2.0, fill);
    // Dark text on the bright end of the ramp, light on the dark end.
    let ink = if fill.g() > 150 {
        Color32::BLACK
    } else {
        Color32::WHITE
    };
    painter.text(
        r.center(),
        egui::Align2::CENTER_CENTER,
        format!("{v:.1}"),
        font.clone(),
        ink,
    );
}
